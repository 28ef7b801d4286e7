"""Quick strength check: two players meet from ACF ballots with the colours swapped, each with its own time.

    python benchmarks/match.py master greedy --games 20 --time-a 0.5 --time-b 0.5
    python benchmarks/match.py master py-draughts --games 20 --time-a 1 --time-b 1
    python benchmarks/match.py master master@HEAD~1 --games 40 --time-a 0.2 --time-b 0.2

A player is a King Me level, ``py-draughts`` (SimpleEngine in the throwaway ``.bench-venv``, captures compulsory) or
``LEVEL@REVISION``: a level of an earlier commit, run from its own files (``benchmarks/revision_worker.py``), to
measure a change against the code before it.
Games stop at the arena's ply cap (``ai.arena.MAX_PLIES``, scored a draw). For the real arena with Elo, see
``kingme arena``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.api import Limits, get_level, merge_limits
from ai.arena import MAX_PLIES, deal_ballots
from benchmarks import master_patterns, python_master  # noqa: F401  (register their hidden levels)
from benchmarks.revision_worker import Client as RevisionClient
from benchmarks.revision_worker import split
from core import Board, Color

PEER = "py-draughts"


def play(black: str, white: str, times: tuple[float, float], opening: tuple[str, ...], seed: int) -> tuple[str, str]:
    """One game; returns the PDN result (``1-0`` Black won) and how it ended, with the final position."""
    board = Board()
    for text in opening:
        board.push_text(text)
    client = None
    if PEER in (black, white):
        from benchmarks.pydraughts_worker import Client

        client = Client()
    revisions = {name: RevisionClient(pair[1]) for name in (black, white) if (pair := split(name))}
    rng = random.Random(seed)
    try:
        while board.outcome() is None and len(board.move_stack) < MAX_PLIES:
            name, seconds = (black, times[0]) if board.turn is Color.BLACK else (white, times[1])
            if name == PEER:
                assert client is not None
                text = str(client.search(board.fen(), seconds)["move"])
            elif name in revisions:
                moves = [move.text() for move in board.move_stack]
                text = revisions[name].choose(name.partition("@")[0], moves, seconds, rng.randrange(1 << 30))
            else:
                level = get_level(name)
                text = level.factory().choose(board.copy(), merge_limits(level, Limits(time=seconds)), rng).move
            board.push_text(text)
    finally:
        if client is not None:
            client.close()
        for revision in revisions.values():
            revision.close()
    outcome = board.outcome()
    if outcome is None:
        return "1/2-1/2", f"ply cap, {board.fen()}"
    return outcome.result(), f"{outcome.termination.value}, {board.fen()}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="a quick match between two players from ACF ballots")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--time-a", type=float, default=0.5)
    parser.add_argument("--time-b", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    ballots = deal_ballots("american", (args.games + 1) // 2, args.seed)
    jobs = []
    for i in range(args.games):
        opening = ballots[i // 2].moves
        a_black = i % 2 == 0
        black, white = (args.a, args.b) if a_black else (args.b, args.a)
        times = (args.time_a, args.time_b) if a_black else (args.time_b, args.time_a)
        jobs.append((black, white, times, opening, args.seed * 1000 + i, a_black))
    tally: Counter[str] = Counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(play, *job[:5]) for job in jobs]
        for job, future in zip(jobs, futures, strict=True):
            result, how = future.result()
            a_black = job[5]
            if result == "1/2-1/2":
                tally["draw"] += 1
            elif (result == "1-0") == a_black:
                tally["win"] += 1
            else:
                tally["loss"] += 1
            print(f"{job[0]} - {job[1]} ({' '.join(job[3])}): {result} ({how})", flush=True)
    games = sum(tally.values())
    score = (tally["win"] + tally["draw"] / 2) / games
    print(f"{args.a} vs {args.b}: +{tally['win']} ={tally['draw']} -{tally['loss']}, score {100 * score:.1f}%")


if __name__ == "__main__":
    main()
