"""End-to-end fixtures: the real discord.py client (KingMeBot) logged in to the local Discord emulator, the game
service on the real Redis store, and AI moves from real worker processes (:class:`bot.pool.AiPool`)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aioredis

from bot.app import EventRelay, KingMeBot
from bot.emulator import DiscordEmulator, Message, User
from bot.metrics import Metrics
from bot.pool import AiPool
from bot.service import GameService
from bot.settings import Settings
from bot.store import RedisGameStore
from tests.support import Clock, eventually, settings_with

_BOARD_ID = re.compile(r"^km:p:(?P<game>[^:]+):(?P<version>\d+)$")


SETTINGS = {"exhibition_move_delay": 0.0, "ai_think_time_max": 0.05, "discord_guild_id": None}


def make_settings(**overrides: Any) -> Settings:
    return settings_with(SETTINGS, **overrides)


@dataclass
class Harness:
    """One emulated Discord with one running King Me: the bot, its service and what they share."""

    emulator: DiscordEmulator
    redis: aioredis.Redis
    pool: AiPool
    settings: Settings
    metrics: Metrics
    clock: Clock
    relay: EventRelay | None = None
    service: GameService | None = None
    bot: KingMeBot | None = None
    runner: asyncio.Task[None] | None = None

    async def start(self) -> KingMeBot:
        """A new service and a new bot on the same Redis, pool and emulator (as after a restart)."""
        self.relay = EventRelay()
        store = RedisGameStore(self.redis)
        self.service = GameService(
            store, self.pool, self.settings, sink=self.relay, clock=self.clock, reviewer=self.pool
        )
        await self.service.start()
        bot = KingMeBot(self.service, self.settings, metrics=self.metrics, relay=self.relay, guild_ready_timeout=0.05)
        ready = asyncio.Event()
        bot.add_listener(_setter(ready), "on_ready")
        self.runner = asyncio.create_task(bot.start(self.emulator.token))
        waiter = asyncio.create_task(ready.wait())
        await asyncio.wait({self.runner, waiter}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
            await bot.close()
            await self.runner
            raise TimeoutError("the bot never became ready")
        self.bot = bot
        return bot

    async def stop(self) -> None:
        if self.bot is not None:
            await self.bot.close()
            self.bot = None
        if self.runner is not None:
            await self.runner
            self.runner = None
        if self.service is not None:
            await self.service.close()
            self.service = None
        await eventually(lambda: not self.emulator.connected)

    async def restart(self) -> KingMeBot:
        await self.stop()
        return await self.start()

    # -- user side --------------------------------------------------------------------------------------------------

    def user(self, name: str) -> User:
        return self.emulator.user(name)

    def command(self, user: User, name: str, options: dict[str, Any] | None = None, **kw: Any) -> Any:
        return self.emulator.invoke(user, ["checkers", name], options or {}, **kw)


def _setter(event: asyncio.Event) -> Callable[[], Any]:
    async def on_ready() -> None:
        event.set()

    return on_ready


def custom_ids(message: Message) -> list[str]:
    return [c["custom_id"] for c in message.iter_components() if "custom_id" in c]


def component(message: Message, prefix: str) -> dict[str, Any] | None:
    return next((c for c in message.iter_components() if c.get("custom_id", "").startswith(prefix)), None)


def board_state(message: Message) -> tuple[str, int] | None:
    """(game id, version) of a board whose piece menu is showing, else None."""
    for cid in custom_ids(message):
        match = _BOARD_ID.match(cid)
        if match:
            return match["game"], int(match["version"])
    return None


def description(message: Message) -> str:
    return "\n".join(str(e.get("description") or "") for e in message.embeds)


async def resign(harness: Harness, user: User, channel: Any = None) -> Message:
    """``/checkers resign``, then the "Really resign?" button on the ephemeral answer; returns that answer."""
    asked: Message = (await harness.command(user, "resign", channel=channel)).message
    assert asked.ephemeral and "Really resign" in asked.content, asked.content
    confirm = component(asked, "km:r:")
    assert confirm is not None and confirm["label"] == "Really resign?"
    await harness.emulator.click(user, asked, confirm["custom_id"])
    assert asked.content == "You resigned." and custom_ids(asked) == []
    return asked


async def play_first_move(harness: Harness, user: User, board: Message) -> str:
    """Choose the first piece and its first move with the select menus; returns the move text."""
    emulator = harness.emulator
    piece = component(board, "km:p:")
    assert piece is not None, f"no piece menu on the board: {custom_ids(board)}"
    await emulator.select(user, board, piece["custom_id"], [piece["options"][0]["value"]])
    move = component(board, "km:m:")
    assert move is not None, f"no move menu after choosing a piece: {custom_ids(board)}"
    choice = move["options"][0]["value"]
    await emulator.select(user, board, move["custom_id"], [choice])
    return str(choice)


@pytest.fixture
def pool_type() -> type[AiPool]:
    """The pool's class: a test module may override it (with a subclass that records what the pool is asked)."""
    return AiPool


@pytest.fixture
async def pool(pool_type: type[AiPool]) -> AsyncIterator[AiPool]:
    workers = pool_type(workers=2, queue_limit=16, move_timeout_slack=5.0)
    await workers.start()
    try:
        yield workers
    finally:
        await workers.close()


@pytest.fixture
def settings() -> Settings:
    return make_settings()


@pytest.fixture
async def harness(
    emulator: DiscordEmulator, redis_client: aioredis.Redis, pool: AiPool, settings: Settings
) -> AsyncIterator[Harness]:
    h = Harness(emulator, redis_client, pool, settings, Metrics(), Clock())
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
