"""The AI compute pool: runs :func:`ai.api.choose_move` in worker processes on behalf of the asyncio bot.

Searches are CPU-bound and hold the GIL, so they run in a :class:`~concurrent.futures.ProcessPoolExecutor` and the
event loop only awaits their futures. The pool adds what the bare executor lacks:

* admission control: at most ``queue_limit`` moves waiting or running, beyond that :class:`PoolBusyError` at once;
* a per-move time limit (the time the search is given, plus slack) ending in :class:`AiTimeoutError`;
* recycling: a move still running at ``recycle_factor`` times its limit is stuck, and since a running task cannot be
  cancelled the whole executor is replaced and its workers killed;
* recovery: when a worker dies (:class:`~concurrent.futures.process.BrokenProcessPool`) the executor is replaced and
  the move retried once, then :class:`AiUnavailableError`;
* game reviews at low priority (:meth:`AiPool.review`): one position a slice, each slice given a worker only when one
  is free and no live move waits (:mod:`bot.pool._slots`), so a live move waits for one slice at most.

Moves are handed to the executor only when a worker is free (an :class:`asyncio.Semaphore` with one slot per worker),
so the time limit measures the search and not the wait in the queue, and the waiting moves are this pool's queue.
A slot is freed when the executor's future finishes, not when its caller gives up, so a timed-out move keeps its
worker counted as busy until it ends or is killed.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import functools
import multiprocessing
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TypeVar

from ai.api import GameInput, Limits, SearchResult, UnknownLevelError, choose_move, get_level, merge_limits
from ai.review import REVIEW_NODES, TIME_BACKSTOP, GameReview, assemble, evaluate_position
from bot.pool._early import boot, executor, take_early
from bot.pool._errors import AiTimeoutError, AiUnavailableError, PoolBusyError
from bot.pool._slots import PrioritySlots
from bot.pool._worker import (
    READY_TIMEOUT,
    MoveFunction,
    ReviewFunction,
    WorkerReady,
    call_in_worker,
    portably,
)

START_TIMEOUT = READY_TIMEOUT
"""Seconds :meth:`AiPool.start` waits for the workers to boot, import the AI and compile or load the search kernel."""
UNHEALTHY_AFTER = 3
"""Consecutive timeouts or unavailable errors after which :attr:`AiPool.healthy` turns false."""
UNTIMED_MOVE_TIME = 10.0
"""Seconds granted to a search with no time limit (a level bounded by depth), before the slack."""


def move_time(level: str, limits: Limits | None) -> float:
    """The seconds a move searches: the time :func:`ai.api.choose_move` will give it (the caller's limit over the
    level's own, see :func:`ai.api.merge_limits`), or :data:`UNTIMED_MOVE_TIME` for a search bounded otherwise."""
    with contextlib.suppress(UnknownLevelError):  # the worker raises it (a test's target may read it as an order)
        limits = merge_limits(get_level(level), limits)
    seconds = limits.time if limits is not None else None
    return seconds if seconds is not None else UNTIMED_MOVE_TIME


T = TypeVar("T")
_Job = Callable[[], T]
"""One move or one slice of a review, bound to its arguments and picklable: what a worker runs."""


@dataclass
class PoolCounters:
    """Running totals since the pool was made (a copy is handed out, so it can be read without locking)."""

    completed: int = 0
    """Moves returned."""
    failed: int = 0
    """Admitted moves that raised: timeouts, unavailable, and bad input from ``choose_move``."""
    rejected: int = 0
    """Moves refused with :class:`PoolBusyError`."""
    timeouts: int = 0
    """Moves that raised :class:`AiTimeoutError`."""
    retried: int = 0
    """Moves submitted a second time after their worker died."""
    restarts: int = 0
    """Executors replaced, after a dead or a stuck worker."""


class _WorkerLostError(Exception):
    """The executor that ran (or refused) an attempt is broken; ``generation`` says which one it was."""

    def __init__(self, generation: int) -> None:
        super().__init__(generation)
        self.generation = generation


class AiPool:
    """A bounded pool of AI worker processes for the event loop. Create, ``await start()``, ``await choose(...)``,
    ``await close()``. Every method must be called from the loop that ran :meth:`start`."""

    def __init__(
        self,
        workers: int,
        queue_limit: int,
        move_timeout_slack: float = 2.0,
        *,
        recycle_factor: float = 2.0,
        latency_window: int = 100,
        target: MoveFunction = choose_move,
        review_target: ReviewFunction = evaluate_position,
        start_method: str = "spawn",
    ) -> None:
        """A move may search for its time (:func:`move_time`) plus ``move_timeout_slack``; one still running at
        ``recycle_factor`` times that limit gets its executor replaced. ``target`` replaces ``choose_move`` and
        ``review_target`` :func:`ai.review.evaluate_position` (tests).
        ``start_method`` is ``"spawn"`` or ``"forkserver"``: never ``"fork"``, which copies the loop's threads."""
        if workers < 1 or queue_limit < 1:
            raise ValueError("workers and queue_limit must be at least 1")
        if start_method not in ("spawn", "forkserver"):
            raise ValueError(f"start_method must be 'spawn' or 'forkserver', not {start_method!r}")
        self._workers = workers
        self._queue_limit = queue_limit
        self._slack = move_timeout_slack
        self._recycle_factor = recycle_factor
        self._target = target
        self._review_target = review_target
        self._start_method = start_method
        self._context = multiprocessing.get_context(start_method)
        self._executor: ProcessPoolExecutor | None = None
        self._generation = 0
        self._warming: asyncio.Future[list[WorkerReady | BaseException]] | None = None
        """The replacement workers' warm-up (after :meth:`_replace`): a move waits for it before its clock starts."""
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots = PrioritySlots(workers)
        self._in_flight = 0
        self._waiting = 0
        self._busy = 0
        self._consecutive_failures = 0
        self._counters = PoolCounters()
        self._latencies: collections.deque[float] = collections.deque(maxlen=latency_window)
        self._watchdogs: set[asyncio.Task[None]] = set()
        self._retiring: set[asyncio.Task[None]] = set()
        self._started: tuple[WorkerReady, ...] = ()

    # -- metrics ---------------------------------------------------------------------------------------------------

    @property
    def workers(self) -> int:
        """The number of worker processes."""
        return self._workers

    @property
    def capacity(self) -> int:
        """Moves it can run at once: one per worker."""
        return self._workers

    @property
    def queue_depth(self) -> int:
        """Admitted moves waiting for a free worker."""
        return self._waiting

    @property
    def in_flight(self) -> int:
        """Admitted moves waiting or running: the number bounded by ``queue_limit``."""
        return self._in_flight

    @property
    def busy_workers(self) -> int:
        """Workers running a task, including a timed-out move that has not ended or been killed yet."""
        return self._busy

    @property
    def latencies(self) -> tuple[float, ...]:
        """Seconds from admission to result of the most recent completed moves, oldest first."""
        return tuple(self._latencies)

    @property
    def counters(self) -> PoolCounters:
        """A snapshot of the running totals."""
        return dataclasses.replace(self._counters)

    @property
    def healthy(self) -> bool:
        """Started, not closed, and the last few moves did not all time out or fail for want of a worker."""
        return self._executor is not None and not self._closed and self._consecutive_failures < UNHEALTHY_AFTER

    @property
    def worker_pids(self) -> tuple[int, ...]:
        """The process ids of the current executor's workers (diagnostics and tests)."""
        if self._executor is None:
            return ()
        return tuple(self._executor._processes or ())

    @property
    def started_workers(self) -> tuple[WorkerReady, ...]:
        """What every worker reported when :meth:`start` returned: its pid and how long it took to load the kernel
        (empty before). :meth:`start` returns only once each of them has."""
        return self._started

    # -- lifecycle -------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every worker and wait until each has imported the AI and loaded the search kernel. Raises
        :class:`AiUnavailableError` if they cannot start."""
        if self._closed:
            raise AiUnavailableError("the pool is closed")
        if self._executor is not None:
            return
        self._loop = asyncio.get_running_loop()
        early = take_early(self._workers, self._start_method)
        self._executor, booting = early if early is not None else (pool := self._new_executor(), self._prewarm(pool))
        warm = [asyncio.wrap_future(future) for future in booting]
        gathered = asyncio.gather(*warm, return_exceptions=True)
        try:
            booted = await asyncio.wait_for(gathered, START_TIMEOUT)
        except TimeoutError:
            booted = [TimeoutError(f"the workers did not start within {START_TIMEOUT:.0f} s")]
        except asyncio.CancelledError:
            # The start was given up (the bot's login failed meanwhile, Ctrl-C): the gather ends with the same
            # cancellation, seen here, or asyncio would log it as a failure nobody retrieved.
            if gathered.done() and not gathered.cancelled():
                gathered.exception()
            raise
        failures = [result for result in booted if isinstance(result, BaseException)]
        if failures:
            await self.close(grace=0.0)
            raise AiUnavailableError(f"the AI workers failed to start: {failures[0]!r}") from failures[0]
        self._started = tuple(result for result in booted if isinstance(result, WorkerReady))

    async def close(self, grace: float = 2.0) -> None:
        """Stop the pool: refuse new moves, give running ones ``grace`` seconds, then kill the workers and reap them.

        Moves still waiting or running when the workers are killed raise :class:`AiUnavailableError`. Idempotent.
        """
        if self._closed:
            return
        self._closed = True
        for task in self._watchdogs:
            task.cancel()
        if self._executor is not None:
            self._retire(self._executor, grace)
        if self._retiring:
            await asyncio.wait(self._retiring, timeout=grace + 10.0)

    # -- moves -----------------------------------------------------------------------------------------------------

    async def choose(self, level: str, game: GameInput, limits: Limits | None = None, seed: int = 0) -> SearchResult:
        """Run ``choose_move(level, game, limits, seed)`` in a worker.

        Raises :class:`PoolBusyError`, :class:`AiTimeoutError` or :class:`AiUnavailableError`; the errors
        ``choose_move`` raises on bad input (:class:`core.RulesError`, :class:`ai.api.UnknownLevelError`,
        :class:`ValueError`) propagate unchanged.
        """
        self._check_started()
        if self._in_flight >= self._queue_limit:
            self._counters.rejected += 1
            raise PoolBusyError(f"{self._in_flight} moves in flight, limit {self._queue_limit}")
        job = functools.partial(call_in_worker, self._target, level, game, limits, seed)
        time_limit = move_time(level, limits) + self._slack
        self._in_flight += 1
        admitted = time.monotonic()
        try:
            result = await self._run_with_retry(job, time_limit)
        except Exception as exc:
            self._counters.failed += 1
            if isinstance(exc, AiTimeoutError | AiUnavailableError):
                self._consecutive_failures += 1
            raise
        finally:
            self._in_flight -= 1
        self._counters.completed += 1
        self._consecutive_failures = 0
        self._latencies.append(time.monotonic() - admitted)
        return result

    async def review(self, game: GameInput) -> GameReview:
        """Review a game in the workers at low priority: each position is one slice, run only when a worker is free
        and no live move waits, and the slices are assembled here (:mod:`ai.review`).

        Raises :class:`AiTimeoutError` or :class:`AiUnavailableError` as a move does, and :class:`core.RulesError`
        for a game that does not replay.
        """
        self._check_started()
        positions = []
        for ply in range(len(game.moves) + 1):
            job = functools.partial(portably, self._review_target, game, ply, REVIEW_NODES)
            positions.append(await self._run_with_retry(job, TIME_BACKSTOP + self._slack, low=True))
        return assemble(game, positions)

    def _check_started(self) -> None:
        if self._closed:
            raise AiUnavailableError("the pool is closed")
        if self._executor is None:
            raise RuntimeError("AiPool.start() must be awaited first")

    async def _run_with_retry(self, job: _Job[T], time_limit: float, *, low: bool = False) -> T:
        """Run ``job``, again in a fresh executor if its worker died; a second death is :class:`AiUnavailableError`."""
        for retry in (False, True):
            if retry:
                self._counters.retried += 1
            try:
                return await self._attempt(job, time_limit, low)
            except _WorkerLostError as lost:
                if not self._closed:
                    self._replace(lost.generation)
                elif not retry:
                    raise AiUnavailableError("the pool closed during the move") from None
        raise AiUnavailableError("the worker died twice running this move")

    async def _attempt(self, job: _Job[T], time_limit: float, low: bool) -> T:
        """Wait for a free worker (behind every live move when ``low``: a review's slice), then run the job there
        once. Only live moves count in :attr:`queue_depth`."""
        waiting = 0 if low else 1
        self._waiting += waiting
        try:
            await self._slots.acquire(low=low)
        finally:
            self._waiting -= waiting
        await self._warmed()
        self._busy += 1
        executor, generation = self._executor, self._generation
        try:
            if self._closed or executor is None:
                raise AiUnavailableError("the pool is closed")
            future = executor.submit(job)
        except BaseException as exc:
            self._release_slot()
            if isinstance(exc, BrokenProcessPool):
                raise _WorkerLostError(generation) from None
            raise
        future.add_done_callback(self._release_slot_threadsafe)
        stuck_at = time.monotonic() + self._recycle_factor * time_limit
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), time_limit)
        except BrokenProcessPool:
            raise _WorkerLostError(generation) from None
        except TimeoutError:
            self._counters.timeouts += 1
            self._watch(future, generation, stuck_at)
            raise AiTimeoutError(f"no move after {time_limit:.1f} s") from None
        except asyncio.CancelledError:
            # The caller gave up; a move already running cannot be cancelled, so guard it like a timed-out one.
            if not future.done():
                self._watch(future, generation, stuck_at)
            raise

    async def _warmed(self) -> None:
        """Wait (at most :data:`START_TIMEOUT`) until the workers of a replaced executor have loaded the kernel, so a
        move's time limit measures its search, never a fresh worker's start (seconds on a loaded machine)."""
        warming = self._warming
        if warming is not None and not warming.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(warming), START_TIMEOUT)

    def _release_slot(self) -> None:
        self._busy -= 1
        self._slots.release()

    def _release_slot_threadsafe(self, _future: Future[T]) -> None:
        """Done callback of a move's future: it runs in the executor's manager thread."""
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is left to wait for the slot
            self._loop.call_soon_threadsafe(self._release_slot)

    # -- executors -------------------------------------------------------------------------------------------------

    def _new_executor(self) -> ProcessPoolExecutor:
        return executor(self._context, self._workers)

    def _prewarm(self, pool: ProcessPoolExecutor) -> list[Future[WorkerReady]]:
        return boot(pool, self._workers)

    def _spawn(self, work: Coroutine[object, object, None], tasks: set[asyncio.Task[None]]) -> None:
        """Run ``work`` as a task kept in ``tasks`` until it ends (so it can be cancelled or awaited at close)."""
        assert self._loop is not None
        task = self._loop.create_task(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _watch(self, future: Future[T], generation: int, deadline: float) -> None:
        """Replace the executor if ``future`` has not finished by ``deadline`` (a ``time.monotonic()`` value)."""
        self._spawn(self._watchdog(future, generation, deadline), self._watchdogs)

    async def _watchdog(self, future: Future[T], generation: int, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        if not future.done():
            self._replace(generation)

    def _replace(self, generation: int) -> None:
        """Swap in a fresh executor, unless the one of ``generation`` was already replaced (several moves notice the
        same broken executor) or the pool is closed. The old executor's workers are killed: any move still running
        there fails with BrokenProcessPool and is retried by its caller."""
        if generation != self._generation or self._closed or self._executor is None:
            return
        old = self._executor
        self._executor = self._new_executor()
        self._generation += 1
        self._counters.restarts += 1
        warm = [asyncio.wrap_future(future) for future in self._prewarm(self._executor)]
        self._warming = asyncio.gather(*warm, return_exceptions=True)
        self._retire(old, grace=0.0)

    def _retire(self, executor: ProcessPoolExecutor, grace: float) -> None:
        self._spawn(self._shut_down(executor, grace), self._retiring)

    @staticmethod
    async def _shut_down(executor: ProcessPoolExecutor, grace: float) -> None:
        """Shut ``executor`` down without blocking the loop: wait up to ``grace`` seconds for running tasks, then
        kill its workers. The executor's manager thread reaps them; ``shutdown(wait=True)`` joins that thread."""
        # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14, hence ``_processes``.
        processes = list((executor._processes or {}).values())
        joined = asyncio.ensure_future(asyncio.to_thread(executor.shutdown, wait=True))
        if grace > 0:
            await asyncio.wait({joined}, timeout=grace)
        if not joined.done():
            for process in processes:
                with contextlib.suppress(OSError, ValueError):
                    process.kill()
            await asyncio.wait({joined}, timeout=10.0)
