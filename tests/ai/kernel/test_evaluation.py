"""The kernel's evaluation is ``master``'s: the same features and weights, and in English draughts the shipped pattern
weights, give the same value as the plain-Python references on random positions."""

from __future__ import annotations

import json
import random
from importlib import resources

from ai.features import FEATURES, KERNEL_WEIGHTS_FILE, make_evaluator, rounded_weights, tuned_weights
from ai.kernel import KernelPlayer, engine
from ai.patterns import regions
from ai.patterns.weights import shipped
from ai.player import Limits
from benchmarks.python_master import evaluator_for
from core import Board, Color
from tests.ai.kernel.positions import sample


def test_the_evaluation_equals_the_reference_with_master_s_weights() -> None:
    kernel_weights = tuned_weights(KERNEL_WEIGHTS_FILE)
    patterns = shipped()
    assert patterns is not None
    learned = 0
    for board in sample(seed=12, per_variant=300):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        reference = make_evaluator(board.variant.geometry, kernel_weights)
        features = reference(me, opp, board.kings, black)
        assert engine.evaluate(board, patterns=False) == features, board.fen()
        extra = regions.evaluate(board, patterns) if board.variant.name == "american" else 0
        learned += extra != 0
        assert engine.evaluate(board) == features + extra, board.fen()
    assert learned > 100  # the shipped patterns do count


def test_master_s_weights_are_the_fitted_ones_but_for_the_changes_its_file_names() -> None:
    fitted, kernel = rounded_weights(), rounded_weights(tuned_weights(KERNEL_WEIGHTS_FILE))
    changed = {name for name, a, b in zip(FEATURES, fitted, kernel, strict=True) if a != b}
    file = resources.files("ai").joinpath("data", KERNEL_WEIGHTS_FILE)
    assert changed == set(json.loads(file.read_text(encoding="utf-8"))["changes"]) != set()


def test_the_pure_python_master_keeps_the_fitted_weights() -> None:
    board = Board("W:W18,21,22,23,24,25,26:B1,2,3,6,9,10")  # 13 pieces, a man up: the trade weight counts
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    fitted = make_evaluator(board.variant.geometry)(me, opp, board.kings, black)
    assert evaluator_for(board.variant)(me, opp, board.kings, black) == fitted != engine.evaluate(board)


def test_a_player_with_other_weights_searches_with_them() -> None:
    board = Board("B:W25,26,27:B5,6,K10")  # quiet: a depth-1 search scores the evaluation after each move
    limits = Limits(depth=1)
    shipped = KernelPlayer(table_entries=1 << 10, patterns=False).choose(board, limits, random.Random(0))
    weights = tuple(w * 2 for w in rounded_weights(tuned_weights(KERNEL_WEIGHTS_FILE)))
    doubled = KernelPlayer(table_entries=1 << 12, weights=weights, patterns=False).choose(
        board, limits, random.Random(0)
    )
    assert doubled.move == shipped.move
    assert doubled.score == 2 * shipped.score != 0
    learned = KernelPlayer(table_entries=1 << 11).choose(board, limits, random.Random(0))
    assert learned.score != shipped.score  # the patterns change what the search sees
