"""The AI job queue (AI_BACKEND=queue) with two real ``kingme worker`` processes on a real redis-server over TCP:
moves answered, a repeated request joined, a worker killed mid-search, two bots and a restarted bot asking for one
turn, a late result, and the bot's CPU beside the workers'."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
import redis.asyncio as aioredis
from arq.constants import result_key_prefix
from arq.jobs import serialize_result

from ai.api import GameInput, Limits
from bot.pool import AiOfflineError, AiUnavailableError, QueueBackend, QueueCounters, WorkerBeat, move_time
from bot.pool._queue_wire import QUEUE_NAME, SEARCH_FUNCTION, WORKER_KEY_PREFIX, dump_job, job_id, job_payload
from bot.redis_process import EmbeddedRedis
from bot.service import GameService, MovePlayed, Offline, User
from bot.store import RedisGameStore
from core import Board
from tests.bot.pool import queue_support
from tests.bot.pool.queue_support import QueueWorld, WorkerCommands, worker_commands
from tests.bot.pool.test_pool import assert_legal, midgame
from tests.bot.service.conftest import EventLog
from tests.support import eventually, settings_with

log = logging.getLogger(__name__)

QUEUE = "kingme:ai:queue"
ANN = User(101, "Ann")
SETTINGS = {"exhibition_move_delay": 0.0, "ai_think_time_max": 0.2}

MakeBackend = Callable[..., Awaitable[QueueBackend]]

world = queue_support.world
redis_client = queue_support.redis_client


@pytest.fixture
def workers(world: QueueWorld, redis_client: aioredis.Redis) -> WorkerCommands:
    """The two workers, both live and idle, on an empty Redis."""
    return world.workers


@pytest.fixture
def queue_redis(world: QueueWorld) -> EmbeddedRedis:
    return world.server


@pytest.fixture
async def make_backend(queue_redis: EmbeddedRedis) -> AsyncIterator[MakeBackend]:
    """A factory of started queue backends (a bot process's side each), all closed at teardown."""
    made: list[QueueBackend] = []

    async def make(url: str = queue_redis.url, **options: Any) -> QueueBackend:
        backend = QueueBackend(url, **options)
        made.append(backend)
        await backend.start()
        return backend

    try:
        yield make
    finally:
        for backend in made:
            await backend.close()


def make_service(client: aioredis.Redis, backend: QueueBackend, sink: EventLog) -> GameService:
    return GameService(RedisGameStore(client), backend, settings_with(SETTINGS), sink=sink)


async def ai_game_waiting_in_the_queue(service: GameService, client: aioredis.Redis) -> str:
    """Start a game in which the AI moves first; returns its id once the AI's turn is a job in the queue."""
    result = await service.play_ai("1", "2", ANN, "hard", color="white")
    assert result.game is not None and result.game.game.moves == ()
    await eventually(lambda: client.zcard(QUEUE), what="the AI's turn queued")
    return result.game.id


async def test_two_workers_answer_and_a_repeated_request_joins_its_job(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    backend = await make_backend()
    assert backend.capacity >= 1
    await eventually(lambda: len(backend.worker_pids) == 2, what="both workers seen by the bot")
    assert set(backend.worker_pids) == {beat.pid for beat in workers.beats()}
    assert backend.capacity == 2 and backend.healthy and backend.busy_workers == 0 and backend.queue_depth == 0

    board = midgame()
    game = GameInput.from_board(board)
    asked = [backend.choose("hard", game, Limits(time=0.2), seed) for seed in (1, 2, 1)]
    first, second, again = await asyncio.gather(*asked)
    for result in (first, second):
        assert_legal(midgame(), result)
    assert again == first, "the same request is the same job, with the same answer"
    assert backend.counters == QueueCounters(enqueued=2, joined=1, completed=3)

    kept = await backend.choose("hard", game, Limits(time=0.2), 1)  # answered from the kept result: nothing queued
    assert kept == first and backend.counters.joined == 2 and backend.counters.enqueued == 2
    other = await backend.choose("hard", game, Limits(time=0.1), 1)  # the same turn asked with other limits
    assert other == first and backend.counters.joined == 3 and backend.counters.enqueued == 2, "one search a turn"

    results = await redis_client.keys("arq:result:*")
    assert len(results) == 2
    for key in results:  # JSON, never pickles: what a bot reads from Redis is data
        record = json.loads(await redis_client.get(key))
        assert record["s"] is True and record["r"]["move"] in {first.move, second.move}


async def test_a_worker_killed_mid_search_still_yields_the_move(
    workers: WorkerCommands, make_backend: MakeBackend
) -> None:
    backend = await make_backend()
    board = midgame()
    asked = asyncio.create_task(backend.choose("master", GameInput.from_board(board), Limits(time=3.0), 7))
    searching: set[tuple[int, str | None]] = set()

    def busy() -> list[WorkerBeat]:
        found = [beat for beat in workers.beats() if beat.busy]
        searching.update((beat.pid, beat.job) for beat in found)
        return found

    await eventually(busy, within=30, what="a worker searching")
    [victim] = busy()
    os.kill(victim.pid, signal.SIGKILL)

    def taken_over() -> bool:
        busy()
        return any(pid != victim.pid and job == victim.job for pid, job in searching)

    await eventually(taken_over, within=30, what="another worker searching the killed worker's job")
    result = await asyncio.wait_for(asyncio.shield(asked), 60)
    assert_legal(board, result)
    assert backend.counters == QueueCounters(enqueued=1, completed=1)
    assert await workers.wait_live(2), "the killed worker's command started it again"
    await eventually(lambda: victim.pid not in backend.worker_pids, what="the killed worker gone from the gauges")


async def test_a_worker_stopped_mid_search_hands_its_move_back(
    workers: WorkerCommands,
    make_backend: MakeBackend,
    queue_redis: EmbeddedRedis,
    redis_client: aioredis.Redis,
    tmp_path: Path,
) -> None:
    """SIGTERM to ``kingme worker`` stops its worker mid-search; the move goes back to the queue for another."""
    backend = await make_backend()
    board = midgame()
    with workers.paused():  # the module's workers stay out of it until the third one has stopped
        module_pids = {beat.pid for beat in workers.beats()}
        with worker_commands(queue_redis.url, tmp_path / "third", count=1) as third:
            await eventually(lambda: {b.pid for b in third.beats()} - module_pids, 120, "the third worker live")
            await eventually(lambda: set(backend.worker_pids) - module_pids, 15, "and seen live by the bot")
            game = GameInput.from_board(board)
            asked = asyncio.create_task(backend.choose("master", game, Limits(time=3.0), 8))
            await eventually(lambda: any(b.busy for b in third.beats() if b.pid not in module_pids), 30, "it searches")
            [job] = {b.job for b in third.beats() if b.busy}
        assert [command.returncode for command in third.commands] == [0]
        assert await redis_client.zscore(QUEUE, f"{job}") is not None, "the move is back in the queue"
        assert not await redis_client.exists(f"arq:in-progress:{job}"), "and no worker holds it"
    result = await asyncio.wait_for(asked, 60)
    assert_legal(board, result)
    assert backend.counters == QueueCounters(enqueued=1, completed=1)


async def test_a_second_bot_leaves_a_turn_the_first_waits_for_and_the_game_gets_one_move(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    first_log, second_log = EventLog(), EventLog()
    first = make_service(redis_client, await make_backend(), first_log)
    second_backend = await make_backend()
    second = make_service(redis_client, second_backend, second_log)
    try:
        with workers.paused():
            game_id = await ai_game_waiting_in_the_queue(first, redis_client)
            assert await second.start() == 1, "the second bot starts the same AI turn again"
            await eventually(lambda: second.ai_turns_in_flight == 0, what="the second bot's turn left to the first")
            assert second_backend.counters == QueueCounters(), "it neither queued nor joined a search: the turn's lease"
            assert await redis_client.zcard(QUEUE) == 1
        await eventually(
            lambda: first.ai_turns_in_flight == 0 and second.ai_turns_in_flight == 0, within=60, what="both turns done"
        )
        view = await first.state(game_id)
        assert len(view.game.moves) == 1 and view.version == 2, "one move, applied once"
        played = [e for e in first_log.events + second_log.events if isinstance(e, MovePlayed)]
        assert len(played) == 1, "the duplicate result changed nothing"
    finally:
        await first.close()
        await second.close()


async def test_a_bot_restarted_while_its_ai_turn_is_queued_still_gets_the_move(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    before = make_service(redis_client, await make_backend(), EventLog())
    with workers.paused():
        game_id = await ai_game_waiting_in_the_queue(before, redis_client)
        await before.close()  # the bot stops: its turn is called off, its job stays queued
        restarted_backend = await make_backend()
        restarted = make_service(redis_client, restarted_backend, EventLog())
        try:
            assert await restarted.start() == 1
            await eventually(lambda: restarted_backend.counters.joined == 1, what="the restarted bot joined the job")
            assert restarted_backend.counters.enqueued == 0 and await redis_client.zcard(QUEUE) == 1
        except BaseException:
            await restarted.close()
            raise
    try:
        await eventually(lambda: restarted.ai_turns_in_flight == 0, within=60, what="the AI's move")
        view = await restarted.state(game_id)
        assert len(view.game.moves) == 1 and view.version == 2
    finally:
        await restarted.close()


async def test_a_late_result_changes_nothing(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    backend = await make_backend()
    service = make_service(redis_client, backend, EventLog())
    try:
        with workers.paused():
            game_id = await ai_game_waiting_in_the_queue(service, redis_client)
            resigned = await service.resign(game_id, "1", ANN)
            assert resigned.game is not None
        await eventually(lambda: service.ai_turns_in_flight == 0, within=60, what="the AI's late answer")
        assert backend.counters.completed == 1, "the job ran and answered"
        view = await service.state(game_id)
        assert view.game.moves == () and view.version == resigned.game.version, "its move was dropped"
    finally:
        await service.close()


async def test_no_worker_means_unhealthy_and_offline_and_a_move_is_not_queued(
    workers: WorkerCommands, make_backend: MakeBackend, queue_redis: EmbeddedRedis, redis_client: aioredis.Redis
) -> None:
    """Workers serve database 0; a bot on database 1 sees none: it still hands out one move at a time, and answers
    each at once that the AI is offline (a "busy" answer the service asks again after), queueing nothing."""
    alone = await make_backend(f"redis://127.0.0.1:{queue_redis.port}/1", queue_wait=0.5, move_timeout_slack=0.0)
    assert alone.worker_pids == () and alone.capacity == 1 and not alone.healthy and alone.offline
    with pytest.raises(AiOfflineError) as raised:
        await asyncio.wait_for(alone.choose("hard", GameInput.from_board(midgame()), Limits(time=0.1), 1), 5)
    assert isinstance(raised.value, Offline) and raised.value.offline and raised.value.retry_after > 0
    assert alone.counters == QueueCounters() and alone.queue_depth == 0, "nothing queued, nothing failed"
    assert await redis_client.zcard(QUEUE) == 0


async def test_a_queued_move_outlives_its_deadline_while_no_worker_is_live_then_is_taken_back(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    """A move queued just before every worker stops waits past its deadline for as long as none is live (no timeout,
    no try spent); after the grace it leaves the queue and is answered "offline"; with the workers back it is played."""
    backend = await make_backend(queue_wait=4.0, move_timeout_slack=0.0)
    deadline = 4.0 + move_time("hard", Limits(time=0.1))
    game = GameInput.from_board(midgame())
    with workers.paused():
        started = time.monotonic()
        asked = asyncio.create_task(backend.choose("hard", game, Limits(time=0.1), 5))
        await eventually(lambda: redis_client.zcard(QUEUE), what="the move queued while the heartbeats still live")
        await eventually(lambda: backend.offline, 15, "the stopped workers gone from the gauges")
        with pytest.raises(AiOfflineError):
            await asyncio.wait_for(asked, 30)
        waited = time.monotonic() - started
        assert waited > deadline + 1.0, f"it outlived its own deadline ({deadline:.1f} s): {waited:.1f} s"
        assert backend.counters == QueueCounters(enqueued=1), "no failure counted"
        assert await redis_client.zcard(QUEUE) == 0, "taken back out of the queue"
    await eventually(lambda: not backend.offline, 15, "the workers back")
    result = await asyncio.wait_for(backend.choose("hard", game, Limits(time=0.1), 5), 60)
    assert_legal(midgame(), result)


async def test_the_bot_spends_little_cpu_on_a_move_and_the_workers_most(
    workers: WorkerCommands, make_backend: MakeBackend
) -> None:
    backend = await make_backend()
    processes = [psutil.Process(beat.pid) for beat in await workers.wait_live()]

    def worker_cpu() -> float:
        return sum(process.cpu_times().user + process.cpu_times().system for process in processes)

    game = GameInput.from_board(midgame())
    moves = 4
    bot_before, workers_before = time.process_time(), worker_cpu()
    for seed in range(moves):
        await backend.choose("steady", game, Limits(time=0.5), 100 + seed)
    bot, worker = time.process_time() - bot_before, worker_cpu() - workers_before
    log.warning("CPU per AI move: bot %.4f s, workers %.4f s (%.1f%%)", bot / moves, worker / moves, 100 * bot / worker)
    assert bot < 0.25 * worker, (bot, worker)


def test_the_worker_command_needs_a_reachable_redis(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    command = [sys.executable, "-m", "bot", "worker"]
    missing = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2
    assert missing.stderr.strip().startswith("kingme: REDIS_URL is not set"), missing.stderr
    unreachable = {**env, "REDIS_URL": "redis://:hunter2@127.0.0.1:1/0"}
    down = subprocess.run(command, cwd=tmp_path, env=unreachable, capture_output=True, text=True, timeout=60)
    assert down.returncode == 2
    [line] = down.stderr.strip().splitlines()
    assert line.startswith("kingme: cannot reach Redis at redis://:***@127.0.0.1:1/0"), line
    assert "hunter2" not in down.stderr


# -- reviews ----------------------------------------------------------------------------------------------------------

REVIEWS = "kingme:ai:reviews"


def random_game(plies: int, seed: int) -> GameInput:
    """A game of up to ``plies`` random legal moves from the start (fewer if it ends first)."""
    board, rng = Board(), random.Random(seed)
    while len(board.move_stack) < plies and not board.is_game_over():
        board.push(rng.choice(board.legal_moves))
    return GameInput.from_board(board)


async def test_a_review_runs_on_an_idle_worker_and_two_bots_asking_share_it(
    workers: WorkerCommands, make_backend: MakeBackend, redis_client: aioredis.Redis
) -> None:
    first, second = await make_backend(), await make_backend()
    moving = asyncio.create_task(first.choose("master", GameInput.from_board(midgame()), Limits(time=8.0), 9))
    await eventually(lambda: any(beat.busy for beat in workers.beats()), 30, "a worker searching the move")
    [searcher] = [beat.pid for beat in workers.beats() if beat.busy]

    game = random_game(12, seed=5)
    reviewers: set[int] = set()

    def reviewing() -> bool:
        if not moving.done():  # once the move is made its worker is idle, and may review too
            reviewers.update(beat.pid for beat in workers.beats() if beat.review is not None)
        return bool(reviewers)

    asked = asyncio.gather(first.review(game), second.review(game))
    await eventually(reviewing, 30, "a worker reviewing")
    mine, theirs = await asyncio.wait_for(asked, 60)
    assert searcher not in reviewers, "the worker with a move to search took no review"
    assert mine == theirs and len(mine.positions) == len(game.moves) + 1 and mine.variant == "american"
    assert [m.move for m in mine.moves] == list(game.moves)
    counted = sorted([first.review_counters, second.review_counters], key=lambda c: c.joined)
    assert counted == [QueueCounters(enqueued=1, completed=1), QueueCounters(joined=1, completed=1)], "one job"
    assert await redis_client.zcard(REVIEWS) == 0
    assert_legal(midgame(), await asyncio.wait_for(moving, 60))
    assert first.counters == QueueCounters(enqueued=1, completed=1), "a review counts apart from the moves"


async def test_a_live_move_taken_during_a_review_waits_for_one_position_at_most(
    workers: WorkerCommands, make_backend: MakeBackend
) -> None:
    """One worker (the other paused) reviews a long game; a move it takes meanwhile searches after the position under
    way, and no further position is evaluated until the move is done."""
    backend = await make_backend()
    reviewer, other = (beat.pid for beat in workers.beats())
    game = random_game(40, seed=11)
    with workers.paused([other]):
        review = asyncio.create_task(backend.review(game, nodes=200_000))  # some 0.1 s a position

        def beat() -> WorkerBeat | None:
            return next((b for b in workers.beats() if b.pid == reviewer), None)

        await eventually(lambda: (b := beat()) is not None and b.reviewed >= 1, 60, "the review under way")
        moving = asyncio.create_task(backend.choose("master", GameInput.from_board(midgame()), Limits(time=1.5), 3))
        while_busy: list[WorkerBeat] = []

        def moved() -> bool:
            seen = beat()
            if seen is not None and seen.busy:
                while_busy.append(seen)
            return moving.done()

        await eventually(moved, 60, "the move")
        assert_legal(midgame(), moving.result())
        assert while_busy and {b.review for b in while_busy} == {while_busy[0].review} != {None}, "during the review"
        done_meanwhile = max(b.reviewed for b in while_busy) - min(b.reviewed for b in while_busy)
        assert done_meanwhile <= 1, f"{done_meanwhile} positions reviewed while a move waited or searched"
        reviewed = await asyncio.wait_for(review, 120)
    assert len(reviewed.positions) == len(game.moves) + 1 and reviewed.nodes == 200_000
    assert while_busy[-1].reviewed < len(game.moves) + 1, "the review went on after the move"
    assert backend.review_counters == QueueCounters(enqueued=1, completed=1)


async def test_an_unreadable_heartbeat_is_ignored_and_breaks_nothing(
    make_backend: MakeBackend, queue_redis: EmbeddedRedis
) -> None:
    """A ``kingme:ai:worker:*`` key that holds no beat (text that is not JSON, a list, a beat with a field of the
    wrong type) was read by the gauges' task, which died for good: /healthz said unhealthy for ever and a bot started
    meanwhile died of a JSONDecodeError. Now such keys are left out (logged), at start and in every refresh, and the
    good beats are still counted."""
    url = f"redis://127.0.0.1:{queue_redis.port}/2"
    raw = aioredis.Redis.from_url(url)
    try:
        good = WorkerBeat("host-a", 123, busy=False)
        await raw.set(good.key, good.dumps(), ex=60)
        for name, junk in (("text", "not json {"), ("list", "[1, 2]"), ("types", '{"host": 1, "pid": "x"}')):
            await raw.set(f"{WORKER_KEY_PREFIX}junk-{name}:1", junk, ex=60)
        backend = await make_backend(url, refresh_interval=0.05)  # starting reads them once
        assert backend.workers == (good,) and backend.healthy
        second = WorkerBeat("host-b", 456, busy=False)
        await raw.set(second.key, second.dumps(), ex=60)
        await eventually(lambda: len(backend.workers) == 2, what="the refresh still running, counting the new beat")
        assert set(backend.workers) == {good, second} and backend.healthy
    finally:
        await raw.aclose()


async def test_a_result_that_is_no_legal_move_is_deleted_and_never_read_again(
    make_backend: MakeBackend, queue_redis: EmbeddedRedis
) -> None:
    """A result in Redis that is not a legal move of its game (forged, or from a faulty worker) was refused by the
    service but stayed in the result cache, read again at every retry. Now the backend deletes it and says so; the
    next request queues a fresh search."""
    url = f"redis://127.0.0.1:{queue_redis.port}/3"  # no worker serves this database
    backend = await make_backend(url, queue_wait=0.5, move_timeout_slack=0.0)
    game, limits = GameInput.from_board(midgame()), Limits(time=0.1)
    payload = job_payload("hard", game, limits, 7)
    name = job_id(payload)
    forged = serialize_result(
        SEARCH_FUNCTION,
        (payload,),
        {},
        1,
        0,
        True,
        {"move": "1-2", "score": 0.0, "pv": ["1-2"]},
        0,
        0,
        "forged",
        QUEUE_NAME,
        name,
        serializer=dump_job,
    )
    assert forged is not None
    raw = aioredis.Redis.from_url(url)
    try:
        await raw.set(result_key_prefix + name, forged, ex=60)
        with pytest.raises(AiUnavailableError) as refused:
            await backend.choose("hard", game, limits, 7)
        assert "no legal move" in refused.value.detail
        assert not await raw.exists(result_key_prefix + name), "the refused result is gone"
    finally:
        await raw.aclose()
