"""The worker side of the AI job queue (``kingme worker``): processes that take AI moves off the Redis queue of
:mod:`bot.pool._queue`, one at a time each, and a supervisor that keeps the requested number of them running.

Each worker process loads the compiled search kernel before it takes a job (and before its first heartbeat, so the bot
counts only ready workers), then runs arq's worker loop with one job at a time. The search runs in a thread (the kernel
releases the GIL) so that the event loop keeps renewing the job's lease and the worker's heartbeat meanwhile.

Beside it, each process runs a second arq worker on the review queue, which looks for a review only while the process
has no move to search. A review runs one position at a time (:func:`ai.review.evaluate_position`), and the process runs
one search at a time: a move's first, a review's position only while no move waits for it (:mod:`bot.pool._slots`). A
move taken while a review runs therefore waits for the position under way at most, and the review goes on once the
process has no move left.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import wait as wait_for_exit
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final, ParamSpec, TypeAlias, TypeVar

from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix
from arq.typing import WorkerCoroutine
from arq.worker import Worker, func

from ai.api import choose_move
from ai.review import TIME_BACKSTOP, assemble, evaluate_position
from bot.pool._errors import AiTimeoutError
from bot.pool._pool import move_time
from bot.pool._queue_wire import (
    DONE_CHANNEL,
    HEARTBEAT_INTERVAL,
    HEARTBEAT_TTL,
    LEASE,
    MAX_TRIES,
    QUEUE_NAME,
    RESULT_KEEP,
    REVIEW_FUNCTION,
    REVIEW_QUEUE,
    REVIEW_WAIT,
    SEARCH_FUNCTION,
    ResultData,
    WorkerBeat,
    connect,
    dump_job,
    load_job,
    read_payload,
    read_review_payload,
    result_data,
)
from bot.pool._slots import PrioritySlots
from bot.pool._worker import call_in_worker
from bot.tasks import cancel_and_wait

log = logging.getLogger(__name__)

POLL_DELAY: Final = 0.02
"""Seconds between a free worker's looks at the queue. arq starts at most one job a look in a worker that runs one
at a time, so this also caps a worker process at ``1 / POLL_DELAY`` AI moves a second whatever their cost (at 0.1 the
load test saw cheap levels' moves queue at 10 a second while the worker's core idled); an idle look is one Redis
command."""
REVIEW_POLL_DELAY: Final = 0.5
"""Seconds between an idle worker's looks at the review queue (a review is not waited for move by move)."""
SEARCH_SLACK: Final = 5.0
"""Seconds a search may overrun its time before the worker gives the job up (and restarts, see :func:`_serve`)."""
JOB_TIMEOUT: Final = 600.0
"""arq's own limit on a job, a backstop far above any search (the search's own limit comes first)."""
STOP_GRACE: Final = 15.0
"""Seconds the supervisor gives its workers to stop after SIGTERM before it kills them."""
RESPAWN_DELAY: Final = 1.0
"""Seconds the supervisor waits before it starts a worker again in place of one that died."""
EXIT_STUCK: Final = 3
"""A worker's exit status after a search that would not end: its supervisor starts a fresh one."""


@dataclass(frozen=True)
class WorkerOptions:
    """What a worker process needs (picklable: it travels to the spawned process)."""

    redis_url: str
    log_level: str = "INFO"
    log_format: str = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


T = TypeVar("T")
P = ParamSpec("P")
ArqContext: TypeAlias = dict[str, Any]
"""arq's context of a job, arq's own type: what it holds is read into typed values by :func:`_context` only."""


@dataclass
class _State:
    """One worker process's state, shared by its two arq workers' jobs and its heartbeat."""

    beat: WorkerBeat
    parent: int
    kernel: PrioritySlots = field(default_factory=lambda: PrioritySlots(1))
    """One search at a time in this process: a move's before any review position's."""
    reviews: Worker | None = None
    """The arq worker on the review queue: it looks for reviews only while no move is searched here."""
    stuck: bool = False


# -- one worker process -----------------------------------------------------------------------------------------------


def worker_main(options: WorkerOptions) -> None:
    """The entry point of one worker process: load the kernel, then take jobs until SIGTERM or SIGINT."""
    logging.basicConfig(level=options.log_level.upper(), format=options.log_format, stream=sys.stderr, force=True)
    import ai.api

    ai.api.levels()
    seconds = ai.api.warm_up()
    log.info("AI worker %d ready (search kernel loaded in %.1f s)", os.getpid(), seconds)
    asyncio.run(_serve(options))


