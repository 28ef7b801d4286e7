"""The searches find the shots, the evaluations compute their formulas, and ``master`` is perfect on mini."""

from __future__ import annotations

import random

import pytest

from ai.api import Limits, get_level, merge_limits
from ai.evaluation import MaterialGainEvaluator, TwoPhaseEvaluator, material
from ai.iterative import SteadyPlayer
from ai.mini_solver import _children, solve, value
from ai.rawgame import node_of
from core import MINI, Board, Color

# Quiet positions where one move wins material by force (each checked with the engine: the line is in the comment).
SHOTS = [
    # White gives two to take three: 18-15 11x18x27 31x24x15x6.
    ("W:W18,20,22,23,25,26,28,29,30,31,32:B1,2,3,4,5,9,10,11,12,16,19", "18-15"),
    # Black gives one to take three and crown: 10-15 19x10 7x14x23x32.
    ("B:W18,19,21,26,27,28,29,30,31:B2,3,4,5,7,8,9,10,12", "10-15"),
    # Black's 9-14 sets a trap that wins two men in every line (9-14 25-21 11-15 23-19 15-18 22x15 13x22x31).
    ("B:W17,22,23,24,25,26,27,29:B3,4,6,9,10,11,12,13", "9-14"),
]
KING_FINISH = ("W:WK1,27:B6,15,23", "1x10x19x26")
"""The king's triple jump takes every black piece; 27x18x11 would only take two."""


@pytest.mark.parametrize(("fen", "expected"), SHOTS[:2])
def test_hard_finds_the_shot(fen: str, expected: str) -> None:
    result = get_level("hard").factory().choose(Board(fen), Limits(time=30.0, depth=5), random.Random(0))
    assert result.move == expected


@pytest.mark.parametrize("name", ["medium", "cautious", "greedy", "hard", "master"])
def test_king_multi_jump_finish(name: str) -> None:
    fen, expected = KING_FINISH
    level = get_level(name)
    result = level.factory().choose(Board(fen), merge_limits(level, Limits(time=1.0, depth=3)), random.Random(0))
    assert result.move == expected


PINNED = [
    # (FEN, variant, the moves of medium, cautious, greedy and the former hard at depth 3, with random.Random(7))
    ("B:W17,22,23,25,26,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,19", "american", "19-24", "8-11", "9-14", "8-12"),
    ("W:W14,K15,23,24,28,29:B6,8,13,K30", "american", "23-19", "15-19", "14-9", "24-20"),
    ("W:W6,14,18,22,24,25,26,27,30,32:B3,4,5,8,9,11,16,20", "american", "26-23", "6-2", "25-21", "6-2"),
    ("B:WK4,23,24,29,32:B1,2,3,5,16", "american", "5-9", "16-20", "5-9", "3-7"),
    ("B:W6,10,24,25,28,29,30:B1,4,15,21", "capture-all", "4-8", "4-8", "15-19", "1-5"),
    ("B:W10,12,16,17,18:B1,2,3,5,7,15", "mini", "7-11", "1-4", "7-11", "3-6"),
]
"""The choices of the plain alpha-beta levels, pinned: a change to their shared search must not change them."""


@pytest.mark.parametrize(("fen", "variant", "medium", "cautious", "greedy", "hard"), PINNED)
def test_alpha_beta_choices_are_pinned(
    fen: str, variant: str, medium: str, cautious: str, greedy: str, hard: str
) -> None:
    for name, expected in (("medium", medium), ("cautious", cautious), ("greedy", greedy)):
        level = get_level(name)
        assert level.factory().choose(Board(fen, variant), level.default_limits, random.Random(7)).move == expected
    player = SteadyPlayer()  # hard before it moved to the kernel: the same negamax loop
    assert player.choose(Board(fen, variant), Limits(time=30.0, depth=3), random.Random(7)).move == hard


QUICKEST_WIN = ("W:WK10,18:B14,22", "10x17x26")
"""White's king takes both black men at once (the game is won); 18x9 takes one and wins only later."""


@pytest.mark.parametrize("name", ["hard", "master"])
def test_quickest_win_is_preferred(name: str) -> None:
    fen, expected = QUICKEST_WIN
    result = get_level(name).factory().choose(Board(fen), Limits(time=5.0, depth=6), random.Random(0))
    assert result.move == expected


