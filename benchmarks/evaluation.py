"""What ``master``'s evaluation costs, part by part: nanoseconds an evaluation, in the compiled kernel.

    python benchmarks/evaluation.py                 # 40 random positions, each with its children and grandchildren
    python benchmarks/evaluation.py --positions 80 --rounds 5

The positions are valued in a search's order (a position's children, each followed by its own children), as the
search's leaves come. Each row is the kernel's evaluation with one more part (:func:`ai.kernel.tables.of`): the
features alone, then the pattern tables, then the small network on top (``master``). The figure is the best of the
rounds, so another process on the machine raises it less. The differences between the rows are what each part costs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.kernel import tables
from ai.kernel.evaluation import evaluate
from ai.kernel.jit import njit
from ai.rawgame import node_of
from core import AMERICAN, Board
from tests.ai.positions import random_positions

Array = npt.NDArray[np.int64]

PARTS = (("features", False, False), ("+ patterns", True, False), ("+ network (master)", True, True))


@njit
def _value_all(nodes: Array, k: tables.Constants, repeats: int) -> int:
    total = 0
    for _ in range(repeats):
        for i in range(nodes.shape[0]):
            total += evaluate(nodes[i, 0], nodes[i, 1], nodes[i, 2], nodes[i, 3] != 0, k)
    return total


def _row(board: Board) -> tuple[int, int, int, int] | None:
    """The node of ``board`` as a row (Black to move as 1), or None if the side to move has no piece."""
    me, opp, kings, black = node_of(board)
    return (me, opp, kings, int(black)) if me else None


def nodes_of(count: int, seed: int) -> Array:
    """Random positions, each followed by its children, each child by its own children."""
    rows: list[tuple[int, int, int, int]] = []
    for board in random_positions(count, seed):
        for move in board.legal_moves:
            child = board.copy()
            child.push(move)
            found = [_row(child)]
            for reply in child.legal_moves:
                grandchild = child.copy()
                grandchild.push(reply)
                found.append(_row(grandchild))
            rows.extend(row for row in found if row is not None)
    return np.array(rows, dtype=np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=40, help="random positions (default 40)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds, the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    nodes = nodes_of(args.positions, args.seed)
    repeats = max(1, 200_000 // len(nodes))
    print(f"{len(nodes)} positions, each valued {repeats} times a round, best of {args.rounds} rounds")
    for name, patterns, network in PARTS:
        k = tables.of(AMERICAN, patterns=patterns, network=network)
        _value_all(nodes, k, 1)  # compiled or loaded before the clock starts
        best = float("inf")
        for _ in range(args.rounds):
            started = time.perf_counter()
            _value_all(nodes, k, repeats)
            best = min(best, time.perf_counter() - started)
        print(f"{name:<20} {1e9 * best / (repeats * len(nodes)):7.1f} ns an evaluation")


if __name__ == "__main__":
    main()