def _worker(
    function: WorkerCoroutine,
    name: str,
    queue: str,
    redis: ArqRedis,
    state: _State,
    timeout: float,
    *,
    poll_delay: float,
    handle_signals: bool,
) -> Worker:
    """An arq worker of this process: one job at a time from ``queue``, each given ``timeout`` seconds in all, JSON
    records, our lease; it looks at the queue every ``poll_delay`` seconds, and stops on SIGTERM and SIGINT when
    ``handle_signals``."""
    worker = Worker(
        functions=[func(function, name=name, max_tries=MAX_TRIES)],
        queue_name=queue,
        redis_pool=redis,
        max_jobs=1,
        job_timeout=timeout,
        keep_result=RESULT_KEEP,
        max_tries=MAX_TRIES,
        ctx={"state": state},
        job_serializer=dump_job,
        job_deserializer=load_job,
        after_job_end=_after_job,
        poll_delay=poll_delay,
        handle_signals=handle_signals,
    )
    worker.in_progress_timeout_s = LEASE  # see bot.pool._queue: a dead worker's job runs again within seconds
    return worker


async def _serve(options: WorkerOptions) -> None:
    redis = connect(options.redis_url)
    state = _State(WorkerBeat(socket.gethostname(), os.getpid(), busy=False), parent=os.getppid())
    worker = _worker(
        _search,
        SEARCH_FUNCTION,
        QUEUE_NAME,
        redis,
        state,
        JOB_TIMEOUT,
        poll_delay=POLL_DELAY,
        handle_signals=True,  # SIGTERM and SIGINT cancel the running job: arq puts it back for another worker
    )
    reviews = state.reviews = _worker(
        _review,
        REVIEW_FUNCTION,
        REVIEW_QUEUE,
        connect(options.redis_url),  # its own client: each arq worker closes its own at the end
        state,
        REVIEW_WAIT,  # the bot waits no longer for it
        poll_delay=REVIEW_POLL_DELAY,
        handle_signals=False,  # stopped with the move worker, below
    )
    heartbeat = asyncio.create_task(_heartbeat(redis, state, worker))
    reviewing = asyncio.create_task(reviews.async_run())
    reviewing.add_done_callback(functools.partial(_reviews_ended, worker))
    try:
        await worker.async_run()
    except asyncio.CancelledError:  # arq's signal handler cancelled its main task: a clean stop
        pass
    finally:
        await cancel_and_wait(heartbeat)  # one cancel() may be dropped by its Redis command (bot.tasks)
        with contextlib.suppress(Exception):
            await redis.delete(state.beat.key)
        await reviews.close()  # a review under way goes back to its queue for another worker
        await asyncio.wait({reviewing})
        await worker.close()
    log.info("AI worker %d stopped", os.getpid())


def _reviews_ended(worker: Worker, reviewing: asyncio.Task[None]) -> None:
    """The review worker's loop ended by itself (Redis failed, as the move worker's would): stop this process too, so
    that its supervisor starts a fresh one with both."""
    if not reviewing.cancelled():
        log.error("AI worker %d: its review loop ended (%r); stopping", os.getpid(), reviewing.exception())
        worker.handle_sig(signal.SIGTERM)


async def _beat(redis: ArqRedis, state: _State) -> None:
    await redis.set(state.beat.key, state.beat.dumps(), px=int(HEARTBEAT_TTL * 1000))


async def _heartbeat(redis: ArqRedis, state: _State, worker: Worker) -> None:
    """Say this worker is alive every :data:`HEARTBEAT_INTERVAL`; stop the worker if its supervisor is gone."""
    while True:
        if os.getppid() != state.parent:
            log.warning("AI worker %d: its supervisor is gone, stopping", os.getpid())
            worker.handle_sig(signal.SIGTERM)
            return
        try:
            await _beat(redis, state)
        except Exception as exc:  # Redis away for a moment: arq's own loop reports it; keep beating
            log.debug("heartbeat failed: %s", exc)
        await asyncio.sleep(HEARTBEAT_INTERVAL)


async def _hold_lease(redis: ArqRedis, job_id: str) -> None:
    """Renew the running job's in-progress key until cancelled, so that it outlives :data:`LEASE` only while this
    worker lives."""
    while True:
        await asyncio.sleep(LEASE / 3)
        with contextlib.suppress(Exception):
            await redis.pexpire(in_progress_key_prefix + job_id, int(LEASE * 1000))


def _context(ctx: ArqContext) -> tuple[ArqRedis, _State, str]:
    """What arq's context of a job holds for us: the Redis client, this process's state and the job's id."""
    return ctx["redis"], ctx["state"], ctx["job_id"]


@contextlib.asynccontextmanager
async def _leased(redis: ArqRedis, job_id: str) -> AsyncIterator[None]:
    """Hold the running job's lease while inside (see :func:`_hold_lease`)."""
    lease = asyncio.create_task(_hold_lease(redis, job_id))
    try:
        yield
    finally:
        await cancel_and_wait(lease)


@contextlib.asynccontextmanager
async def _kernel(state: _State, *, low: bool = False) -> AsyncIterator[None]:
    """This process's one search at a time, while inside: at once for a move when no other search runs, and for a
    review's position (``low``) only when no move waits for it."""
    await state.kernel.acquire(low=low)
    try:
        yield
    finally:
        if not state.stuck:  # a search that would not end keeps the kernel until this process exits (_after_job)
            state.kernel.release()


