"""The small network compiled (:mod:`ai.kernel.network`): its integer value equals a plain-Python reference of the same
weights on random positions, stays within four hundredths of a man of the float network it was quantized from (the
floors of its three layers), and the evaluation adds it."""

from __future__ import annotations

import numpy as np
import pytest

from ai.kernel import tables
from ai.kernel.evaluation import evaluate
from ai.kernel.network import network
from ai.pattern_training.network import Network, inputs
from ai.patterns.network import (
    B1_AT,
    B2_AT,
    B3_AT,
    H1,
    H2,
    SHIFT,
    W1_AT,
    W2_AT,
    W3_AT,
    packed,
    quantized,
    second_layer_bound,
    shipped_network,
)
from core import AMERICAN, Color
from tests.ai.positions import columns, random_positions


def _second_layer(block: np.ndarray, x: np.ndarray) -> list[int]:  # type: ignore[type-arg]
    """The second layer's sums of input ``x``, in Python's unbounded integers."""
    w = [int(v) for v in block]
    a1 = [w[B1_AT + u] for u in range(H1)]
    for i in np.flatnonzero(x):
        for u in range(H1):
            a1[u] += w[W1_AT + int(i) * H1 + u]
    return [sum(max(a1[j], 0) * w[W2_AT + j * H2 + u] for j in range(H1)) for u in range(H2)]


def _reference(block: np.ndarray, x: np.ndarray) -> int:  # type: ignore[type-arg]
    """The compiled arithmetic in plain Python: integers, floors where it scales back."""
    w = [int(v) for v in block]
    a2 = _second_layer(block, x)
    out = 0
    for u in range(H2):
        y = (a2[u] >> SHIFT) + w[B2_AT + u]
        if y > 0:
            out += y * w[W3_AT + u]
    out = (out >> SHIFT) + w[B3_AT]
    return (out * 100) >> SHIFT


def test_the_kernel_equals_the_reference_and_the_float_network_on_random_positions() -> None:
    params = shipped_network()
    block = quantized(params)
    k = tables.of(AMERICAN, patterns=False, network=True)
    assert np.array_equal(k[int(k[tables.NETWORK_AT]) :], packed(block))
    net = Network((H1, H2), np.random.default_rng(0))
    net.params = [p.copy() for p in params]
    boards = random_positions(300, 4)
    x = inputs(*columns(boards))
    floats = net.value(x)
    values = set()
    for board, row, exact in zip(boards, x, floats, strict=True):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        got = network(me, opp, board.kings, black, k)
        assert got == _reference(block, row), board.fen()
        assert abs(got - exact) <= max(4.0, 0.005 * abs(exact)), (board.fen(), got, exact)  # 1/1024, floored 3 times
        values.add(got)
    assert len(values) > 50, "the network tells positions apart"


def test_the_second_layer_fits_in_32_bits_and_a_network_that_might_not_is_refused() -> None:
    """The kernel adds the second layer in 32 bits: the bound holds on real positions (and most on the positions that
    push it hardest, every square full), the shipped weights are well inside it, and weights that could pass it are
    refused before a table is built, not added wrongly."""
    block = quantized(shipped_network())
    bound = second_layer_bound(block)
    assert bound < 2**31 // 8, "the shipped weights leave room"
    boards = random_positions(300, 6)
    largest = max(max(abs(s) for s in _second_layer(block, row)) for row in inputs(*columns(boards)))
    assert 0 < largest <= bound
    crowded = np.zeros(128, dtype=np.uint8)
    crowded[:24] = 1  # 24 of Black's men on the board's 32 squares: more pieces than a game has, still within bound
    assert max(abs(s) for s in _second_layer(block, crowded)) <= bound
    wild = block.copy()
    wild[W2_AT : W2_AT + H1 * H2] *= 64
    assert second_layer_bound(wild) >= 2**31
    with pytest.raises(ValueError, match="past 32 bits"):
        packed(wild)


def test_the_packed_second_layer_is_read_back_as_it_was() -> None:
    block = quantized(shipped_network())
    table = packed(block)
    w2 = table[W2_AT : W2_AT + H1 * H2].view(np.int32)[: H1 * H2]
    assert np.array_equal(w2, block[W2_AT : W2_AT + H1 * H2])
    rest = np.ones(block.size, dtype=bool)
    rest[W2_AT : W2_AT + H1 * H2] = False
    assert np.array_equal(table[rest], block[rest]), "every other word as quantized"


def test_the_evaluation_adds_the_network_to_the_features() -> None:
    with_net = tables.of(AMERICAN, patterns=False, network=True)
    features = tables.of(AMERICAN, patterns=False)
    assert features[tables.NETWORK_AT] == 0
    for board in random_positions(50, 9):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        expected = evaluate(me, opp, board.kings, black, features) + network(me, opp, board.kings, black, with_net)
        assert evaluate(me, opp, board.kings, black, with_net) == expected


def test_masters_evaluation_adds_the_network_to_the_features_and_the_patterns() -> None:
    master = tables.of(AMERICAN, network=True)
    patterns = tables.of(AMERICAN)
    assert master[tables.PATTERN_ON] and master[tables.NETWORK_AT] and not patterns[tables.NETWORK_AT]
    moved = 0
    for board in random_positions(50, 11):
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        net = network(me, opp, board.kings, black, master)
        expected = evaluate(me, opp, board.kings, black, patterns) + net
        assert evaluate(me, opp, board.kings, black, master) == expected
        moved += net != 0
    assert moved > 40, "the network changes the value of most positions"
