"""The whole bot with ``AI_BACKEND=queue``: the real runtime on the Discord emulator, a real redis-server on a free TCP
port and two real ``kingme worker`` processes; a game against the AI played to the end with select menus, the AI's
gauges on /healthz and /metrics, a bot restarted while its AI turn waits in the queue, and ``/checkers analyse``
reviewed by the workers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import aiohttp
import pytest
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from ai.review import GameReview
from bot.emulator import Channel, DiscordEmulator
from bot.pool import QueueBackend, QueueCounters
from bot.runtime import Runtime, StartupError
from bot.service import UserId
from bot.store import RedisGameStore
from tests.bot.games.conftest import Harness, board_state, component, game_board, game_thread
from tests.bot.games.test_play_ai import play_to_the_end
from tests.bot.pool import queue_support
from tests.bot.pool.queue_support import QueueWorld
from tests.bot.test_runtime import make_settings
from tests.support import eventually

QUEUE = "kingme:ai:queue"
READY_TIMEOUT = 60.0

world = queue_support.world
redis_client = queue_support.redis_client


class Bots:
    """Runtimes with ``AI_BACKEND=queue`` on the emulator and the module's Redis, one at a time (a restart makes a
    new one); the last is stopped at teardown."""

    def __init__(self, emulator: DiscordEmulator, redis_url: str, tmp_path: Path) -> None:
        self._settings = make_settings(
            tmp_path,
            discord_token=emulator.token,
            redis_url=redis_url,
            ai_backend="queue",
            ai_think_time_max=0.05,
            exhibition_move_delay=0.0,
            rate_user_burst=10_000,  # a whole game clicked at machine speed
            rate_guild_burst=10_000,
        )
        self.emulator = emulator
        self.runtime: Runtime | None = None

    async def start(self) -> Runtime:
        runtime = Runtime(self._settings, bot_options={"guild_ready_timeout": 0.05})
        self.runtime = runtime
        await runtime.start()
        await eventually(lambda: runtime.bot is not None and runtime.bot.is_ready(), READY_TIMEOUT, "a ready bot")
        return runtime

    async def stop(self) -> None:
        if self.runtime is not None:
            await self.runtime.stop()
            self.runtime = None
        await eventually(lambda: not self.emulator.connected, what="the bot disconnected")

    @property
    def backend(self) -> QueueBackend:
        assert self.runtime is not None and isinstance(self.runtime.ai, QueueBackend)
        return self.runtime.ai


@pytest.fixture
async def bots(emulator: DiscordEmulator, world: QueueWorld, tmp_path: Path) -> AsyncIterator[Bots]:
    made = Bots(emulator, world.server.url, tmp_path)
    try:
        yield made
    finally:
        await made.stop()


async def scrape(url: str) -> dict[str, float]:
    async with aiohttp.ClientSession() as session, session.get(f"{url}/metrics") as response:
        text = await response.text()
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if not sample.labels
    }


async def test_a_game_against_the_ai_on_the_job_queue_by_clicks(
    bots: Bots, redis_client: aioredis.Redis, emulator: DiscordEmulator
) -> None:
    runtime = await bots.start()
    backend = bots.backend
    await eventually(lambda: backend.healthy and len(backend.worker_pids) == 2, what="both workers seen by the bot")
    async with aiohttp.ClientSession() as session, session.get(f"{runtime.ops_url}/healthz") as response:
        assert response.status == 200
        health = await response.json()
    assert health["pool"] == "ok" and health["ai"]["live_workers"] == 2 and health["ai"]["queue_depth"] == 0

    alice = emulator.user("alice")
    harness = cast(Harness, SimpleNamespace(emulator=emulator, settings=runtime.settings))
    reply = await emulator.invoke(alice, ["checkers", "play"], {"level": "hard", "think": 0.05})
    board = await game_board(harness, reply)
    await play_to_the_end(harness, alice, board)
    assert board.content == "Game over."
    records = list(emulator.state.interactions.values())
    assert records and all(r.answered for r in records), "every interaction was answered in time (within 3 s)"

    ai_moves = runtime.metrics.registry.get_sample_value("kingme_moves_total", {"player": "ai"})
    assert ai_moves and backend.counters.enqueued == backend.counters.completed == ai_moves
    await eventually(lambda: backend.queue_depth == 0, what="the queue seen empty (the gauges are read every second)")
    samples = await scrape(runtime.ops_url)
    assert samples["kingme_ai_live_workers"] == 2 and samples["kingme_ai_queue_depth"] == 0
    assert samples["kingme_ai_move_seconds_count"] == ai_moves


async def test_a_bot_restarted_while_its_ai_turn_is_queued_still_gets_the_move(
    bots: Bots, world: QueueWorld, emulator: DiscordEmulator, redis_client: aioredis.Redis
) -> None:
    runtime = await bots.start()
    alice = emulator.user("alice")
    harness = cast(Harness, SimpleNamespace(emulator=emulator, settings=runtime.settings))
    with world.workers.paused():
        reply = await emulator.invoke(alice, ["checkers", "play"], {"level": "hard", "colour": "white"})
        board = await game_board(harness, reply)
        assert board_state(board) is None, "the AI moves first"
        await eventually(lambda: redis_client.zcard(QUEUE), what="the AI's turn queued")
        await bots.stop()

        restarted = await bots.start()
        await eventually(lambda: bots.backend.counters.joined == 1, what="the restarted bot joined the queued turn")
        assert bots.backend.counters.enqueued == 0 and await redis_client.zcard(QUEUE) == 1
    await eventually(lambda: board_state(board) is not None, within=60, what="the AI's move on the board")
    assert restarted.metrics.registry.get_sample_value("kingme_moves_total", {"player": "ai"}) == 1
    assert restarted.service is not None
    [game] = await restarted.service.user_games(UserId(str(alice.id)))
    assert len(game.game.moves) == 1


async def test_with_no_worker_the_players_are_told_the_ai_is_offline_and_the_moves_come_when_it_is_back(
    bots: Bots, world: QueueWorld, emulator: DiscordEmulator, redis_client: aioredis.Redis
) -> None:
    """With every worker stopped, each player is told within seconds, in the game's thread, that the AI is offline;
    the turns wait in the bot (nothing queued, no try spent, /metrics and /healthz count both moves once) and are
    played once the workers are back."""
    runtime = await bots.start()
    assert runtime.service is not None
    service, backend = runtime.service, bots.backend
    harness = cast(Harness, SimpleNamespace(emulator=emulator, settings=runtime.settings))
    boards = []
    with world.workers.paused():
        await eventually(lambda: backend.offline and backend.capacity == 1, 15, "the paused workers gone")
        for name in ("alice", "bob"):
            ai_first = {"level": "hard", "colour": "white"}
            reply = await emulator.invoke(emulator.user(name), ["checkers", "play"], ai_first)
            boards.append(await game_board(harness, reply))
        threads = [game_thread(harness, board) for board in boards]

        def told(thread: Channel) -> list[str]:
            return [m.content for m in emulator.messages(thread) if "offline" in m.content]

        await eventually(lambda: all(told(t) for t in threads), 10, "each player told the AI is offline")
        assert await redis_client.zcard(QUEUE) == 0 and backend.counters.enqueued == 0, "nothing queued"
        assert service.ai_turns_waiting == 2 and backend.queue_depth == 0, "both turns wait in the bot"
        samples = await scrape(runtime.ops_url)
        assert samples["kingme_ai_queue_depth"] == 2, "both AI moves waiting, counted once each"
        async with aiohttp.ClientSession() as session, session.get(f"{runtime.ops_url}/healthz") as response:
            health = await response.json()
        assert health["ai"]["queue_depth"] == 2 and response.status == 503
    await eventually(lambda: backend.capacity == 2, 15, "both workers back")
    await eventually(lambda: all(board_state(b) is not None for b in boards), within=60, what="both AI moves")
    assert all(len(told(t)) == 1 for t in threads), "said once a game"
    assert not any("could not choose" in m.content for t in threads for m in emulator.messages(t))
    assert backend.counters == QueueCounters(enqueued=2, completed=2)
    await eventually(lambda: backend.queue_depth == 0, what="the queue seen empty")
    assert (await scrape(runtime.ops_url))["kingme_ai_queue_depth"] == 0


async def test_analyse_reviews_the_game_on_the_job_queue(
    bots: Bots, emulator: DiscordEmulator, redis_client: aioredis.Redis
) -> None:
    runtime = await bots.start()
    alice = emulator.user("alice")
    harness = cast(Harness, SimpleNamespace(emulator=emulator, settings=runtime.settings))
    reply = await emulator.invoke(alice, ["checkers", "play"], {"level": "hard", "colour": "white"})
    board = await game_board(harness, reply)
    await eventually(lambda: board_state(board) is not None, within=60, what="the AI's first move")
    game_id = board.embeds[0]["footer"]["text"].split("game ")[1].split(" ")[0]
    resigned = await emulator.invoke(alice, ["checkers", "resign"], channel=game_thread(harness, board))
    confirm = component(resigned.message, "km:r:")
    assert confirm is not None
    await emulator.click(alice, resigned.message, confirm["custom_id"])

    review = (await emulator.invoke(alice, ["checkers", "analyse"], {"game": game_id})).message
    assert review.ephemeral and review.embeds, review.content
    assert any(alice.name in field["name"] for field in review.embeds[0]["fields"]), "each player's summary"
    assert bots.backend.review_counters == QueueCounters(enqueued=1, completed=1), "reviewed by a worker"
    stored = await RedisGameStore(redis_client).load_review(game_id)
    assert stored is not None and len(GameReview.from_json(stored).positions) == 2, "stored with the game"

    again = (await emulator.invoke(alice, ["checkers", "analyse"], {"game": game_id})).message
    assert again.embeds == review.embeds and bots.backend.review_counters.enqueued == 1, "the stored review"


async def test_the_queue_needs_redis_url(tmp_path: Path) -> None:
    runtime = Runtime(make_settings(tmp_path, ai_backend="queue", redis_url=None))
    with pytest.raises(StartupError, match=r"^AI_BACKEND=queue needs REDIS_URL"):
        await runtime.start()
    assert runtime.embedded is None and runtime.ai is None  # nothing was started
