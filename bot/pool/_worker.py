"""What runs inside the pool's worker processes: module-level functions of picklable arguments."""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable

from ai.api import GameInput, Limits, SearchResult

MoveFunction = Callable[[str, GameInput, Limits | None, int], SearchResult]
"""The signature of :func:`ai.api.choose_move`; a replacement must be picklable (module-level or a partial of one)."""


def init_worker() -> None:
    """Boot a worker: import the AI and its levels now, so the first move does not pay for it.

    SIGINT is ignored because a Ctrl-C in the terminal reaches the whole process group; the parent decides when the
    workers stop, and otherwise each of them would print a KeyboardInterrupt traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import ai.api

    ai.api.levels()


def worker_pid() -> int:
    """A no-op task: submitting one per worker makes the executor start them all."""
    return os.getpid()


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
    """Run ``target`` on one move, turning an exception that could not travel back to the parent into one that can."""
    try:
        return target(level, game, limits, seed)
    except Exception as exc:
        converted = portable(exc)
        if converted is exc:
            raise
        raise converted from None
