"""A round-robin arena of every AI level: a Markdown table of the scores, and each level's rating, written as data.

    python -m benchmarks.strength [--games 10] [--time 0.2] [--jobs 2] [--out benchmarks/strength.md]
                                  [--data FILE | --no-data]

Every pair of levels plays ``--games`` games from the ACF ballots with the colours swapped (see ``kingme arena``).
``--time`` caps every level's thinking time per move, so that the whole table runs in minutes on a small machine; give
``--time 0`` to let each level use its own default (master 2 s, hard 1 s), which is much slower.

From all the results at once it fits one Elo-style rating per level, anchored on ``easy`` = 1000
(:func:`ai.strength.fit_ratings`), and writes them with how they were measured (the command, the games a pair, the
time a move) to ``ai/data/levels.json``, the file the bot's menus, ``/checkers help`` and ``kingme levels`` read: the
levels are listed weakest to strongest by it. It writes that file only when every level people play took part (or to
``--data FILE``, whatever the levels); ``--no-data`` writes none.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from ai.api import Limits, levels
from ai.arena import MatchResult, run_match
from ai.strength import ANCHOR, LEVELS_FILE, Measurement, PairResult, fit_ratings
from benchmarks import python_master  # noqa: F401  (registers python-master)


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10, help="games per pair (even)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move for every level (0: defaults)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--variant", default="american")
    parser.add_argument("--levels", help="comma-separated subset (default: every level)")
    parser.add_argument("--out", type=Path, help="write the Markdown table here")
    parser.add_argument("--seed", type=int, default=1)
    data = parser.add_mutually_exclusive_group()
    data.add_argument("--data", type=Path, help=f"write the ratings here (default: {LEVELS_FILE.name} in ai/data)")
    data.add_argument("--no-data", action="store_true", help="write no ratings file")
    return parser.parse_args(argv)


def command_of(args: argparse.Namespace) -> str:
    """The command that repeats this run."""
    return (
        f"python -m benchmarks.strength --games {args.games} --time {args.time:g} --jobs {args.jobs} "
        f"--variant {args.variant}" + (f" --levels {args.levels}" if args.levels else "") + f" --seed {args.seed}"
    )


def cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    names = args.levels.split(",") if args.levels else list(levels())
    limits = Limits(time=args.time) if args.time > 0 else None
    results: dict[tuple[str, str], MatchResult] = {}
    started, cpu_started = time.perf_counter(), cpu_seconds()
    for a, b in itertools.combinations(names, 2):
        result = run_match(a, b, args.games, limits, args.variant, args.jobs, args.seed)
        results[(a, b)] = result
        print(
            f"{a:>10} vs {b:<10} +{result.wins} ={result.draws} -{result.losses}  {100 * result.score:5.1f}%",
            flush=True,
        )
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    pairs = tuple(PairResult(a, b, r.wins, r.draws, r.losses) for (a, b), r in results.items())
    fitted = fit_ratings(pairs) if ANCHOR in names else {}
    measurement = Measurement(
        ratings={name: round(fitted[name]) for name in sorted(fitted, key=lambda n: fitted[n])},
        command=command_of(args),
        date=datetime.now(UTC).date().isoformat(),
        variant=args.variant,
        games_per_pair=args.games,
        time_per_move=args.time if limits else None,
        minutes=elapsed / 60,
        cpu_minutes=cpu / 60,
        cpus=os.cpu_count() or 1,
        results=pairs,
    )
    table = markdown(names, results, measurement)
    print(table)
    if args.out:
        args.out.write_text(table)
    data = args.data or (None if args.no_data or not set(levels()) <= set(fitted) else LEVELS_FILE)
    if data is not None:
        data.write_text(measurement.to_json(), encoding="utf-8")
        print(f"ratings written to {data}")
    elif not args.no_data:
        print(f"no ratings file written: {LEVELS_FILE} must rate every level people play (or give --data FILE)")


def markdown(names: list[str], results: dict[tuple[str, str], MatchResult], measured: Measurement) -> str:
    """The round robin as a Markdown table, strongest first, each cell the row level's score against the column's."""

    def score(a: str, b: str) -> float:
        if (a, b) in results:
            return results[(a, b)].score
        return 1.0 - results[(b, a)].score

    totals = {a: sum(score(a, b) for b in names if b != a) / (len(names) - 1) for a in names}
    ratings = measured.ratings
    order = sorted(names, key=lambda n: (-ratings.get(n, 0), -totals[n]))
    per_move = f"{measured.time_per_move:g} s a move for every level" if measured.time_per_move else "each level's time"
    lines = [
        "# Strength: a round robin of every level",
        "",
        f"Variant `{measured.variant}`, {measured.games_per_pair} games a pair from the ACF three-move ballots with "
        f"colours swapped, {per_move}; {measured.minutes:.0f} minutes on {measured.cpus} cores "
        f"({measured.cpu_minutes:.1f} CPU minutes). Each cell is the row level's score against the column level; "
        f"Elo is the rating fitted to every result at once, {measured.anchor} = {measured.anchor_rating} "
        f"({measured.prior_draws:g} virtual draw a pair).",
        "",
        f"Command: `{measured.command}`",
        "",
        "| level | Elo | " + " | ".join(order) + " | overall |",
        "|---|---:|" + "---:|" * (len(order) + 1),
    ]
    for a in order:
        cells = ["—" if a == b else f"{100 * score(a, b):.0f}%" for b in order]
        elo = str(ratings[a]) if a in ratings else "—"
        lines.append(f"| **{a}** | {elo} | " + " | ".join(cells) + f" | {100 * totals[a]:.0f}% |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
