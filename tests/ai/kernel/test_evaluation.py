"""The kernel's evaluation is ``master``'s: the same features and weights give the same value on random positions."""

from __future__ import annotations

from ai.features import make_evaluator
from ai.kernel import engine
from core import Color
from tests.ai.kernel.positions import sample


def test_the_evaluation_equals_master_s() -> None:
    for board in sample(seed=12, per_variant=300):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        assert engine.evaluate(board) == make_evaluator(board.variant.geometry)(me, opp, board.kings, black), (
            board.fen()
        )
