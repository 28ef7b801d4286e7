"""A level of an earlier revision of King Me behind a pipe, to measure a change against the code before it.

``python benchmarks/match.py master master@HEAD~1`` plays today's ``master`` against the ``master`` of ``HEAD~1``:
:func:`checkout` extracts that revision once into ``.bench-rev/<commit>/`` (ignored by git) with ``git archive``, and
:class:`Client` runs this file with that folder first on the import path, so the worker plays with the old code (its
compiled kernel has its own on-disk cache, keyed by its source). The protocol is JSON lines: ``{"level", "moves",
"time", "seed"}`` in (the game from the start position, so the worker sees the history its draw rules need),
``{"move", "code"}`` out (``code``: the folder the worker's ``ai`` package was imported from). The worker uses only
interfaces every revision has: ``core.Board`` and ``ai.api``'s levels.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHECKOUTS = ROOT / ".bench-rev"


def split(name: str) -> tuple[str, str] | None:
    """``("master", "HEAD~1")`` for ``master@HEAD~1``; None for a plain level."""
    level, at, revision = name.partition("@")
    return (level, revision) if at else None


def checkout(revision: str) -> Path:
    """The folder holding ``revision``'s files, extracted on first use (processes asking at once take turns)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{revision}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    folder = CHECKOUTS / commit[:12]
    CHECKOUTS.mkdir(exist_ok=True)
    with open(CHECKOUTS / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".complete").exists():
            partial = folder.with_suffix(".partial")
            subprocess.run(["rm", "-rf", str(partial)], check=True)
            partial.mkdir()
            archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(partial)], input=archive, check=True)
            (partial / ".complete").touch()
            partial.rename(folder)
    return folder


class Client:
    """A worker process playing a level of ``revision``."""

    def __init__(self, revision: str) -> None:
        from benchmarks._pipe import Pipe

        self.pipe = Pipe([sys.executable, __file__, "--serve", str(checkout(revision))])
        self.process = self.pipe.process

    def choose(self, level: str, moves: list[str], seconds: float, seed: int) -> str:
        return str(self.ask(level, moves, seconds, seed)["move"])

    def ask(self, level: str, moves: list[str], seconds: float, seed: int) -> dict[str, Any]:
        return self.pipe.ask({"level": level, "moves": moves, "time": seconds, "seed": seed})

    def close(self) -> None:
        self.pipe.close()


def serve(folder: str) -> None:  # pragma: no cover - runs with another revision's code
    sys.path.insert(0, folder)
    import random

    import ai
    from ai.api import Limits, get_level, merge_limits
    from core import Board

    for line in sys.stdin:
        request = json.loads(line)
        board = Board()
        for text in request["moves"]:
            board.push_text(text)
        level = get_level(request["level"])
        limits = merge_limits(level, Limits(time=float(request["time"])))
        move = level.factory().choose(board, limits, random.Random(request["seed"])).move
        print(json.dumps({"move": move, "code": str(Path(ai.__file__).parent.parent)}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--serve":
        serve(sys.argv[2])
