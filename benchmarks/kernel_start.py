"""How long a process takes to get the search kernel ready: first with an empty numba cache, then with it filled.

    python -m benchmarks.kernel_start

Each start is a fresh Python process that imports the AI and runs :func:`ai.api.warm_up` (what an AI worker does when
it starts) with ``NUMBA_CACHE_DIR`` pointing at one temporary folder: the first compiles the kernel into it (a cold
cache: a new install, or a kernel whose sources changed), the others load it from there (every later start).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WARM_UP = "import ai.api; print(ai.api.warm_up())"


def start(cache: Path) -> float:
    """The seconds ``warm_up`` took in a fresh process whose numba cache is ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", WARM_UP], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the kernel's start: a cold numba cache, then a warm one")
    parser.add_argument("--warm", type=int, default=3, help="warm starts to time (default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kingme-numba-") as folder:
        cache = Path(folder)
        print(f"cold cache: warm_up {start(cache):.2f} s (compiles the kernel)")
        warm = [start(cache) for _ in range(args.warm)]
        print(f"warm cache: warm_up {min(warm):.2f}–{max(warm):.2f} s over {len(warm)} starts (loads it)")


if __name__ == "__main__":
    main()
