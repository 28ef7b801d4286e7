"""``kingme arena`` with the benchmark players too: the same command, arguments and report, with ``python-master``
(:mod:`benchmarks.python_master`) registered first, so a match can measure ``master`` against the search it replaced.

    python -m benchmarks.arena master python-master --games 40 --time 0.2 --jobs 2 --seed 0
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchmarks.python_master  # noqa: F401  (registers python-master, also for the forked game workers)
from bot.cli import main

if __name__ == "__main__":
    sys.exit(main(["arena", *sys.argv[1:]]))
