"""The endgame trainer's distances, endings, defender and review (:mod:`ai.endgames`), against the independent solver
of small endings and by playing the endings out."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ai import endgame_tables, endgames
from ai.api import get_level, levels
from core import Board, Color, Outcome, Termination
from tests.ai.endgames import solve
from tests.ai.trainee import shuffle, trainee_best


def test_distances_equal_the_independent_solver_for_every_position_of_up_to_three_pieces() -> None:
    solved = solve(3)
    checked = 0
    for position in (*solved.wins, *solved.losses, *solved.draws):
        black, white, kings, black_to_move = position
        board = Board("B:W:B")
        board.black, board.white, board.kings = black, white, kings
        board.turn = Color.BLACK if black_to_move else Color.WHITE
        found = endgames.distance(board)
        assert found is not None
        if position in solved.wins:
            assert found == endgames.Distance(endgames.WIN, solved.wins[position]), board.fen()
        elif position in solved.losses:
            assert found == endgames.Distance(endgames.LOSS, solved.losses[position]), board.fen()
        else:
            assert found == endgames.Distance(endgames.DRAW, None), board.fen()
        checked += 1
    assert checked > 100_000


def test_the_longest_win_of_two_kings_against_one_takes_seventeen_moves() -> None:
    fen = endgames.setup("two_kings")
    assert endgames.distance(Board(fen)) == endgames.Distance(endgames.WIN, 33)
    assert Board(fen).turn is Color.BLACK and Board(fen).count(Color.BLACK, kings=True) == 2


def test_positions_outside_the_tables_have_no_distance() -> None:
    assert endgames.distance(Board()) is None
    assert endgames.distance(Board("B:W20,21:BK1,K2,3")) is None  # five pieces with men
    assert endgames.distance(Board("B:W20:BK1,K2")) is not None  # four, with a man


def test_first_position_is_a_win_for_white_and_perfect_play_converts_it_in_the_fewest_moves() -> None:
    fen = endgames.setup("first_position")
    assert endgames.distance(Board(fen)) == endgames.Distance(endgames.WIN, 81)
    board = _play(fen, trainee_best, trainee=Color.WHITE)
    assert board.outcome() is not None and board.outcome().winner is Color.WHITE  # type: ignore[union-attr]
    review = endgames.review(fen, tuple(m.text() for m in board.move_stack), board.outcome())
    assert review.achieved and review.moves == review.best == 41 and review.slips == ()


def _play(fen: str, trainee_move: object, trainee: Color = Color.BLACK) -> Board:
    board = Board(fen)
    defender = get_level(endgames.LEVEL).factory()
    rng = random.Random(0)
    while board.outcome() is None:
        if board.turn is trainee:
            board.push_text(trainee_move(board))  # type: ignore[operator]
        else:
            board.push_text(defender.choose(board, get_level(endgames.LEVEL).default_limits, rng).move)
    return board


def test_perfect_play_converts_two_kings_against_one_in_the_fewest_moves() -> None:
    fen = endgames.setup("two_kings")
    board = _play(fen, trainee_best)
    assert board.outcome() == Outcome(Termination.NO_PIECES, Color.BLACK)
    review = endgames.review(fen, tuple(m.text() for m in board.move_stack), board.outcome())
    assert review.achieved and review.moves == review.best == 17 and review.slips == ()


def test_shuffling_kings_ends_by_the_forty_move_rule_and_is_no_conversion() -> None:
    fen = endgames.setup("two_kings")
    board = _play(fen, shuffle)
    assert board.outcome() == Outcome(Termination.MOVE_LIMIT, None)
    review = endgames.review(fen, tuple(m.text() for m in board.move_stack), board.outcome())
    assert not review.achieved and review.ended_by is Termination.MOVE_LIMIT
    assert review.moves == 40 and review.thrown is None and review.slips


def test_the_defender_delays_the_loss_the_longest() -> None:
    board = Board(endgames.setup("two_kings"))
    board.push_text(trainee_best(board))
    level = get_level(endgames.LEVEL)
    chosen = level.factory().choose(board, level.default_limits, random.Random())
    lengths = {}
    for move in board.legal_moves:
        board.push(move)
        lengths[move.text()] = endgames.distance(board)
        board.pop()
    longest = max(d.plies or 0 for d in lengths.values() if d is not None)
    assert lengths[chosen.move] == endgames.Distance(endgames.WIN, longest) and longest == 31


def test_a_thrown_win_is_reported_as_such() -> None:
    fen = endgames.setup("two_kings")
    board = Board(fen)
    defender = get_level(endgames.LEVEL).factory()
    while True:  # the best moves until one of the trainee's moves would give a king away
        throwing = []
        for move in board.legal_moves:
            board.push(move)
            after = endgames.distance(board)
            board.pop()
            if after is None or after.value != endgames.LOSS:
                throwing.append(move.text())
        if throwing:
            break
        board.push_text(trainee_best(board))
        board.push_text(defender.choose(board, get_level(endgames.LEVEL).default_limits, random.Random(0)).move)
    board.push_text(throwing[0])
    number = len(board.move_stack)
    review = endgames.review(fen, tuple(m.text() for m in board.move_stack), Outcome(Termination.MOVE_LIMIT, None))
    assert not review.achieved and review.thrown == endgames.Slip(number, throwing[0], None)
    assert review.moves == (number + 1) // 2


LONGEST = {(3, 1): 29, (4, 1): 29, (3, 2): 67}
"""The longest win of each material of :data:`ai.endgames.RANDOM_MATERIALS`, in plies."""


@pytest.mark.parametrize("difficulty", endgames.DIFFICULTIES)
def test_random_endings_are_won_within_their_difficultys_third_of_the_longest_win(difficulty: str) -> None:
    step = endgames.DIFFICULTIES.index(difficulty)
    for seed in range(6):
        fen = endgames.setup("random", difficulty, seed)
        board = Board(fen)
        found = endgames.distance(board)
        assert found is not None and found.value == endgames.WIN and found.plies is not None
        longest = LONGEST[board.count(Color.BLACK), board.count(Color.WHITE)]
        assert max(3, longest * step // 3 + 1) <= found.plies <= longest * (step + 1) // 3, (fen, found)
        assert board.turn is Color.BLACK and fen == endgames.setup("random", difficulty, seed)


def test_a_drawn_ending_is_held_and_the_defender_keeps_its_draw() -> None:
    fen = endgames.setup("hold_draw")
    board = Board(fen)
    assert endgames.distance(board) == endgames.Distance(endgames.DRAW, None)
    defender = get_level(endgames.LEVEL).factory()
    rng = random.Random(0)
    for _ in range(6):
        for move in board.legal_moves:  # the trainee keeps the draw
            board.push(move)
            after = endgames.distance(board)
            if after is not None and after.value == endgames.DRAW:
                break
            board.pop()
        if board.outcome() is not None:
            break
        board.push_text(defender.choose(board, get_level(endgames.LEVEL).default_limits, rng).move)
        assert endgames.distance(board) in (endgames.Distance(endgames.DRAW, None), None)
    review = endgames.review(fen, tuple(m.text() for m in board.move_stack), Outcome(Termination.MOVE_LIMIT, None))
    assert review.goal == endgames.DRAW and review.achieved and review.thrown is None


def test_the_defender_is_hidden_and_refuses_other_positions() -> None:
    assert endgames.LEVEL not in levels()
    with pytest.raises(endgames.NotAnEndingError):
        get_level(endgames.LEVEL).factory().choose(Board(), get_level(endgames.LEVEL).default_limits, random.Random())
    with pytest.raises(endgames.NotAnEndingError):
        endgames.setup("third_position")


def test_solved_tables_are_cached_on_disk_and_a_damaged_cache_is_solved_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(endgame_tables, "_SOLVED", {})
    board = Board(endgames.setup("two_kings"))
    assert endgames.distance(board) == endgames.Distance(endgames.WIN, 33)
    [cached] = tmp_path.glob("kernel-*/distances/kings-3-*.npz")
    cached.write_bytes(b"not a cache")
    monkeypatch.setattr(endgame_tables, "_SOLVED", {})
    assert endgames.distance(board) == endgames.Distance(endgames.WIN, 33)
    assert cached.stat().st_size > 100_000, "solved again and written again"
