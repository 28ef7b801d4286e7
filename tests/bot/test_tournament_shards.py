"""The acceptance's Swiss (six players, two of them AI levels, three rounds of ballot matches) run by two bot
processes, as the scaled compose file runs King Me: two ``kingme run`` processes (``SHARD_COUNT=2``, ``SHARD_IDS=0``
and ``1``) on one redis-server, each with its own AI workers, connected to one Discord emulator. The tournament's
server is on shard 0; shard 1's process starts first and holds the sweeper's lease, so the two processes both move the
tournament on (the one that sees a game end, and the sweeper). In the middle of round 2 shard 0's process is killed
(SIGKILL, holding whatever it held) and started again. Played by clicks to the podium: nothing paired or announced
twice, nothing lost, the standings those worked out by hand, ratings changed once per game, no traceback in either
console."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
import redis.asyncio as aioredis

from bot.emulator import Channel, DiscordEmulator, shard_of
from bot.redis_process import EmbeddedRedis
from bot.service import GameId, GameState, GuildId, TournamentId, TournamentRecord, UserId
from bot.service._standings import GLOBAL_SCOPE, guild_scope
from bot.store import RedisGameStore
from tests.bot.cluster_support import BotProcess
from tests.bot.games.conftest import component
from tests.bot.pool.queue_support import tcp_redis
from tests.bot.tournament_support import check_the_end, click, play_to_the_end
from tests.support import eventually

SHARDS = 2
STARTUP = 90.0
NAME = "Cluster Swiss"
SETTINGS = {
    "AI_BACKEND": "local",
    "AI_WORKERS": "1",
    "AI_THINK_TIME_MAX": "0.05",
    "SWEEP_INTERVAL": "0.5",
    "RATE_USER_BURST": "10000",  # whole games clicked at machine speed
    "RATE_GUILD_BURST": "10000",
}


@pytest.fixture
async def emulator() -> AsyncIterator[DiscordEmulator]:
    emu = DiscordEmulator(shards=SHARDS, answer_timeout=10.0)
    for name in ("bob", "carol", "dave"):
        emu.add_user(name)
    for shard in range(SHARDS):
        emu.add_channel("events", guild=emu.add_guild(f"Shard {shard} Club", shard=(shard, SHARDS)))
    await emu.start()
    try:
        yield emu
    finally:
        await emu.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    with tcp_redis(tmp_path / "redis") as server:
        yield server


async def test_two_bot_processes_run_a_swiss_and_one_dies_in_round_2(
    emulator: DiscordEmulator, redis_server: EmbeddedRedis, tmp_path: Path
) -> None:
    bots = [
        BotProcess(shard, SHARDS, emulator, redis_server.url, tmp_path / f"shard{shard}", SETTINGS)
        for shard in range(SHARDS)
    ]
    guilds = [g for g in emulator.state.guilds if g != emulator.guild.id]
    channel: Channel = next(
        c for c in emulator.state.channels.values() if c.guild_id in guilds and shard_of(c.guild_id or 0, SHARDS) == 0
    )
    people = {u.id: u for u in (emulator.user(n) for n in ("alice", "bob", "carol", "dave"))}
    alice, bob, carol, dave = people.values()
    redis = aioredis.Redis.from_url(redis_server.url)
    store = RedisGameStore(redis)
    async with aiohttp.ClientSession() as http:
        try:
            bots[1].start()  # first: it takes the sweeper's lease
            await eventually(lambda: bots[1].ready(http), STARTUP, "shard 1's process ready")
            await eventually(lambda: _holds(bots[1], http), 10, "shard 1 holding the sweeper's lease")
            bots[0].start()
            await eventually(lambda: bots[0].ready(http), STARTUP, "shard 0's process ready")

            options = {"name": NAME, "format": "swiss", "rounds": 3, "ai_allowed": True, "turn_time": 300}
            invoke = emulator.invoke
            announcement = (await invoke(alice, ["tournament", "create"], options, channel=channel)).message
            join = component(announcement, "km:t:join:")
            assert join is not None, announcement.content
            tid = TournamentId(join["custom_id"].split(":")[3])
            for person in (bob, carol, dave):
                await click(emulator, person, announcement, "km:t:join:")
            for level in ("easy", "medium"):
                await invoke(alice, ["tournament", "add-ai"], {"level": level}, channel=channel)
            started = (await invoke(alice, ["tournament", "start"], channel=channel)).message
            assert started.content.startswith(f"{NAME} has started"), started.content

            async def current() -> TournamentRecord:
                record = await store.load_tournament(tid)
                assert record is not None
                return record

            async def game_of(game_id: GameId) -> GameState:
                game = await store.load_game(game_id)
                assert game is not None
                return game

            async def kill_and_restart() -> None:
                bots[0].kill()
                await eventually(lambda: emulator.gateway.shards == [(1, SHARDS)], 10, "shard 0 disconnected")
                await asyncio.sleep(1.0)  # the sweeper (shard 1's) runs meanwhile
                bots[0].start()
                await eventually(lambda: bots[0].ready(http), STARTUP, "shard 0's process ready again")

            record = await play_to_the_end(emulator, people, current, game_of, kill_and_restart, within=300)
            games = {b.game_id: await game_of(b.game_id) for b in record.games}
            assert len(games) == len(record.games) == 3 * 3 * 2, "each round's three matches once, two games each"

            async def rated_games(person: UserId) -> int:
                scopes = (GLOBAL_SCOPE, guild_scope(GuildId(str(channel.guild_id))))
                everyone, server = await store.read_ratings([(scope, record.variant, person) for scope in scopes])
                assert everyone.games == server.games, "the global ladder and the server's counted the same games"
                return server.games

            await check_the_end(emulator, record, games, people, rated_games, channel)
            for number in (1, 2, 3):
                posts = [
                    m for m in emulator.messages(channel) if f"round {number} of 3" in m.content and "📋" in m.content
                ]
                assert len(posts) == 1, f"round {number} announced once: {[m.content for m in posts]}"
            assert len(emulator.threads(channel)) == len(games), "a thread for each game, none opened twice"
        finally:
            for bot in bots:
                bot.stop()
            await redis.aclose()
    for bot in bots:
        console = bot.console.read_text(errors="replace")
        assert "running shards" in console
        assert "Traceback" not in console, console


async def _holds(bot: BotProcess, http: aiohttp.ClientSession) -> bool:
    held, _ = await bot.sweeps(http)
    return held