async def _in_thread(
    state: _State, job_id: str, limit: float, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> T:
    """``function(*args, **kwargs)`` in a thread (the kernel releases the GIL, so the event loop keeps the lease and the
    heartbeat going), within ``limit`` seconds; past it the thread cannot be stopped, so this process ends after the
    job (see :func:`_after_job`)."""
    try:
        return await asyncio.wait_for(asyncio.to_thread(function, *args, **kwargs), limit)
    except TimeoutError:
        state.stuck = True
        raise AiTimeoutError(f"the search of job {job_id} ran past {limit:.0f} s") from None


def _searching(state: _State, job: str | None) -> None:
    """Mark this process as having move ``job`` to search (None: no longer); meanwhile its review worker looks for no
    review, so an idle process takes it."""
    state.beat = replace(state.beat, busy=job is not None, job=job)
    if state.reviews is not None:
        state.reviews.allow_pick_jobs = job is None


async def _search(ctx: ArqContext, payload: object) -> ResultData:
    """The move job: one AI move. Returns :func:`bot.pool._queue.result_data`; the search's own errors propagate."""
    redis, state, job_id = _context(ctx)
    level, game, limits, seed = read_payload(payload)
    async with _leased(redis, job_id):
        _searching(state, job_id)
        try:
            with contextlib.suppress(Exception):
                await _beat(redis, state)  # at once, not at the next beat: the bot's gauges and a test see it
            limit = move_time(level, limits) + SEARCH_SLACK
            async with _kernel(state):  # after the position of a review under way, if any
                result = await _in_thread(state, job_id, limit, call_in_worker, choose_move, level, game, limits, seed)
        finally:
            _searching(state, None)
    return result_data(result)


async def _review(ctx: ArqContext, payload: object) -> str:
    """The review job: a finished game's review (:meth:`ai.review.GameReview.to_json`), one position at a time, each
    only while no move of this process waits; the beat shows how many positions are done."""
    redis, state, job_id = _context(ctx)
    game, nodes = read_review_payload(payload)
    positions = []
    async with _leased(redis, job_id):
        try:
            for ply in range(len(game.moves) + 1):
                async with _kernel(state, low=True):
                    limit = TIME_BACKSTOP + SEARCH_SLACK
                    positions.append(await _in_thread(state, job_id, limit, evaluate_position, game, ply, nodes))
                state.beat = replace(state.beat, review=job_id, reviewed=len(positions))
                with contextlib.suppress(Exception):
                    await _beat(redis, state)
        finally:
            state.beat = replace(state.beat, review=None, reviewed=0)
    return assemble(game, positions, nodes).to_json()


async def _after_job(ctx: ArqContext) -> None:
    """After arq has stored a job's outcome (or put it back in the queue): tell the waiting bots to look; then a worker
    whose search would not end exits, for a fresh one."""
    redis, state, job_id = _context(ctx)
    with contextlib.suppress(Exception):  # a lost notice costs the bot one RESULT_RECHECK, no more
        await redis.publish(DONE_CHANNEL, job_id)
    if state.stuck:
        log.error("AI worker %d: a search would not end; exiting so that a fresh worker takes over", os.getpid())
        logging.shutdown()
        os._exit(EXIT_STUCK)


# -- the supervisor ------------------------------------------------------------------------------------------------


def run_workers(options: WorkerOptions, processes: int) -> int:
    """Run ``processes`` worker processes until SIGTERM or SIGINT, starting a new one in place of any that dies;
    returns the exit status (0)."""
    context = multiprocessing.get_context("spawn")  # never fork: the kernel and Redis connections are not fork-safe
    stopping = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}

    def spawn(index: int) -> BaseProcess:
        child = context.Process(target=worker_main, args=(options,), name=f"kingme-worker-{index}")
        child.start()
        return child

    try:
        children = [spawn(index) for index in range(processes)]
        log.info("started %d AI worker processes: %s", processes, ", ".join(str(c.pid) for c in children))
        while not stopping:
            wait_for_exit([child.sentinel for child in children], timeout=0.5)
            for index, child in enumerate(children):
                if child.is_alive() or stopping:
                    continue
                log.warning("AI worker %s ended with status %s; starting another", child.pid, child.exitcode)
                time.sleep(RESPAWN_DELAY)
                children[index] = spawn(index)
        _stop(children)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    log.info("AI workers stopped")
    return 0


def _stop(children: list[BaseProcess]) -> None:
    """SIGTERM every worker (its job goes back to the queue), then kill any still running after :data:`STOP_GRACE`."""
    for child in children:
        if child.is_alive():
            child.terminate()
    deadline = time.monotonic() + STOP_GRACE
    for child in children:
        child.join(max(0.0, deadline - time.monotonic()))
        if child.is_alive():
            log.warning("AI worker %s did not stop in time; killing it", child.pid)
            child.kill()
            child.join()
