"""The kernel's player: its moves are legal by ``core``, it keeps to its budget, finds the shots ``master`` finds,
prefers the quickest win, and sees draws by repetition in the game's history."""

from __future__ import annotations

import random

import pytest

from ai.api import Limits, SearchResult
from ai.kernel import KernelPlayer
from core import Board
from tests.ai.kernel.positions import sample
from tests.ai.test_search import KING_FINISH, QUICKEST_WIN, SHOTS

PLAYER = KernelPlayer(table_entries=1 << 16)
FEATURES_ONLY = KernelPlayer(table_entries=1 << 15, patterns=False)


def test_every_move_and_line_is_legal_by_core_at_a_tiny_budget() -> None:
    rng = random.Random(3)
    checked = 0
    for board in sample(seed=11, per_variant=120):
        if not board.legal_moves:
            continue
        nodes = rng.choice((1, 10, 60, 400))
        result = PLAYER.choose(board, Limits(nodes=nodes), rng)
        assert result.nodes <= nodes
        assert result.pv[0] == result.move
        replay = board.copy()
        for text in result.pv:
            replay.push(replay.parse_move(text))  # raises if the kernel's line leaves core's rules
        checked += 1
    assert checked >= 300


def test_the_depth_limit_is_kept() -> None:
    result = PLAYER.choose(Board(), Limits(depth=4), random.Random(0))
    assert result.depth == 4 and len(result.pv) >= 4


def test_a_single_legal_move_is_played_without_searching() -> None:
    board = Board("B:W26,27:B22")
    assert PLAYER.choose(board, Limits(time=1.0), random.Random(0)).move == "22x31"


@pytest.mark.parametrize(("fen", "expected"), [*SHOTS, KING_FINISH])
def test_the_kernel_finds_the_shot(fen: str, expected: str) -> None:
    # The hand-picked features alone: with the learned patterns, master plays 32-27 in the first position instead of
    # the shot, keeping it in hand (the next test).
    result = FEATURES_ONLY.choose(Board(fen), Limits(depth=7), random.Random(0))
    assert result.move == expected
    assert result.score > 0


def test_with_the_patterns_master_sees_at_depth_7_what_the_features_see_at_depth_17() -> None:
    fen = SHOTS[0][0]  # White's shot 18-15 wins a man back at once; 32-27 first keeps it as a threat and wins more
    deep = FEATURES_ONLY.choose(Board(fen), Limits(depth=17), random.Random(0))
    assert deep.move == "32-27"
    assert PLAYER.choose(Board(fen), Limits(depth=7), random.Random(0)).move == "32-27"


def test_the_quickest_win_is_preferred_and_scored_by_its_distance() -> None:
    fen, expected = QUICKEST_WIN
    result = PLAYER.choose(Board(fen), Limits(depth=6), random.Random(0))
    assert result.move == expected
    assert result.score == 1_000_000 - 1


def test_a_king_behind_repeats_a_position_of_the_game() -> None:
    # White's king on 30 against two black kings: after 1-6 30-26 6-1 26-30 1-6, White's 30-26 brings back a
    # position of the game, which the search scores as a draw; without that history White is simply a king down.
    board = Board("B:WK30:BK1,K3")
    for text in ("1-6", "30-26", "6-1", "26-30", "1-6"):
        board.push_text(text)
    fresh = PLAYER.choose(Board(board.fen()), Limits(depth=6), random.Random(0))
    assert fresh.score < 0
    result = PLAYER.choose(board, Limits(depth=6), random.Random(0))
    assert (result.move, result.score) == ("30-26", 0.0)


def test_a_search_held_to_some_root_moves_finds_the_best_of_them() -> None:
    from ai.kernel import engine

    board = Board("B:W14,15,19,20,23,24,25:B2,3,4,6,12")  # 6-10 gives a man and takes three back: 15x6 2x9x18x27

    def search(moves: set[str] | None) -> SearchResult:
        return engine.search(board, Limits(nodes=50_000), random.Random(0), table_entries=1 << 16, moves=moves)

    best = search(None)
    assert best.move == "6-10"
    others = {m.text() for m in board.legal_moves} - {"6-10"}
    second = search(others)
    assert second.move in others and second.score <= best.score - 150
    alone = search({"6-10"})  # a single root move is searched, not played blind
    assert alone.move == "6-10" and alone.depth > 0 and alone.score >= best.score - 20
    with pytest.raises(ValueError, match="legal"):
        search({"1-5"})
