"""Mini checkers: ``master`` against every level from the start position, with both colours.

    python -m benchmarks.mini [--seeds 2] [--time 0.3]

Prints each game's result; ``master`` should never lose (the 6×6 game is solved and the start is a draw).
"""

from __future__ import annotations

import argparse

from ai.api import Limits, levels
from ai.arena import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2, help="games per level and colour")
    parser.add_argument("--time", type=float, default=0.3, help="seconds per move for the opponents")
    args = parser.parse_args()
    losses = 0
    for level in levels():
        for seed in range(1, args.seeds + 1):
            as_black = play_game("master", level, (), "mini", Limits(time=args.time), seed)
            as_white = play_game(level, "master", (), "mini", Limits(time=args.time), seed)
            losses += (as_black.result == "0-1") + (as_white.result == "1-0")
            print(f"{level:>10} seed {seed}: master as Black {as_black.result:7}  as White {as_white.result:7}")
    print(f"master lost {losses} game(s)")


if __name__ == "__main__":
    main()
