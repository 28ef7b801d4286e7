"""``benchmarks/evaluation.py``: the positions come in a search's order, and the timed loop values each of them with
the table it is given (the same sum as the evaluation called one position at a time)."""

from __future__ import annotations

from ai.kernel import tables
from ai.kernel.evaluation import evaluate
from benchmarks.evaluation import PARTS, _value_all, nodes_of
from core import AMERICAN


def test_the_positions_are_each_followed_by_their_children() -> None:
    nodes = nodes_of(3, 5)
    assert len(nodes) > 3 * 7, "children and grandchildren of three positions"
    for me, opp, kings, black in nodes.tolist():
        assert me and not me & opp and black in (0, 1) and not kings & ~(me | opp)
    sides = nodes[:, 3].tolist()
    assert sides.count(0) > 3 and sides.count(1) > 3, "children and grandchildren have each side to move"


def test_the_timed_loop_values_every_position_with_its_table() -> None:
    nodes = nodes_of(2, 9)
    for _, patterns, network in PARTS:
        k = tables.of(AMERICAN, patterns=patterns, network=network)
        one_by_one = sum(evaluate(int(m), int(o), int(kg), bool(b), k) for m, o, kg, b in nodes)
        assert _value_all(nodes, k, 2) == 2 * one_by_one
