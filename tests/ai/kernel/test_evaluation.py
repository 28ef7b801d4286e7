"""The kernel's evaluation is ``master``'s: the same features and weights give the same value on random positions."""

from __future__ import annotations

import random

from ai.features import make_evaluator, rounded_weights
from ai.kernel import KernelPlayer, engine
from ai.player import Limits
from core import Board, Color
from tests.ai.kernel.positions import sample


def test_the_evaluation_equals_master_s() -> None:
    for board in sample(seed=12, per_variant=300):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        assert engine.evaluate(board) == make_evaluator(board.variant.geometry)(me, opp, board.kings, black), (
            board.fen()
        )


def test_a_player_with_other_weights_searches_with_them() -> None:
    board = Board("B:W25,26,27:B5,6,K10")  # quiet: a depth-1 search scores the evaluation after each move
    limits = Limits(depth=1)
    shipped = KernelPlayer(table_entries=1 << 10).choose(board, limits, random.Random(0))
    weights = tuple(w * 2 for w in rounded_weights())
    doubled = KernelPlayer(table_entries=1 << 12, weights=weights).choose(board, limits, random.Random(0))
    assert doubled.move == shipped.move
    assert doubled.score == 2 * shipped.score != 0
