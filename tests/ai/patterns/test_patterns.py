"""The pattern evaluation: the compiled kernel, the trainer's numpy indices and the plain-Python reference agree."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ai.pattern_training.fit import group_indices
from ai.patterns import regions
from core import AMERICAN, Board, Color
from tests.ai.positions import columns


def _positions(count: int, seed: int) -> list[Board]:
    """Positions from random games: men and kings of both sides, both to move."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < count:
        board = Board(None, AMERICAN)
        for _ in range(rng.randint(0, 120)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        out.append(board)
    return out


def _random_weights(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(-300, 300, size=(regions.PHASES, regions.GROUPS, regions.CONFIGURATIONS), dtype=np.int64)


def test_groups_are_eight_distinct_squares_and_the_half_turn_maps_them_onto_each_other() -> None:
    sets = [frozenset(g) for g in regions.REGIONS]
    assert len(regions.REGIONS) == regions.GROUPS
    assert all(
        len(g) == 8 and len(s) == 8 and s <= set(range(1, 33)) for g, s in zip(regions.REGIONS, sets, strict=True)
    )
    assert len(set(sets)) == regions.GROUPS
    assert {frozenset(33 - n for n in s) for s in sets} == set(sets)


def test_the_kernel_equals_the_reference_on_random_positions() -> None:
    from ai.kernel import tables
    from ai.kernel.patterns import patterns

    weights = _random_weights(1)
    k = tables.build(AMERICAN, None, weights)
    assert k[tables.PATTERN_ON] == 1
    boards = _positions(400, 2)
    assert {b.turn for b in boards} == {Color.BLACK, Color.WHITE}
    assert any(b.kings for b in boards)
    for board in boards:
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        assert patterns(me, opp, board.kings, black, k) == regions.evaluate(board, weights), board.fen()


def test_the_evaluation_adds_the_patterns_to_the_features() -> None:
    from ai.kernel import tables
    from ai.kernel.evaluation import evaluate

    weights = _random_weights(3)
    with_patterns = tables.build(AMERICAN, None, weights)
    without = tables.build(AMERICAN, None, tables.NO_PATTERNS)
    assert without[tables.PATTERN_ON] == 0
    for board in _positions(100, 4):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        plain = evaluate(me, opp, board.kings, black, without)
        assert evaluate(me, opp, board.kings, black, with_patterns) == plain + regions.evaluate(board, weights)


def test_the_trainers_indices_equal_the_reference() -> None:
    boards = _positions(300, 5)
    flat = group_indices(*columns(boards))
    for board, row in zip(boards, flat, strict=True):
        expected = regions.indices(*regions.men_squares(board))
        assert list(row - np.arange(regions.GROUPS) * regions.CONFIGURATIONS) == expected


@pytest.mark.parametrize("square", [1, 12, 21, 32])
def test_an_index_counts_each_side_by_its_digit(square: int) -> None:
    mine = regions.indices(frozenset({square}), frozenset())
    theirs = regions.indices(frozenset(), frozenset({square}))
    for group, a, b in zip(regions.REGIONS, mine, theirs, strict=True):
        if square in group:
            assert b == 2 * a == 2 * 3 ** group.index(square)
        else:
            assert a == b == 0
