"""What runs inside the pool's worker processes: module-level functions of picklable arguments."""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier
from typing import ParamSpec, TypeVar

from ai.api import GameInput, Limits, SearchResult
from ai.review import PositionEval

MoveFunction = Callable[[str, GameInput, Limits | None, int], SearchResult]
"""The signature of :func:`ai.api.choose_move`; a replacement must be picklable (module-level or a partial of one)."""
ReviewFunction = Callable[[GameInput, int, int], PositionEval]
"""The signature of :func:`ai.review.evaluate_position` (game, ply, nodes): one slice of a game review."""
READY_TIMEOUT = 180.0
"""Seconds the workers of a new executor wait for each other to be ready: a cold numba cache takes 10 to 30 s."""

T = TypeVar("T")
P = ParamSpec("P")
_warm_up_seconds = 0.0
_ready: Barrier | None = None


@dataclass(frozen=True)
class WorkerReady:
    """A worker's report that it has started and loaded the search kernel."""

    pid: int
    warm_up: float
    """Seconds it spent compiling the kernel, or loading it from numba's on-disk cache."""


def init_worker(ready: Barrier | None = None) -> None:
    """Boot a worker: import the AI and its levels and compile or load the search kernel now, so that no move pays for
    it; ``ready`` is the executor's barrier of :func:`worker_ready`.

    SIGINT is ignored because a Ctrl-C in the terminal reaches the whole process group; the parent decides when the
    workers stop, and otherwise each of them would print a KeyboardInterrupt traceback.
    """
    global _warm_up_seconds, _ready
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import ai.api

    ai.api.levels()
    _warm_up_seconds = ai.api.warm_up()
    _ready = ready


def worker_ready() -> WorkerReady:
    """The first task of every worker: it runs only once the worker's initializer (and so its warm-up) is done, and
    the barrier holds each worker to one such task, so one report from every worker means that all are ready."""
    if _ready is not None:
        _ready.wait(READY_TIMEOUT)
    return WorkerReady(os.getpid(), _warm_up_seconds)


def portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a plain instance of its nearest ancestor that does, with its message.

    The executor unpickles a worker's exception in its manager thread, and one that fails to unpickle (say, an
    exception whose ``__init__`` takes extra arguments) marks the whole pool as broken.
    """
    for cls in type(exc).__mro__:
        if not issubclass(cls, BaseException):
            continue
        try:
            candidate = exc if cls is type(exc) else cls(str(exc))
            pickle.loads(pickle.dumps(candidate))
        except Exception:
            continue
        return candidate
    return RuntimeError(str(exc))


def call_in_worker(target: MoveFunction, level: str, game: GameInput, limits: Limits | None, seed: int) -> SearchResult:
    """Run ``target`` on one move (see :func:`portably`)."""
    return portably(target, level, game, limits, seed)


def portably(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run ``function(*args, **kwargs)``, turning an exception that could not travel back to the parent into one that
    can."""
    try:
        return function(*args, **kwargs)
    except Exception as exc:
        converted = portable(exc)
        if converted is exc:
            raise
        raise converted from None
