"""Fixtures for the game service: the real Redis store, a real in-process AI chooser, a clock the test moves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import pytest
import redis.asyncio as aioredis

from ai.api import GameInput, Limits, SearchResult, choose_move
from bot.service import Event, EventObserver, GameService, GameView
from bot.settings import Settings
from bot.store import NAMESPACE, RedisGameStore
from tests.support import Clock, eventually, settings_with, tasks_named

START = 1_700_000_000.0


class ThreadChooser:
    """The AI boundary implemented in-process: :func:`ai.api.choose_move` in a worker thread (not a mock: a second,
    simpler implementation of what the process pool does)."""

    capacity = 4
    """Searches it runs at once (the service never asks for more at a time)."""

    def __init__(self) -> None:
        self.calls = 0

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self.calls += 1
        return await asyncio.to_thread(choose_move, level, game, limits, seed)


class SlowChooser(ThreadChooser):
    """Thinks until released, so a test can change the game while the AI thinks."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.asked = asyncio.Event()

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self.asked.set()
        await self.release.wait()
        return await super().choose(level, game, limits, seed)


class EventLog:
    """An event sink that keeps what it hears."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.games: list[GameView | None] = []

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        self.games.append(game)
        self.events.extend(events)


SETTINGS = {"exhibition_move_delay": 0.0, "ai_think_time_max": 0.05}


def make_settings(**overrides: Any) -> Settings:
    return settings_with(SETTINGS, **overrides)


ServiceFactory = Callable[..., GameService]


async def ai_idle(service: GameService, within: float = 30.0) -> None:
    """Wait until no AI turn of ``service`` is running (an AI move may start the next AI turn, as in an exhibition)."""
    await eventually(lambda: service.ai_turns_in_flight == 0, within, "every AI turn done", lambda: tasks_named("ai-"))


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def chooser() -> ThreadChooser:
    return ThreadChooser()


@pytest.fixture
async def make_service(
    redis_client: aioredis.Redis, clock: Clock, events: EventLog, chooser: ThreadChooser
) -> AsyncIterator[ServiceFactory]:
    """Builds services on the session Redis (emptied for this test); every one is closed at teardown."""
    made: list[GameService] = []

    def factory(
        client: aioredis.Redis | None = None,
        chooser_: Any = None,
        observers: Sequence[EventObserver] = (),
        **overrides: Any,
    ) -> GameService:
        service = GameService(
            RedisGameStore(client if client is not None else redis_client),
            chooser_ if chooser_ is not None else chooser,
            make_settings(**overrides),
            clock=clock,
            sink=events,
            observers=observers,
        )
        made.append(service)
        return service

    yield factory
    for service in made:
        await service.close()


@pytest.fixture
def service(make_service: ServiceFactory) -> GameService:
    return make_service()


async def snapshot(client: aioredis.Redis) -> dict[bytes, Any]:
    """Every King Me key with its type and value, to prove a refused request changed nothing. The leases are left out:
    they say which process works on what (an AI turn of a running game takes and gives up its own as it goes), and
    record nothing of the games."""
    out: dict[bytes, Any] = {}
    leases = f"{NAMESPACE}:lease:".encode()
    async for key in client.scan_iter(match=f"{NAMESPACE}:*"):
        if key.startswith(leases):
            continue
        raw_kind = await client.type(key)
        kind = raw_kind.decode() if isinstance(raw_kind, bytes) else raw_kind
        getters: dict[str, Callable[[bytes], Awaitable[Any]]] = {
            "string": client.get,
            "hash": client.hgetall,
            "list": lambda k: client.lrange(k, 0, -1),
            "set": client.smembers,
            "zset": lambda k: client.zrange(k, 0, -1, withscores=True),
        }
        out[key] = (kind, await getters[kind](key))
    return out
