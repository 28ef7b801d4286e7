"""Perft speed: leaves per second of King Me's move generator, optionally beside py-draughts in the same run.

    python -m benchmarks.perft [--depth 9] [--repeat 3] [--kernel-depth 11] [--vs py-draughts]

``core``'s pure-Python generator runs perft ``--depth``; the compiled kernel (``ai/kernel``) runs ``--kernel-depth``,
compiled or loaded from its cache before the clock starts.

py-draughts's ``AmericanBoard`` lets a player skip a capture, so the peer's perft filters its legal moves to the
captures whenever there is one (which makes its counts right; they are checked against ours). The peer runs in its
own throwaway venv (see ``benchmarks/_peer.py``).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

import ai.kernel
from ai.kernel import engine as kernel_engine
from benchmarks._peer import run_peer
from core import Board, perft

PEER_PERFT = r"""
import json, sys, time
from draughts import AmericanBoard

def legal(board):
    moves = board.legal_moves
    captures = [m for m in moves if m.captured_list]
    return captures if captures else moves

def perft(board, depth):
    moves = legal(board)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += perft(board, depth - 1)
        board.pop()
    return total

depth, repeat = int(sys.argv[1]), int(sys.argv[2])
best = None
for _ in range(repeat):
    board = AmericanBoard()
    started = time.perf_counter()
    leaves = perft(board, depth)
    elapsed = time.perf_counter() - started
    best = elapsed if best is None else min(best, elapsed)
print(json.dumps({"leaves": leaves, "seconds": best}))
"""


def measure(depth: int, repeat: int, count: Callable[[Board, int], int] = perft) -> tuple[int, float]:
    """A perft's leaf count from the start and its best time over ``repeat`` runs."""
    best = float("inf")
    leaves = 0
    for _ in range(repeat):
        board = Board()
        started = time.perf_counter()
        leaves = count(board, depth)
        best = min(best, time.perf_counter() - started)
    return leaves, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--kernel-depth", type=int, default=11, help="the compiled kernel's depth (default 11)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per engine; the best time counts")
    parser.add_argument("--vs", choices=["py-draughts"], help="also run the peer in the same benchmark run")
    args = parser.parse_args()

    print(f"perft({args.depth}) from the start, Python {platform.python_version()}, best of {args.repeat}")
    leaves, seconds = measure(args.depth, args.repeat)
    ours = leaves / seconds
    print(f"King Me      {leaves:>12,} leaves  {seconds:8.2f} s  {ours:>12,.0f} leaves/s")
    ready = ai.kernel.warm_up()
    k_leaves, k_seconds = measure(args.kernel_depth, args.repeat, kernel_engine.perft)
    print(
        f"kernel       {k_leaves:>12,} leaves  {k_seconds:8.2f} s  {k_leaves / k_seconds:>12,.0f} leaves/s"
        f"  (perft {args.kernel_depth}; ready in {ready:.2f} s)"
    )
    if args.vs:
        peer = run_peer(PEER_PERFT, str(args.depth), str(args.repeat))
        peer_leaves, peer_seconds = int(str(peer["leaves"])), float(str(peer["seconds"]))
        rate = peer_leaves / peer_seconds
        print(f"py-draughts  {peer_leaves:>12,} leaves  {peer_seconds:8.2f} s  {rate:>12,.0f} leaves/s")
        if peer_leaves != leaves:
            print(f"warning: the counts differ ({leaves} vs {peer_leaves})")
        print(f"ratio (King Me / py-draughts): {ours / rate:.2f}x")


if __name__ == "__main__":
    main()
