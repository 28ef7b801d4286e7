"""Data lifecycle in Redis: pending challenges expire by themselves (a key TTL), the retention sweep deletes old
finished games, every store call on an unreachable Redis raises the service's StoreUnavailableError, one sent while
Redis restarts waits for it, and commands open their connections side by side, not one after the other."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.exceptions import BusyLoadingError, ResponseError

from bot.redis_process import EmbeddedRedis
from bot.service import ChallengeExpired, GameService, StoreUnavailableError, UnknownGameError, User
from bot.store import NAMESPACE, RedisGameStore, RedisLease, connect
from bot.store._connection import is_unavailable
from bot.store._redis_base import CHALLENGE_GRACE, CLOSED_CHALLENGE_KEPT
from bot.tasks import cancel_and_wait
from tests.bot.service.conftest import START, Clock, EventLog, ServiceFactory, ai_idle
from tests.bot.service.test_games import ANN, BOB, CHANNEL, GUILD
from tests.support import eventually

DAY = 86400.0


def key(*parts: str) -> str:
    return ":".join((NAMESPACE, *parts))


async def test_a_pending_challenge_expires_in_redis_by_itself(
    service: GameService, redis_client: aioredis.Redis, clock: Clock, events: EventLog
) -> None:
    result = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert result.challenge is not None
    challenge = key("challenge", result.challenge.id)
    lifetime = service.settings.challenge_ttl + CHALLENGE_GRACE
    assert lifetime - 5 <= await redis_client.ttl(challenge) <= lifetime
    for user in (ANN, BOB):
        assert lifetime - 5 <= await redis_client.ttl(key("user", user.id, "challenges")) <= lifetime

    clock.advance(service.settings.challenge_ttl + 1)  # the sweeper still announces the expiry first
    [swept] = await service.sweep()
    assert isinstance(events.events[-1], ChallengeExpired) and swept.challenge is not None
    assert CLOSED_CHALLENGE_KEPT - 5 <= await redis_client.ttl(challenge) <= CLOSED_CHALLENGE_KEPT


async def test_a_challenge_redis_dropped_leaves_the_indexes(
    service: GameService, redis_client: aioredis.Redis, clock: Clock
) -> None:
    result = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert result.challenge is not None
    record = key("challenge", result.challenge.id)
    await redis_client.pexpire(record, 1)  # as its TTL does, a day after the challenge expired

    async def gone() -> bool:
        return await redis_client.exists(record) == 0

    await eventually(gone, what="the record expired by Redis")
    clock.advance(service.settings.challenge_ttl + 1)
    assert await service.sweep() == []
    assert await redis_client.zcard(key("challenges", "expiry")) == 0
    assert await service.challenges_of(ANN.id) == []


async def finished_ai_game(service: GameService, user: User, channel: str) -> str:
    result = await service.play_ai(GUILD, channel, user, "easy")
    assert result.game is not None
    await service.resign(result.game.id, GUILD, user)
    return result.game.id


async def test_finished_games_older_than_the_retention_are_deleted(
    make_service: ServiceFactory, redis_client: aioredis.Redis, clock: Clock
) -> None:
    service = make_service(game_retention_days=30)
    old = await finished_ai_game(service, ANN, "c1")
    clock.advance(20 * DAY)
    recent = await finished_ai_game(service, ANN, "c2")
    await ai_idle(service)
    assert await service.sweep() == []
    assert [g.id for g in await service.history(ANN.id)] == [recent, old], "nothing is old enough yet"

    clock.advance(11 * DAY)
    await service.sweep()
    assert [g.id for g in await service.history(ANN.id)] == [recent]
    with pytest.raises(UnknownGameError):
        await service.state(old)
    assert [k async for k in redis_client.scan_iter(match=f"{key('game', old)}*")] == []
    assert await redis_client.zscore(key("guild", GUILD, "history"), old) is None
    assert (await service.stats(ANN.id)).versus_bot, "records and ratings are not games: they stay"


async def test_finished_games_are_kept_for_ever_by_default(service: GameService, clock: Clock) -> None:
    assert service.settings.game_retention_days is None
    game = await finished_ai_game(service, ANN, "c1")
    clock.advance(3650 * DAY)
    await service.sweep()
    assert (await service.state(game)).game.id == game


async def test_every_store_call_on_a_dead_redis_is_store_unavailable(redis_server: EmbeddedRedis) -> None:
    client = connect(redis_server.url)
    store = RedisGameStore(client)
    try:
        assert await store.user_games(ANN.id) == []
        redis_server.kill()
        calls = [
            store.load_game("0123456789ab"),
            store.user_games(ANN.id),
            store.due_challenges(START, 10),
            store.set_names({ANN.id: ANN.name}),
            store.leaderboard("global", "american", 10),
            store.erase_user(ANN.id, ["global"], ["american"], [], finished=0),
            RedisLease(client, "sweeper", ttl=1.0).hold(),
        ]
        for call in calls:
            with pytest.raises(StoreUnavailableError, match="cannot reach its storage"):
                await call
        redis_server.start()
        assert await store.user_games(ANN.id) == [], "the same client works again once Redis is back"
    finally:
        await client.aclose()


@pytest.mark.parametrize("call", ["command", "transaction"])
@pytest.mark.parametrize("connection", ["pooled", "new"])
async def test_a_restart_within_the_retries_goes_unnoticed(
    redis_server: EmbeddedRedis, call: str, connection: str
) -> None:
    """A store call sent while Redis restarts (the killed server's socket file refusing connections) waits through the
    client's retries (0.1, 0.2, 0.4 s) instead of failing at once: one command or a MULTI, on the connection the crash
    broke or on a new one (the pool's, once an earlier failure closed it)."""
    client = connect(redis_server.url)
    store = RedisGameStore(client)

    async def read() -> object:
        return await (store.user_games(ANN.id) if call == "command" else store.load_games(["0123456789ab"]))

    try:
        assert await read() == []  # a pooled connection, which the kill breaks
        redis_server.kill()
        assert redis_server.socket_path is not None and redis_server.socket_path.is_socket()
        if connection == "new":
            await client.connection_pool.disconnect()

        def restart() -> None:
            time.sleep(0.2)
            redis_server.start()

        loop = asyncio.get_running_loop()
        back = loop.run_in_executor(None, restart)
        started = loop.time()
        try:
            assert await read() == [], "answered once Redis was back"
            assert loop.time() - started >= 0.1
        finally:
            await back
    finally:
        await client.aclose()


async def test_commands_open_their_connections_side_by_side(tmp_path: Path) -> None:
    """Four commands at once to a server that takes connections and never answers: each opens its own connection at
    once. (redis-py 5's own pool opened them one at a time, holding its lock through each one's retries: during an
    outage every command of the process queued behind all the others.)"""
    opened: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(writer)
        await reader.read()  # reads what the client says, answers nothing, until the client goes

    socket = tmp_path / "silent.sock"
    server = await asyncio.start_unix_server(silent, path=str(socket))
    client = connect(f"unix://{socket}", command_timeout=30.0)

    async def get(key: str) -> None:
        await client.get(key)

    commands = [asyncio.create_task(get(f"key{n}")) for n in range(4)]
    try:
        await eventually(lambda: len(opened) == 4, 10.0, "four connections open at once")
        assert not any(command.done() for command in commands)
    finally:
        await cancel_and_wait(*commands)
        await client.aclose()
        for writer in opened:
            writer.close()
        server.close()
        await server.wait_closed()


def test_which_redis_errors_mean_unavailable() -> None:
    assert is_unavailable(BusyLoadingError("Redis is loading the dataset in memory"))
    assert is_unavailable(ResponseError("MISCONF Redis is configured to save RDB snapshots, but it cannot persist"))
    assert not is_unavailable(ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value"))
    assert not is_unavailable(ValueError("a bug"))
