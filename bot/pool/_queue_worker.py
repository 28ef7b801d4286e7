"""The worker side of the AI job queue (``kingme worker``): processes that take AI moves off the Redis queue of
:mod:`bot.pool._queue`, one at a time each, and a supervisor that keeps the requested number of them running.

Each worker process loads the compiled search kernel before it takes a job (and before its first heartbeat, so the bot
counts only ready workers), then runs arq's worker loop with one job at a time. The search runs in a thread (the kernel
releases the GIL) so that the event loop keeps renewing the job's lease and the worker's heartbeat meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, replace
from multiprocessing.connection import wait as wait_for_exit
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Final

from arq.constants import in_progress_key_prefix
from arq.worker import Worker, func

from ai.api import choose_move
from bot.pool._errors import AiTimeoutError
from bot.pool._pool import move_time
from bot.pool._queue import (
    DONE_CHANNEL,
    HEARTBEAT_INTERVAL,
    HEARTBEAT_TTL,
    LEASE,
    MAX_TRIES,
    QUEUE_NAME,
    RESULT_KEEP,
    SEARCH_FUNCTION,
    WorkerBeat,
    connect,
    dump_job,
    load_job,
    read_payload,
    result_data,
)
from bot.pool._worker import call_in_worker

log = logging.getLogger(__name__)

POLL_DELAY: Final = 0.02
"""Seconds between a free worker's looks at the queue. arq starts at most one job a look in a worker that runs one
at a time, so this also caps a worker process at ``1 / POLL_DELAY`` AI moves a second whatever their cost (at 0.1 the
load test saw cheap levels' moves queue at 10 a second while the worker's core idled); an idle look is one Redis
command."""
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


@dataclass
class _State:
    """One worker process's state, shared by its job function and its heartbeat."""

    beat: WorkerBeat
    parent: int
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


async def _serve(options: WorkerOptions) -> None:
    redis = connect(options.redis_url)
    state = _State(WorkerBeat(socket.gethostname(), os.getpid(), busy=False), parent=os.getppid())
    worker = Worker(
        functions=[func(_search, name=SEARCH_FUNCTION, max_tries=MAX_TRIES)],
        queue_name=QUEUE_NAME,
        redis_pool=redis,
        max_jobs=1,
        poll_delay=POLL_DELAY,
        job_timeout=JOB_TIMEOUT,
        keep_result=RESULT_KEEP,
        max_tries=MAX_TRIES,
        ctx={"state": state},
        job_serializer=dump_job,
        job_deserializer=load_job,
        after_job_end=_after_job,
        handle_signals=True,  # SIGTERM and SIGINT cancel the running job: arq puts it back for another worker
    )
    worker.in_progress_timeout_s = LEASE  # see bot.pool._queue: a dead worker's job runs again within seconds
    heartbeat = asyncio.create_task(_heartbeat(redis, state, worker))
    try:
        await worker.async_run()
    except asyncio.CancelledError:  # arq's signal handler cancelled its main task: a clean stop
        pass
    finally:
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat
        with contextlib.suppress(Exception):
            await redis.delete(state.beat.key)
        await worker.close()
    log.info("AI worker %d stopped", os.getpid())


async def _beat(redis: Any, state: _State) -> None:
    await redis.set(state.beat.key, state.beat.dumps(), px=int(HEARTBEAT_TTL * 1000))


async def _heartbeat(redis: Any, state: _State, worker: Worker) -> None:
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


async def _hold_lease(redis: Any, job_id: str) -> None:
    """Renew the running job's in-progress key until cancelled, so that it outlives :data:`LEASE` only while this
    worker lives."""
    while True:
        await asyncio.sleep(LEASE / 3)
        with contextlib.suppress(Exception):
            await redis.pexpire(in_progress_key_prefix + job_id, int(LEASE * 1000))


async def _search(ctx: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """The job: one AI move. Returns :func:`bot.pool._queue.result_data`; the search's own errors propagate."""
    state: _State = ctx["state"]
    redis, job_id = ctx["redis"], ctx["job_id"]
    level, game, limits, seed = read_payload(payload)
    lease = asyncio.create_task(_hold_lease(redis, job_id))
    state.beat = replace(state.beat, busy=True, job=job_id)
    try:
        with contextlib.suppress(Exception):
            await _beat(redis, state)  # at once, not at the next beat: the bot's gauges and a test see it
        limit = move_time(level, limits) + SEARCH_SLACK
        search = asyncio.to_thread(call_in_worker, choose_move, level, game, limits, seed)
        try:
            result = await asyncio.wait_for(search, limit)
        except TimeoutError:
            state.stuck = True  # the thread cannot be stopped: this process ends after the job (see _after_job)
            raise AiTimeoutError(f"the search of job {job_id} ran past {limit:.0f} s") from None
    finally:
        lease.cancel()
        state.beat = replace(state.beat, busy=False, job=None)
    return result_data(result)


async def _after_job(ctx: dict[str, Any]) -> None:
    """After arq has stored a job's outcome (or put it back in the queue): tell the waiting bots to look; then a worker
    whose search would not end exits, for a fresh one."""
    with contextlib.suppress(Exception):  # a lost notice costs the bot one RESULT_RECHECK, no more
        await ctx["redis"].publish(DONE_CHANNEL, ctx["job_id"])
    if ctx["state"].stuck:
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
