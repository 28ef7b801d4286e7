"""Search speed: nodes per second and the depth reached in a fixed time, on a fixed set of positions.

    python benchmarks/search.py                     # the kernel, python-master and hard, 1 s a position
    python benchmarks/search.py --vs py-draughts    # and py-draughts's SimpleEngine in the same run
    python benchmarks/search.py --time 2 --levels kernel python-master
    python benchmarks/search.py --levels kernel --depth 16   # seconds to complete depth 16 instead

``kernel`` is the compiled search of ``ai/kernel`` (:class:`ai.kernel.KernelPlayer`), compiled or loaded from its cache
before the clock starts (the search of ``master`` and ``hard``); ``python-master`` is ``master``'s former pure-Python
search, kept as a hidden level to measure the kernel against. Each engine starts every position with an empty
transposition table.

py-draughts is not a dependency of King Me: with ``--vs py-draughts`` it runs in the throwaway venv ``.bench-venv``
(created with ``py-draughts==1.10.1`` on first use, see ``benchmarks/_peer.py``), its captures made compulsory.
The engines count nodes differently (King Me counts every node, quiescence included), so compare the depths too.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ai.kernel
from ai.api import Limits, get_level
from ai.kernel import engine as kernel_engine
from benchmarks.python_master import Engine
from benchmarks.python_master.tt import TranspositionTable
from core import Board

KERNEL = "kernel"
"""The column of the compiled kernel's player, uncapped, with ``master``'s evaluation (``master`` without its book, its
databases and its mini solver)."""

POSITIONS: list[tuple[str, str]] = [
    ("start", "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
    ("opening a", "W:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,10,11,12,16"),
    ("opening b", "B:W18,21,22,23,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"),
    ("shot 18-15", "W:W18,20,22,23,25,26,28,29,30,31,32:B1,2,3,4,5,9,10,11,12,16,19"),
    ("shot 10-15", "B:W18,19,21,26,27,28,29,30,31:B2,3,4,5,7,8,9,10,12"),
    ("trap 9-14", "B:W17,22,23,24,25,26,27,29:B3,4,6,9,10,11,12,13"),
    ("middle game", "B:W15,19,21,26,28,29:B2,4,6,7,8,12"),
    ("kings 3v2", "W:WK14,K23,K30:BK1,K6"),
    ("kings and men", "B:WK10,21,25,30:BK27,K19,3,4"),
    ("first position", "W:WK18,K19:BK27,12"),
]


@dataclass
class Row:
    nodes: int
    depth: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def run_level(level: str, fen: str, seconds: float, depth: int | None = None) -> Row:
    """``level``'s search of ``fen`` for ``seconds``, or to ``depth`` (then ``seconds`` is only a backstop)."""
    board = Board(fen)
    limits = Limits(time=seconds, depth=depth)
    if level == KERNEL:
        kernel_engine.forget()
        result = ai.kernel.KernelPlayer(network=True).choose(board, limits, random.Random(0))
    elif level == "python-master":
        result = Engine(board, limits, TranspositionTable()).run(random.Random(0))
    else:
        result = get_level(level).factory().choose(board, limits, random.Random(0))
    return Row(result.nodes, result.depth, result.time)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="search speed: nodes per second and depth in a fixed time")
    parser.add_argument("--time", type=float, default=1.0, help="seconds a position (default 1)")
    parser.add_argument("--levels", nargs="+", default=[KERNEL, "python-master", "hard"], help="levels, or kernel")
    parser.add_argument("--vs", choices=["py-draughts"], help="also run py-draughts's engine (in .bench-venv)")
    parser.add_argument("--depth", type=int, help="instead: the seconds each level takes to complete this depth")
    args = parser.parse_args(argv)
    if args.depth:
        time_to_depth(args.levels, args.depth)
        return
    columns = list(args.levels) + (["py-draughts"] if args.vs else [])
    table: dict[str, list[Row]] = {name: [] for name in columns}
    if KERNEL in args.levels:
        print(f"kernel ready in {ai.kernel.warm_up():.2f} s (compiled, or loaded from {ai.kernel.cache_dir()})")
    peer = None
    if args.vs:
        from benchmarks.pydraughts_worker import Client

        peer = Client()
    try:
        for _name, fen in POSITIONS:
            for level in args.levels:
                table[level].append(run_level(level, fen, args.time))
            if peer is not None:
                reply = peer.search(fen, args.time)
                table["py-draughts"].append(Row(int(reply["nodes"]), int(reply["depth"]), float(reply["time"])))
    finally:
        if peer is not None:
            peer.close()
    head = f"{'position':<16}" + "".join(f"{name + ' nodes':>20}{'nps':>9}{'depth':>6}" for name in columns)
    print(head)
    print("-" * len(head))
    for i, (name, _) in enumerate(POSITIONS):
        cells = "".join(f"{table[c][i].nodes:>20}{table[c][i].nps:>9.0f}{table[c][i].depth:>6}" for c in columns)
        print(f"{name:<16}{cells}")
    print("-" * len(head))
    totals = {}
    for c in columns:
        nodes = sum(r.nodes for r in table[c])
        seconds = sum(r.seconds for r in table[c])
        depth = sum(r.depth for r in table[c]) / len(table[c])
        totals[c] = (nodes / seconds if seconds else 0.0, depth)
        print(f"{c:<16} {nodes / seconds:>10.0f} nodes/s over {seconds:.1f} s, mean depth {depth:.1f}")
    for base in ("python-master", "py-draughts"):
        if base not in totals:
            continue
        base_nps, base_depth = totals[base]
        for c in args.levels:
            if c != base:
                nps, depth = totals[c]
                print(f"{c} / {base}: {nps / base_nps:.2f}x nodes per second, mean depth {depth - base_depth:+.1f}")


def time_to_depth(levels: list[str], depth: int, backstop: float = 120.0) -> None:
    """Print the seconds each level's search takes to complete ``depth`` on each position, from an empty table."""
    if KERNEL in levels:
        print(f"kernel ready in {ai.kernel.warm_up():.2f} s")
    head = f"{'position':<16}" + "".join(f"{name + ' s':>16}{'depth':>6}" for name in levels)
    print(head)
    print("-" * len(head))
    totals = dict.fromkeys(levels, 0.0)
    for name, fen in POSITIONS:
        rows = [run_level(level, fen, backstop, depth) for level in levels]
        for level, row in zip(levels, rows, strict=True):
            totals[level] += row.seconds
        print(f"{name:<16}" + "".join(f"{row.seconds:>16.2f}{row.depth:>6}" for row in rows))
    print("-" * len(head))
    print(f"{'total':<16}" + "".join(f"{totals[level]:>16.2f}{'':>6}" for level in levels))


if __name__ == "__main__":
    main()
