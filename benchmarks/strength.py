"""A round-robin arena of every AI level, written as a Markdown table.

    python -m benchmarks.strength [--games 10] [--time 0.2] [--jobs 2] [--out benchmarks/strength.md]

Every pair of levels plays ``--games`` games from the ACF ballots with the colours swapped (see ``kingme arena``).
``--time`` caps every level's thinking time per move, so that the whole table runs in minutes on a small machine; give
``--time 0`` to let each level use its own default (master 2 s, hard 1 s), which is much slower.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

from ai.api import Limits, levels
from ai.arena import MatchResult, run_match
from benchmarks import python_master  # noqa: F401  (registers python-master)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="games per pair (even)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move for every level (0: defaults)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--variant", default="american")
    parser.add_argument("--levels", help="comma-separated subset (default: every level)")
    parser.add_argument("--out", type=Path, help="write the Markdown table here")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    names = args.levels.split(",") if args.levels else list(levels())
    limits = Limits(time=args.time) if args.time > 0 else None
    results: dict[tuple[str, str], MatchResult] = {}
    started = time.perf_counter()
    for a, b in itertools.combinations(names, 2):
        result = run_match(a, b, args.games, limits, args.variant, args.jobs, args.seed)
        results[(a, b)] = result
        print(
            f"{a:>10} vs {b:<10} +{result.wins} ={result.draws} -{result.losses}  {100 * result.score:5.1f}%",
            flush=True,
        )
    elapsed = time.perf_counter() - started

    def score(a: str, b: str) -> float:
        if (a, b) in results:
            return results[(a, b)].score
        return 1.0 - results[(b, a)].score

    totals = {a: sum(score(a, b) for b in names if b != a) / (len(names) - 1) for a in names}
    order = sorted(names, key=lambda n: -totals[n])
    command = (
        f"python -m benchmarks.strength --games {args.games} --time {args.time:g} --jobs {args.jobs} "
        f"--variant {args.variant}" + (f" --levels {args.levels}" if args.levels else "")
    )
    lines = [
        "# Strength: a round robin of every level",
        "",
        f"Variant `{args.variant}`, {args.games} games a pair from the ACF three-move ballots with colours swapped, "
        + (f"{args.time:g} s a move for every level" if limits else "each level's default time")
        + f"; {elapsed / 60:.0f} minutes on 2 cores. Each cell is the row level's score against the column level.",
        "",
        f"Command: `{command}`",
        "",
        "| level | " + " | ".join(order) + " | overall |",
        "|---|" + "---:|" * (len(order) + 1),
    ]
    for a in order:
        cells = ["—" if a == b else f"{100 * score(a, b):.0f}%" for b in order]
        lines.append(f"| **{a}** | " + " | ".join(cells) + f" | {100 * totals[a]:.0f}% |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        args.out.write_text(table)


if __name__ == "__main__":
    main()
