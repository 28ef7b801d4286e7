"""``python-master``, the pure-Python search kept with the benchmarks: it still finds the shots, scores a win by its
distance and repeats a position when behind (the yardstick has to be sound to measure the kernel against)."""

from __future__ import annotations

import random

import pytest

from ai.api import Limits
from benchmarks.python_master import Engine
from core import Board
from tests.ai.test_search import QUICKEST_WIN, SHOTS


@pytest.mark.parametrize(("fen", "expected"), SHOTS)
def test_python_master_finds_the_shot(fen: str, expected: str) -> None:
    result = Engine(Board(fen), Limits(time=30.0, depth=7)).run(random.Random(0))
    assert result.move == expected
    assert result.score > 0


def test_python_master_scores_the_win_by_its_distance() -> None:
    fen, _ = QUICKEST_WIN
    result = Engine(Board(fen), Limits(time=5.0, depth=6)).run(random.Random(0))
    assert result.score == 1_000_000 - 1


def test_python_master_repeats_a_position_when_behind() -> None:
    # White has one king against two. After 1-6 32-28 6-1 28-32 1-6, White's 32-28 repeats a position of the game:
    # the search scores it as a draw, better than 32-27 (a king down).
    board = Board("B:WK32:BK1,K3")
    fresh = Engine(Board("W:WK32:BK6,K3"), Limits(time=5.0, depth=4)).run(random.Random(0))
    assert fresh.score < 0
    for text in ("1-6", "32-28", "6-1", "28-32", "1-6"):
        board.push_text(text)
    result = Engine(board, Limits(time=5.0, depth=4)).run(random.Random(0))
    assert result.move == "32-28"
    assert result.score == 0
