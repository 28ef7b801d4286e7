"""Does a re-fitted evaluation win? ``master`` with the weights of a file against ``master`` as shipped.

    python -m benchmarks.tuning generate --engine kernel --games 600 --nodes 20000 --seed 7 \\
        --out /tmp/kernel-selfplay.jsonl
    python -m benchmarks.tuning fit --data /tmp/kernel-selfplay.jsonl --out /tmp/refit-weights.json
    python -m benchmarks.refit --weights /tmp/refit-weights.json --games 40 --time 0.2 --jobs 2
    python -m benchmarks.refit --weights /tmp/refit-weights.json --against python-master --seed 1

The candidate plays as the hidden level ``master-refit`` (the same book, databases and search, its own table size so
that the two never share a transposition table in one process), from the ACF deck with the colours swapped. Adopt the
weights (as ``master``'s: ``ai/data/kernel_weights.json``, naming what changed and what it scored) only if the
candidate scores clearly above 50%. With ``--against`` it meets another level instead (``python-master`` keeps the
fitted weights of ``ai/data/eval_weights.json`` whatever the candidate's).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.api import Limits
from ai.arena import run_match
from ai.book import WithBook
from ai.features import KERNEL_WEIGHTS_FILE, rounded_weights, tuned_weights
from ai.kernel import KernelPlayer
from ai.levels import Level, get_level, register
from ai.mini_solver import SolvedOnMini
from benchmarks import python_master  # noqa: F401  (registers python-master)

CANDIDATE = "master-refit"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--weights", type=Path, required=True, help="a weights file written by benchmarks.tuning fit")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=0.2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--against", default="master", help="the level the candidate meets (default master)")
    parser.add_argument("--seed", type=int, default=0, help="shuffles the ballots and seeds the levels")
    args = parser.parse_args()
    weights = rounded_weights(json.loads(args.weights.read_text(encoding="utf-8"))["weights"])
    master = get_level("master")

    def candidate() -> SolvedOnMini:
        return SolvedOnMini(WithBook(KernelPlayer(table_entries=1 << 19, endgames=True, weights=weights)))

    # Registered before the match's worker processes fork, so they know the level too.
    register(Level(CANDIDATE, "master with re-fitted weights", candidate, master.default_limits, hidden=True))
    shipped = rounded_weights(tuned_weights(KERNEL_WEIGHTS_FILE))
    print(f"candidate weights {weights}\nmaster's weights  {shipped}", flush=True)
    result = run_match(CANDIDATE, args.against, args.games, Limits(time=args.time), jobs=args.jobs, seed=args.seed)
    print(f"{CANDIDATE} against {args.against}: +{result.wins} ={result.draws} -{result.losses}, {result.score:.1%}")
    print(f"Elo difference: {result.elo().describe()}")


if __name__ == "__main__":
    main()
