"""Move functions for the pool's tests. They run in real worker processes, so they live at module level (picklable).

:func:`misbehave` reads its level as an instruction: ``crash`` kills its own process, ``hang`` never returns,
``unpicklable`` raises an exception that cannot be pickled; any other level is played by :func:`ai.api.choose_move`,
optionally after writing the worker's pid to ``marker`` and sleeping ``delay`` seconds. :func:`kernel_compiled` says
whether the worker had the search kernel compiled before the move came. :func:`logged_move` and :func:`logged_slice`
write down in a file the order in which a worker ran moves and slices of a review.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from ai.api import GameInput, Limits, SearchResult, choose_move
from ai.review import PositionEval, evaluate_position
from core import AmbiguousMoveError


def misbehave(
    level: str,
    game: GameInput,
    limits: Limits | None,
    seed: int,
    *,
    delay: float = 0.0,
    marker: str | None = None,
) -> SearchResult:
    if level == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if level == "hang":
        time.sleep(3600)
    if level == "unpicklable":
        raise AmbiguousMoveError("11x18 fits two capture paths", ("11x18x25", "11x18x27"))
    if marker is not None:
        # Write then rename, so the test never reads a half-written pid.
        tmp = Path(f"{marker}.{os.getpid()}.tmp")
        tmp.write_text(str(os.getpid()))
        tmp.replace(marker)
    time.sleep(delay)
    return choose_move(level, game, limits, seed)


def kernel_compiled(level: str, game: GameInput, limits: Limits | None, seed: int) -> SearchResult:
    from ai.kernel import search  # the module numba compiles; importing it compiles nothing

    before = bool(search.search.signatures)
    choose_move(level, game, limits, seed)
    return SearchResult("compiled before the move" if before else "compiled by the move")


def _log(path: str, entry: str) -> None:
    with open(path, "a", encoding="utf-8") as log:
        log.write(entry + "\n")


def logged_move(level: str, game: GameInput, limits: Limits | None, seed: int, *, log: str) -> SearchResult:
    """A move that writes ``move`` to the file ``log`` first (the tests read the order the worker ran things in)."""
    _log(log, "move")
    return choose_move(level, game, limits, seed)


def logged_slice(game: GameInput, ply: int, nodes: int, *, log: str) -> PositionEval:
    """One slice of a review that writes ``slice`` to the file ``log`` first, searched on a small budget."""
    _log(log, "slice")
    return evaluate_position(game, ply, min(nodes, 5_000))
