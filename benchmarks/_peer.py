"""The peer library the benchmarks compare against, kept out of the project's own environment.

py-draughts (import name ``draughts``) is installed on first use into a throwaway virtual environment,
``.bench-venv/`` beside the project (ignored by git), and run there as a subprocess in the same benchmark run. It is
never a dependency of King Me.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

PEER_PACKAGE = "py-draughts==1.10.1"
VENV_DIR = Path(os.environ.get("KINGME_BENCH_VENV", Path(__file__).resolve().parent.parent / ".bench-venv"))


def peer_python() -> Path:
    """The interpreter of the benchmark venv, created with py-draughts installed if it is missing. Processes of one
    run that ask at once take turns on a lock file, so only the first creates the venv."""
    python = VENV_DIR / "bin" / "python"
    VENV_DIR.parent.mkdir(parents=True, exist_ok=True)
    with open(VENV_DIR.with_name(VENV_DIR.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        check = subprocess.run([python, "-c", "import draughts"], capture_output=True) if python.exists() else None
        if check is None or check.returncode != 0:
            print(f"creating {VENV_DIR} with {PEER_PACKAGE} (once) ...", file=sys.stderr)
            venv.EnvBuilder(with_pip=True, clear=True).create(VENV_DIR)
            subprocess.run([python, "-m", "pip", "install", "-q", PEER_PACKAGE], check=True)
    return python


def run_peer(code: str, *args: str, timeout: float = 3600) -> dict[str, object]:
    """Run ``code`` (a script that prints one JSON object last) under the peer venv and return that object."""
    result = subprocess.run(
        [peer_python(), "-c", code, *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"peer script failed:\n{result.stderr[-2000:]}")
    parsed: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return parsed
