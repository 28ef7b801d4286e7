"""The AI's worker processes started early: before the rest of the bot is even imported.

A worker takes a second or two to start (a fresh interpreter, numba, the search kernel's cache, the endgame database),
and the bot's own imports and start take about as long; started one after the other, a start waits for both. The
command line calls :func:`start_early` first thing (``kingme``, ``kingme sandbox``), and the pool's
:meth:`~bot.pool.AiPool.start` takes those processes over (:func:`take_early`) when they are what it would have
started: as many, by the same start method, reading the same endgame databases (``EGDB_DIR`` is read by a worker when
it starts). Otherwise they are shut down and the pool starts its own.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from pathlib import Path

from bot.pool._worker import WorkerReady, init_worker, worker_ready

Key = tuple[int, str, tuple[Path, ...]]
_early: dict[Key, tuple[ProcessPoolExecutor, list[Future[WorkerReady]]]] = {}


def executor(context: BaseContext, workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that each load the AI when they start (see :func:`init_worker`)."""
    ready = context.Barrier(workers)
    return ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker, initargs=(ready,))


def boot(pool: ProcessPoolExecutor, workers: int) -> list[Future[WorkerReady]]:
    """Spawn the workers now (one is spawned per task submitted while none is idle): their reports, once ready."""
    return [pool.submit(worker_ready) for _ in range(workers)]


def start_early(workers: int, egdb_dir: Path, start_method: str = "spawn") -> None:
    """Spawn ``workers`` AI worker processes now, reading the endgame databases of ``egdb_dir``."""
    os.environ["EGDB_DIR"] = str(egdb_dir)
    pool = executor(multiprocessing.get_context(start_method), workers)
    booting = boot(pool, workers)  # spawned now; the key (which imports numpy) is worked out after
    _early[_key(workers, start_method)] = (pool, booting)


def take_early(workers: int, start_method: str) -> tuple[ProcessPoolExecutor, list[Future[WorkerReady]]] | None:
    """The early workers if they are what a pool of ``workers`` would start now (see the module); any others are
    shut down."""
    found = _early.pop(_key(workers, start_method), None)
    for pool, _ in _early.values():
        pool.shutdown(wait=False, cancel_futures=True)
    _early.clear()
    return found


def _key(workers: int, start_method: str) -> Key:
    from ai import egdb  # numpy: a third of a second, not to be spent before the workers are spawned

    return workers, start_method, tuple(egdb.candidates())
