"""The small network compiled (:mod:`ai.kernel.network`): its integer value equals a plain-Python reference of the same
weights on random positions, stays within four hundredths of a man of the float network it was quantized from (the
floors of its three layers), and the evaluation adds it."""

from __future__ import annotations

import numpy as np

from ai.kernel import tables
from ai.kernel.evaluation import evaluate
from ai.kernel.network import network
from ai.pattern_training.network import Network, inputs
from ai.patterns.network import B1_AT, B2_AT, B3_AT, H1, H2, SHIFT, W1_AT, W2_AT, W3_AT, quantized, shipped_network
from core import AMERICAN, Color
from tests.ai.positions import columns, random_positions


def _reference(block: np.ndarray, x: np.ndarray) -> int:  # type: ignore[type-arg]
    """The compiled arithmetic in plain Python: integers, floors where it scales back."""
    w = [int(v) for v in block]
    a1 = [w[B1_AT + u] for u in range(H1)]
    for i in np.flatnonzero(x):
        for u in range(H1):
            a1[u] += w[W1_AT + int(i) * H1 + u]
    a2 = [0] * H2
    for j in range(H1):
        if a1[j] > 0:
            for u in range(H2):
                a2[u] += a1[j] * w[W2_AT + j * H2 + u]
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
    assert np.array_equal(k[int(k[tables.NETWORK_AT]) :], block)
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
