"""End-to-end fixtures: the real discord.py client (KingMeBot) logged in to the local Discord emulator, the game
service on the real Redis store, and AI moves from real worker processes (:class:`bot.pool.AiPool`)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aioredis

from bot.app import EventRelay, KingMeBot
from bot.emulator import Channel, DiscordEmulator, EmulatorEvent, Message, Reply, User
from bot.metrics import Metrics
from bot.pool import AiPool
from bot.service import GameService, Sweeper
from bot.settings import Settings
from bot.store import RedisGameStore
from tests.support import Clock, eventually, settings_with

_BOARD_ID = re.compile(r"^km:p:(?P<game>[^:]+):(?P<version>\d+)$")
_CHANNEL_MENTION = re.compile(r"<#(?P<id>\d+)>")


SETTINGS = {
    "exhibition_move_delay": 0.0,
    "ai_think_time_max": 0.05,
    "discord_guild_id": None,
    "rate_user_burst": 10_000,  # whole games clicked at machine speed; test_limits.py tests the shipped limits
    "rate_guild_burst": 10_000,
}


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
    sweeping: bool = False
    """Whether the sweeper runs beside the bot, every ``settings.sweep_interval`` seconds, as it does in ``kingme``."""
    sweeper: Sweeper | None = None

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
        if self.sweeping:
            self.sweeper = Sweeper(self.service, self.settings.sweep_interval)
            self.sweeper.start()
        return bot

    async def stop(self) -> None:
        if self.sweeper is not None:
            await self.sweeper.stop()
            self.sweeper = None
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


async def game_board(harness: Harness, reply: Reply | Message) -> Message:
    """The board of the game a command (or an accepted challenge) started: in the thread the answer links to (every
    game gets one where the channel allows threads), or the answer itself where games are played in the channel."""
    answer = reply if isinstance(reply, Message) else reply.message
    emulator = harness.emulator
    channel = emulator.state.channels[answer.channel_id]
    if channel.is_thread or not channel.threads_allowed or not harness.settings.game_threads:
        return answer
    await eventually(lambda: _CHANNEL_MENTION.search(answer.content) is not None, what="the link to the game's thread")
    thread = game_thread(harness, answer)
    await eventually(lambda: bool(emulator.messages(thread)), what="the board in the game's thread")
    return emulator.messages(thread)[0]


def game_thread(harness: Harness, message: Message) -> Channel:
    """The thread a message (a command's answer, an accepted challenge) links to, or the thread a board is in."""
    channel = harness.emulator.state.channels[message.channel_id]
    if channel.is_thread:
        return channel
    found = _CHANNEL_MENTION.search(message.content)
    assert found is not None, f"no link to a thread in {message.content!r}"
    return harness.emulator.state.channels[int(found["id"])]


async def play_ai(harness: Harness, user: User, options: dict[str, Any] | None = None, **kw: Any) -> Message:
    """``/checkers play`` (``level:easy`` by default); returns the game's board."""
    return await game_board(harness, await harness.command(user, "play", options or {"level": "easy"}, **kw))


@contextlib.contextmanager
def first_looks(harness: Harness) -> Iterator[dict[int, tuple[str, tuple[str, int] | None]]]:
    """While inside: what each new message showed when it was posted, as (content, :func:`board_state`), by id (a
    board may change before a test sees it, e.g. when the AI answers at once)."""
    seen: dict[int, tuple[str, tuple[str, int] | None]] = {}

    def hook(event: EmulatorEvent) -> None:
        if event.kind == "message_create" and event.message is not None:
            seen[event.message.id] = (event.message.content, board_state(event.message))

    unsubscribe = harness.emulator.subscribe(hook)
    try:
        yield seen
    finally:
        unsubscribe()


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
    """Choose the first piece and its first move with the select menus (a piece with one move plays it when chosen);
    returns the move text."""
    emulator = harness.emulator
    piece = component(board, "km:p:")
    assert piece is not None, f"no piece menu on the board: {custom_ids(board)}"
    first = piece["options"][0]
    await emulator.select(user, board, piece["custom_id"], [first["value"]])
    if "," not in first["description"]:  # the piece has one move: choosing it played it
        return str(first["description"])
    move = component(board, "km:m:")
    assert move is not None, f"no move menu after choosing a piece: {custom_ids(board)}"
    choice = move["options"][0]["value"]
    await emulator.select(user, board, move["custom_id"], [choice])
    return str(choice)


@pytest.fixture
def pool_type() -> type[AiPool]:
    """The pool's class: a test module may override it (with a subclass that records what the pool is asked)."""
    return AiPool


@contextlib.asynccontextmanager
async def running(pool: AiPool) -> AsyncIterator[AiPool]:
    """``pool`` started, and closed afterwards."""
    await pool.start()
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def pool(pool_type: type[AiPool]) -> AsyncIterator[AiPool]:
    async with running(pool_type(workers=2, queue_limit=16, move_timeout_slack=5.0)) as workers:
        yield workers


@pytest.fixture
def settings() -> Settings:
    return make_settings()


@pytest.fixture
def clock() -> Clock:
    """The service's clock: real time plus what the test skips (a test module may override it)."""
    return Clock()


@pytest.fixture
def sweeping() -> bool:
    """Whether the harness runs the sweeper (a test module may say so)."""
    return False


@pytest.fixture
async def harness(
    emulator: DiscordEmulator,
    redis_client: aioredis.Redis,
    pool: AiPool,
    settings: Settings,
    clock: Clock,
    sweeping: bool,
) -> AsyncIterator[Harness]:
    h = Harness(emulator, redis_client, pool, settings, Metrics(), clock, sweeping=sweeping)
    await h.start()
    try:
        yield h
    finally:
        await h.stop()