# -- evaluations ---------------------------------------------------------------------------------------------------


def test_material_eval() -> None:
    # Black: men 1, 2, 3 and king 18 -> 3 + 2 = 5; White: men 30, 31 and kings 5, 9 -> 2 + 4 = 6.
    board = Board("B:W30,31,K5,K9:B1,2,3,K18")
    me, opp, kings, _ = node_of(board)
    assert material(me, opp, kings) == 5 - 6
    assert material(opp, me, kings) == 6 - 5


def test_material_gain_eval() -> None:
    root = Board("B:W21,22,23,K32:B9,10,11,K1")
    evaluate = MaterialGainEvaluator(*node_of(root))
    # At the root nothing has changed.
    assert evaluate(*node_of(root)) == 0
    # Black (the root player) then loses a man and White crowns one: ΔU_s = -1, ΔU_o = -1, ΔK_s = 0, ΔK_o = +1.
    later = Board("W:W22,23,K32,K4:B10,11,K1")
    me, opp, kings, black = node_of(later)
    # value for Black = -1 - (-1) + 2 * (0 - 1) = -2; the side to move is White, which sees +2.
    assert evaluate(me, opp, kings, black) == 2
    assert evaluate(opp, me, kings, not black) == -2


def test_cautious_scores_a_won_game_as_infinite() -> None:
    fen, expected = KING_FINISH
    result = get_level("cautious").factory().choose(Board(fen), Limits(depth=2), random.Random(0))
    assert result.move == expected and result.score >= 1e9


def test_two_phase_eval() -> None:
    ev = TwoPhaseEvaluator(Board().variant.geometry, random.Random(0))
    start = Board()
    assert not ev.is_end_game(*node_of(start)[:3])
    assert ev.is_end_game(*node_of(Board("B:W21,22,23:B1,2,3,4,5"))[:3])  # 3 < 2/3 of 5
    assert ev.is_end_game(*node_of(Board("B:W21,22,23,24,25,26,K27:B1,2,3,4,5,6,7"))[:3])  # 14 pieces, kings 1-0
    assert ev.is_end_game(*node_of(Board("B:W21,22,23,24:B1,2,3,4,5"))[:3])  # 9 pieces
    assert abs(ev(*node_of(start))) < 1  # a symmetric start is worth only the noise


# -- master's game awareness ----------------------------------------------------------------------------------------


def test_history_hashes_cover_the_reversible_moves() -> None:
    board = Board("B:WK28:BK1,K5")
    for text in ("1-6", "28-32", "6-1", "32-28"):
        board.push_text(text)
    hashes = board.history_hashes()
    assert hashes[0] == hashes[-1] == board.hash
    assert len(hashes) == 5


# -- mini: perfect play ----------------------------------------------------------------------------------------------


def test_mini_start_is_a_draw() -> None:
    me, opp, _, black = node_of(Board(variant=MINI))
    assert value(me, opp, black) == 0


def _plain_minimax(me: int, opp: int, black: bool) -> int:
    moves = _children(me, opp, black)
    if isinstance(moves, int):
        return moves
    return max(-_plain_minimax(opp & ~c, (me ^ f) | t, not black) for f, t, c, _ in moves)


def test_mini_solver_matches_plain_minimax() -> None:
    rng = random.Random(5)
    checked = 0
    while checked < 20:
        board = Board(variant=MINI)
        for _ in range(rng.randrange(18, 26)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        if board.outcome() is not None:
            continue
        me, opp, _, black = node_of(board)
        assert solve(me, opp, black) == _plain_minimax(me, opp, black), board.fen()
        checked += 1


@pytest.mark.parametrize("opponent", ["medium", "easy"])
@pytest.mark.parametrize("master_color", [Color.BLACK, Color.WHITE])
def test_master_never_loses_mini(opponent: str, master_color: Color) -> None:
    for game in range(2):
        board = Board(variant=MINI)
        rng = random.Random(game)
        players = {master_color: get_level("master"), master_color.opponent: get_level(opponent)}
        while board.outcome() is None:
            level = players[board.turn]
            result = level.factory().choose(board, merge_limits(level, Limits(time=0.2)), rng)
            board.push_text(result.move)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is not master_color.opponent, (opponent, board.move_stack)
