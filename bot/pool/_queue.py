"""AI moves as jobs on a Redis-backed queue (arq), searched by ``kingme worker`` processes on any machine that reaches
the same Redis (``AI_BACKEND=queue``); this module is the bot's side and what both sides share.

A job is plain data (level, variant, initial FEN, moves, limits, seed) and its id is a digest of that data. The seed
is the game service's digest of the game id and version (plus the attempt), so the id names one attempt at one turn:
a bot that asks again for the same turn, after a restart or from another process, finds the job already queued,
running or done and waits for that one instead of queueing a second (arq's ``_job_id`` refuses a duplicate while the
job or its result exists). Whatever comes back is played through the game service's compare-and-set like any move, so
a late or duplicate result changes nothing.

What arq gives and what this adds (checked against arq 0.28's ``worker.py``):

* arq marks a running job with an ``arq:in-progress:<id>`` key and leaves it in the queue until it finishes; a worker
  that dies leaves the key to expire, then another worker runs the job again (up to ``max_tries``). arq sets that key
  to live ``job_timeout + 10`` s, minutes for a search; our workers set it to :data:`LEASE` and renew it while they
  search, so a killed worker's job runs again elsewhere within a few seconds.
* A job expires (``_expires``) when the bot stops waiting for it, so no worker starts a move nobody wants any more.
* arq's waiting for a result polls Redis every half second; instead a worker publishes the job's id on
  :data:`DONE_CHANNEL` once its outcome is stored, and the bot looks only then (and every :data:`RESULT_RECHECK` in
  case a notice was lost), so a waiting move costs the bot next to no CPU and its answer no polling delay.
* Workers report liveness with one key each, ``kingme:ai:worker:<host>:<pid>``, renewed every
  :data:`HEARTBEAT_INTERVAL` and expiring after :data:`HEARTBEAT_TTL`; the bot reads them for its gauges.
* With no live worker, a move is not queued: :meth:`QueueBackend.choose` raises :class:`AiOfflineError` at once (a
  "busy" answer: the game service tells the players the AI is offline and asks again every second, spending none of
  the turn's tries), and queues it when a worker is back. A move already queued when the last worker goes waits for as
  long as none is live (that time does not count against its deadline); after :data:`OFFLINE_GRACE` seconds with none
  it is taken back out of the queue, if no worker holds it, and answered the same way, so every waiting move is
  counted once: in the queue, or in the service as a turn waiting for the AI.

Game reviews (``/checkers analyse``) are jobs too, on a queue of their own (:data:`REVIEW_QUEUE`) that the same worker
processes take only while they search no move, and run one position at a time, each position only while no move of
theirs waits (:mod:`bot.pool._queue_worker`): a review never delays a live move by more than one position. A review's
id is a digest of the game it reviews (variant, start, moves, nodes), so a game asked for by several bots, or again
after a restart, is reviewed once; the service stores the result with the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass

from arq.connections import ArqRedis
from arq.constants import in_progress_key_prefix, job_key_prefix, result_key_prefix
from arq.jobs import Job, JobStatus, ResultNotFound, SerializationError
from arq.worker import JobExecutionFailed
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from ai.api import GameInput, Limits, SearchResult
from ai.review import REVIEW_NODES, GameReview
from bot.pool._errors import AiOfflineError, AiTimeoutError, AiUnavailableError
from bot.pool._pool import UNHEALTHY_AFTER, move_time
from bot.pool._queue_wire import (
    DONE_CHANNEL,
    HEARTBEAT_INTERVAL,
    QUEUE_NAME,
    QUEUE_WAIT,
    RESULT_RECHECK,
    REVIEW_FUNCTION,
    REVIEW_QUEUE,
    REVIEW_WAIT,
    SEARCH_FUNCTION,
    JobPayload,
    ReviewPayload,
    WorkerBeat,
    connect,
    job_id,
    job_payload,
    live_workers,
    load_job,
    read_result,
    review_payload,
)
from bot.tasks import cancel_and_wait

log = logging.getLogger(__name__)

OFFLINE_GRACE = 5.0
"""Seconds without a live worker after which a move waiting in the queue, held by no worker, is taken back out of it."""
_TAKE_BACK = """
if redis.call('exists', KEYS[3]) == 1 then return 0 end
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('del', KEYS[2])
return 1
"""
"""Take job ARGV[1] out of queue KEYS[1] (its record KEYS[2]) unless a worker holds it (its in-progress key KEYS[3])."""

# -- the bot's side -----------------------------------------------------------------------------------------------


@dataclass
class QueueCounters:
    """Running totals since the backend was made."""

    enqueued: int = 0
    """Jobs this backend put on the queue."""
    joined: int = 0
    """Requests that found their job already there (asked before a restart, or by another process)."""
    completed: int = 0
    failed: int = 0


class QueueBackend:
    """The :class:`~bot.pool.AiBackend` that puts every move on the Redis job queue for ``kingme worker`` processes.

    Create, ``await start()``, ``await choose(...)``, ``await close()``. Its gauges are read from Redis every
    :data:`HEARTBEAT_INTERVAL` in the background, so reading them costs nothing.
    """

    def __init__(
        self,
        redis_url: str,
        *,
        move_timeout_slack: float = 5.0,
        queue_wait: float = QUEUE_WAIT,
        recheck_interval: float = RESULT_RECHECK,
        refresh_interval: float = HEARTBEAT_INTERVAL,
        review_wait: float = REVIEW_WAIT,
    ) -> None:
        """A move may wait ``queue_wait`` seconds for a worker and then search its time (:func:`move_time`) plus
        ``move_timeout_slack``, after which :meth:`choose` raises :class:`AiTimeoutError`; a review may take
        ``review_wait`` seconds in all."""
        self._url = redis_url
        self._slack = move_timeout_slack
        self._queue_wait = queue_wait
        self._recheck = recheck_interval
        self._refresh_interval = refresh_interval
        self._redis: ArqRedis | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._waiting: dict[str, set[asyncio.Event]] = {}
        """Job id -> the events of this backend's moves waiting for it, set when its notice arrives."""
        self._closed = False
        self._workers: tuple[WorkerBeat, ...] = ()
        self._queued = 0
        self._read_at: float | None = None
        self._offline_since: float | None = None
        """When the readings first found no live worker (None while one is live)."""
        self._consecutive_failures = 0
        self._review_wait = review_wait
        self.counters = QueueCounters()
        """The moves' totals."""
        self.review_counters = QueueCounters()
        """The reviews' totals."""

    # -- gauges ----------------------------------------------------------------------------------------------------

    @property
    def workers(self) -> tuple[WorkerBeat, ...]:
        """The live workers as last read."""
        return self._workers

    @property
    def worker_pids(self) -> tuple[int, ...]:
        """The process ids of the live workers (on whichever machines they run)."""
        return tuple(beat.pid for beat in self._workers)

    @property
    def busy_workers(self) -> int:
        return sum(beat.busy for beat in self._workers)

    @property
    def queue_depth(self) -> int:
        """Jobs waiting for a worker (arq keeps a running job in the queue until it ends: those are not counted)."""
        return max(0, self._queued - self.busy_workers)

    @property
    def capacity(self) -> int:
        """Moves that can search at once: one per live worker, and at least 1 so that turns are still handed out (and
        wait in the queue) while no worker runs."""
        return max(1, len(self._workers))

    @property
    def offline(self) -> bool:
        """No live worker in the last reading: moves are not queued (:class:`AiOfflineError`)."""
        return self._redis is not None and not self._workers

    @property
    def healthy(self) -> bool:
        """Started, Redis read within the last few intervals, at least one live worker, and the last few moves did not
        all fail."""
        fresh = self._read_at is not None and time.monotonic() - self._read_at < 3 * self._refresh_interval
        return (
            self._redis is not None
            and not self._closed
            and fresh
            and bool(self._workers)
            and self._consecutive_failures < UNHEALTHY_AFTER
        )

    # -- lifecycle -------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect, subscribe to the workers' notices and read the queue once; raises :class:`AiUnavailableError` when
        Redis cannot be read. Workers need not be running yet: moves wait in the queue for them."""
        if self._closed:
            raise AiUnavailableError("the AI queue is closed")
        if self._redis is not None:
            return
        try:
            self._redis = connect(self._url)
        except ValueError as exc:
            raise AiUnavailableError(f"REDIS_URL is not a Redis URL ({exc})") from None
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.subscribe(DONE_CHANNEL)
            await self._read()
        except (RedisError, OSError) as exc:
            await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped in redis-py 5
            await self.close()
            raise AiUnavailableError(f"cannot read the AI queue in Redis: {exc}") from exc
        self._tasks = [
            asyncio.create_task(self._refresh_forever(), name="kingme-ai-queue-gauges"),
            asyncio.create_task(self._hear_notices(pubsub), name="kingme-ai-queue-notices"),
        ]

    async def close(self) -> None:
        """Stop reading the gauges and the notices, and disconnect. Jobs already queued stay queued (another bot may
        wait for them)."""
        self._closed = True
        tasks, self._tasks = self._tasks, []
        await cancel_and_wait(*tasks, again_after=1.0)
        redis, self._redis = self._redis, None
        if redis is not None:
            await redis.aclose(close_connection_pool=True)

    async def _read(self) -> None:
        assert self._redis is not None
        self._workers = await live_workers(self._redis)
        self._queued = await self._redis.zcard(QUEUE_NAME)
        self._read_at = time.monotonic()
        if self._workers:
            self._offline_since = None
        elif self._offline_since is None:
            self._offline_since = self._read_at

    async def _refresh_forever(self) -> None:
        """Read the gauges every few seconds, for as long as the backend runs: a failure of one reading (Redis out
        of reach, or anything unexpected) is logged and the next reading comes as usual."""
        while True:
            await asyncio.sleep(self._refresh_interval)
            try:
                await self._read()
            except (RedisError, OSError) as exc:
                log.debug("reading the AI queue's gauges failed: %s", exc)
            except Exception:
                log.exception("reading the AI queue's gauges failed; reading again in %.0f s", self._refresh_interval)

    async def _hear_notices(self, pubsub: PubSub) -> None:
        """Wake the moves waiting for each job whose notice arrives; subscribe again after a lost connection."""
        try:
            while True:
                try:
                    async for message in pubsub.listen():
                        if message["type"] == "message":
                            for event in self._waiting.get(message["data"].decode(), ()):
                                event.set()
                except (RedisError, OSError) as exc:
                    log.debug("the AI queue's notices stopped: %s; subscribing again", exc)
                    await asyncio.sleep(self._recheck)
                    with contextlib.suppress(RedisError, OSError):
                        await pubsub.subscribe(DONE_CHANNEL)
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]  # untyped in redis-py 5

    # -- moves and reviews ------------------------------------------------------------------------------------------

    async def choose(self, level: str, game: GameInput, limits: Limits | None = None, seed: int = 0) -> SearchResult:
        """Queue the move (or join the same move already queued) and wait for its result.

        Raises :class:`AiTimeoutError` when no worker answers in time, :class:`AiUnavailableError` when the job is
        lost or fails in the workers (a worker died too often, Redis failed); the errors ``choose_move`` raises on bad
        input (:class:`core.RulesError`, :class:`ai.api.UnknownLevelError`, :class:`ValueError`) come back unchanged.
        """
        payload = job_payload(level, game, limits, seed)
        name = job_id(payload)
        wait = self._queue_wait + move_time(level, limits) + self._slack
        try:
            if self.offline and not await self._known(name):
                raise AiOfflineError(f"no live AI worker: job {name} is not queued")
            data = await self._run(SEARCH_FUNCTION, QUEUE_NAME, payload, name, wait, self.counters)
        except (AiTimeoutError, AiUnavailableError):
            self._consecutive_failures += 1
            raise
        self._consecutive_failures = 0
        return await self._checked(name, game, data)

    async def _known(self, name: str) -> bool:
        """Whether job ``name`` is queued, running or done (a bot that asks for it joins it, worker or none)."""
        assert self._redis is not None
        try:
            return bool(await self._redis.exists(job_key_prefix + name, result_key_prefix + name))
        except (RedisError, OSError) as exc:
            raise AiUnavailableError(f"the AI queue in Redis failed: {exc}") from exc

    async def _checked(self, name: str, game: GameInput, data: object) -> SearchResult:
        """The result of job ``name`` when it is a legal move of ``game``; else it is deleted from Redis (so nobody
        reads it again: asking again queues a fresh search) and :class:`AiUnavailableError` says why."""
        try:
            result = read_result(data)
            game.board().parse_move(result.move)
        except Exception as exc:  # malformed data, or not a legal move here (a RulesError)
            with contextlib.suppress(RedisError, OSError):
                if self._redis is not None:
                    await self._redis.delete(result_key_prefix + name)
            raise AiUnavailableError(f"job {name} answered no legal move ({exc}): its result is deleted") from None
        return result

    async def _keep_queued(self, name: str, seconds: float) -> None:
        """Keep job ``name``'s record (queued with an expiry: its first deadline) as long as its new deadline."""
        assert self._redis is not None
        with contextlib.suppress(RedisError, OSError):
            await self._redis.pexpire(job_key_prefix + name, max(1, int(seconds * 1000)))

    async def _take_back(self, name: str) -> bool:
        """Take move ``name`` out of the queue unless a worker holds it; True when it was taken back."""
        assert self._redis is not None
        keys = (QUEUE_NAME, job_key_prefix + name, in_progress_key_prefix + name)
        return bool(await self._redis.eval(_TAKE_BACK, 3, *keys, name))  # type: ignore[misc]  # redis-py types eval for both clients

    async def review(self, game: GameInput, nodes: int = REVIEW_NODES) -> GameReview:
        """Queue the review of a finished game (or join the same review already queued) for a worker with no move to
        search, and wait for it (see the module's docstring). Raises :class:`AiTimeoutError` after ``review_wait``
        seconds, :class:`AiUnavailableError` when the review fails in the workers (say, a game that does not
        replay)."""
        payload = review_payload(game, nodes)
        name = job_id(payload, "review")
        data = await self._run(REVIEW_FUNCTION, REVIEW_QUEUE, payload, name, self._review_wait, self.review_counters)
        try:
            if not isinstance(data, str):
                raise TypeError(f"a review is JSON text, not {type(data).__name__}")
            return GameReview.from_json(data)
        except (ValueError, KeyError, TypeError) as exc:
            raise AiUnavailableError(f"job {name} answered no readable review ({exc!r})") from None

    async def _run(
        self,
        function: str,
        queue: str,
        payload: JobPayload | ReviewPayload,
        name: str,
        wait: float,
        counters: QueueCounters,
    ) -> object:
        """Queue job ``name`` on ``queue`` (or join it, queued, running or done already) and wait up to ``wait``
        seconds for its outcome (what the job returned, as its JSON result holds it), counting into ``counters``. A job
        that is not started by then expires."""
        redis = self._redis
        if redis is None or self._closed:
            raise AiUnavailableError("the AI queue is closed" if self._closed else "start() the AI queue first")
        done = asyncio.Event()
        self._waiting.setdefault(name, set()).add(done)
        try:
            try:
                job = await redis.enqueue_job(function, payload, _job_id=name, _queue_name=queue, _expires=wait)
                if job is None:  # queued, running or done already: wait for that one
                    counters.joined += 1
                    job = Job(name, redis, _queue_name=queue, _deserializer=load_job)
                else:
                    counters.enqueued += 1
                async with asyncio.timeout(wait) as deadline:
                    data = await self._outcome(job, done, deadline if queue == QUEUE_NAME else None)
            except TimeoutError:
                raise AiTimeoutError(f"no AI worker answered job {name} within {wait:.0f} s") from None
            except ResultNotFound:
                raise AiUnavailableError(f"job {name} left the queue without a result") from None
            except (JobExecutionFailed, SerializationError) as exc:  # expired, or its workers died too often
                raise AiUnavailableError(f"job {name} failed: {exc}") from None
            except (RedisError, OSError) as exc:
                raise AiUnavailableError(f"the AI queue in Redis failed: {exc}") from exc
        except AiOfflineError:  # taken back out of the queue: not a failure, the turn asks again
            raise
        except Exception:  # not a cancellation: a request called off leaves its job queued for whoever asks again
            counters.failed += 1
            with contextlib.suppress(RedisError, OSError):  # a failure is not kept: asking again runs the job again
                await redis.delete(result_key_prefix + name)
            raise
        finally:
            waiters = self._waiting[name]
            waiters.discard(done)
            if not waiters:
                del self._waiting[name]
        counters.completed += 1
        return data

    async def _outcome(self, job: Job, done: asyncio.Event, deadline: asyncio.Timeout | None = None) -> object:
        """The job's result once its outcome is stored (the job's own exception if it raised): looked for now, then at
        each notice and every :data:`RESULT_RECHECK`. :class:`ResultNotFound` when the job is gone without one.

        For a move (``deadline`` given), time without a live worker is added to the deadline, and a move that no
        worker holds after :data:`OFFLINE_GRACE` seconds of that is taken back out of the queue
        (:class:`AiOfflineError`)."""
        loop = asyncio.get_running_loop()
        looked = loop.time()
        while True:
            if deadline is not None and self.offline:
                when = deadline.when()
                if when is not None:
                    deadline.reschedule(when + loop.time() - looked)
                    await self._keep_queued(job.job_id, when - looked)
                offline_for = time.monotonic() - (self._offline_since or time.monotonic())
                if offline_for >= OFFLINE_GRACE and await self._take_back(job.job_id):
                    raise AiOfflineError(f"no live AI worker for {offline_for:.0f} s: job {job.job_id} taken back")
            looked = loop.time()
            done.clear()
            info = await job.result_info()
            if info is None and await job.status() is JobStatus.not_found:
                info = await job.result_info()  # it may have finished between the two looks
                if info is None:
                    raise ResultNotFound(f"job {job.job_id} is neither queued nor done")
            if info is not None:
                if info.success:
                    return info.result
                if isinstance(info.result, Exception):  # the search's own error, e.g. a game with no move left
                    raise info.result
                raise SerializationError(str(info.result))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._recheck):
                    await done.wait()
