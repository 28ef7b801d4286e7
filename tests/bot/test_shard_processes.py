"""King Me as a cluster, as the scaled compose file runs it: two ``kingme run`` processes (``SHARD_COUNT=2``,
``SHARD_IDS=0`` and ``1``, ``AI_BACKEND=queue``) and two ``kingme worker`` processes on one redis-server (over TCP, as
other machines reach it), connected to one Discord emulator with a guild on each shard. Games in both guilds are played
to their end by clicks; every interaction is delivered once, over its guild's shard, and answered once within 3 s; the
worker searching an AI move is killed mid-search, then the process holding the sweeper's lease is killed while that
move is still being searched: the sweeper moves to the other process, the move is searched again on the other worker,
and the restarted process makes it on the board it had sent and answers the buttons it sent before it died. Neither
console ever says discord.py's "Can't keep up"."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
from arq.constants import result_key_prefix

from bot.emulator import Channel, DiscordEmulator, Message, User, shard_of
from bot.redis_process import EmbeddedRedis
from bot.store import NAMESPACE, RedisGameStore
from core import Color
from tests.bot.cluster_support import BotProcess
from tests.bot.pool.queue_support import WorkerCommands, tcp_redis, worker_commands
from tests.support import board_in_thread, eventually

SHARDS = 2
SWEEP_INTERVAL = 0.5
HEARTBEAT_INTERVAL = 10.5
"""Seconds between heartbeats: just over the 10 s at which discord.py reports "Can't keep up", so a heartbeat
acknowledged too early would show in the consoles."""
STARTUP = 90.0
LONG_THOUGHT = 6.0
"""Seconds the AI thinks its move in the game whose process is killed meanwhile (the other games' level is easy,
which takes no time)."""
SETTINGS = {
    "AI_BACKEND": "queue",
    "AI_THINK_TIME_MAX": str(LONG_THOUGHT),
    "SWEEP_INTERVAL": str(SWEEP_INTERVAL),
    "ONE_GAME_PER_CHANNEL": "false",  # a game against the AI and a challenge side by side
}
PLAYERS = {0: ("bob", "carol"), 1: ("dave", "erin")}
"""Who challenges whom in each shard's guild (two people have one game at a time between them)."""
_BOARD = re.compile(r"^km:p:(?P<game>[^:]+):(?P<version>\d+)$")


@pytest.fixture
async def emulator() -> AsyncIterator[DiscordEmulator]:
    emu = DiscordEmulator(shards=SHARDS, answer_timeout=10.0, heartbeat_interval=HEARTBEAT_INTERVAL)
    for name in PLAYERS[1]:
        emu.add_user(name)
    for shard in range(SHARDS):
        emu.add_channel("checkers", guild=emu.add_guild(f"Shard {shard} Club", shard=(shard, SHARDS)))
    await emu.start()
    try:
        yield emu
    finally:
        await emu.stop()


def custom_ids(message: Message) -> list[str]:
    return [c["custom_id"] for c in message.iter_components() if "custom_id" in c]


def control(message: Message, prefix: str) -> dict[str, Any]:
    found = next((c for c in message.iter_components() if c.get("custom_id", "").startswith(prefix)), None)
    assert found is not None, f"no {prefix} on {message.content!r}: {custom_ids(message)}"
    return found


def version(board: Message) -> int:
    for cid in custom_ids(board):
        match = _BOARD.match(cid)
        if match:
            return int(match["version"])
    return -1


async def play_first_move(emulator: DiscordEmulator, user: User, board: Message) -> int:
    """Choose the first piece and its first move with the select menus (a piece with one move plays it when chosen);
    returns how many choices that took."""
    piece = control(board, "km:p:")
    first = piece["options"][0]
    await emulator.select(user, board, piece["custom_id"], [first["value"]])
    if "," not in first["description"]:
        return 1
    move = control(board, "km:m:")
    await emulator.select(user, board, move["custom_id"], [move["options"][0]["value"]])
    return 2


async def resign_by_clicks(emulator: DiscordEmulator, user: User, board: Message) -> None:
    asked = (await emulator.click(user, board, control(board, "km:b:resign:")["custom_id"])).message
    assert asked.ephemeral and "Really resign" in asked.content, asked.content
    await emulator.click(user, asked, control(asked, "km:r:")["custom_id"])
    await eventually(lambda: board.content == "Game over.", what="the board of the resigned game")
    await eventually(
        lambda: any("🏁" in m.content for m in emulator.messages(board.channel_id)), what="the result message"
    )


class Games:
    """A game against the AI (alice's) and a challenge accepted by a click in one guild's channel."""

    def __init__(self, emulator: DiscordEmulator, channel: Channel, players: tuple[str, str]) -> None:
        self.emulator, self.channel = emulator, channel
        self.alice = emulator.user("alice")
        self.challenger, self.opponent = (emulator.user(n) for n in players)
        self.ai_board: Message | None = None
        self.pvp_board: Message | None = None
        self.choices = 0
        """Menu choices made for the moves (interactions, each)."""

    async def open(self) -> None:
        emulator = self.emulator
        reply = await emulator.invoke(self.alice, ["checkers", "play"], {"level": "easy"}, channel=self.channel)
        self.ai_board = await board_in_thread(emulator, reply.message)
        offer = (
            await emulator.invoke(
                self.challenger, ["checkers", "challenge"], {"opponent": self.opponent}, channel=self.channel
            )
        ).message
        await emulator.click(self.opponent, offer, control(offer, "km:c:accept:")["custom_id"])
        await eventually(lambda: len(emulator.threads(self.channel)) == 2, what="the challenge's thread")
        self.pvp_board = await board_in_thread(emulator, offer)

    async def moves(self) -> None:
        """alice moves and the AI answers; then the player to move in the other game moves."""
        assert self.ai_board is not None and self.pvp_board is not None
        board = self.ai_board
        before = version(board)
        self.choices += await play_first_move(self.emulator, self.alice, board)
        await eventually(lambda: version(board) >= before + 2, within=15, what="the AI's answer on the board")
        to_move = re.match(r"<@(\d+)>, your move", self.pvp_board.content)
        assert to_move, self.pvp_board.content
        self.choices += await play_first_move(self.emulator, self.emulator.state.users[int(to_move[1])], self.pvp_board)

    async def finish(self) -> None:
        assert self.ai_board is not None and self.pvp_board is not None
        await resign_by_clicks(self.emulator, self.alice, self.ai_board)
        await resign_by_clicks(self.emulator, self.challenger, self.pvp_board)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """The cluster's Redis, on a TCP port as the workers of other machines reach it."""
    with tcp_redis(tmp_path / "redis") as server:
        yield server


@pytest.fixture
def workers(redis_server: EmbeddedRedis, tmp_path: Path) -> Iterator[WorkerCommands]:
    """Two ``kingme worker`` commands (one search process each) on the cluster's Redis."""
    with worker_commands(redis_server.url, tmp_path / "workers", count=2) as commands:
        yield commands


async def test_two_shard_processes_and_two_workers_share_the_games_and_the_sweeper(
    emulator: DiscordEmulator, redis_server: EmbeddedRedis, workers: WorkerCommands, tmp_path: Path
) -> None:
    await workers.wait_live()
    bots = [
        BotProcess(shard, SHARDS, emulator, redis_server.url, tmp_path / f"shard{shard}", SETTINGS)
        for shard in range(SHARDS)
    ]
    guilds = [g for g in emulator.state.guilds if g != emulator.guild.id]
    channels = {shard_of(c.guild_id, SHARDS): c for c in emulator.state.channels.values() if c.guild_id in guilds}
    assert sorted(channels) == [0, 1], "a guild on each shard"
    redis = aioredis.Redis.from_url(redis_server.url)
    store = RedisGameStore(redis)
    async with aiohttp.ClientSession() as http:
        try:
            # shard 0 first, so it takes the sweeper's lease; then shard 1, which must leave the sweeping to it
            bots[0].start()
            await eventually(lambda: bots[0].ready(http), STARTUP, "shard 0's process ready")
            await eventually(lambda: _holds(bots[0], http), 10, "shard 0 holding the sweeper's lease")
            bots[1].start()
            await eventually(lambda: bots[1].ready(http), STARTUP, "shard 1's process ready")
            assert sorted(emulator.gateway.shards) == [(0, SHARDS), (1, SHARDS)]
            await _only_one_sweeps(bots[0], bots[1], http)

            games = {shard: Games(emulator, channel, PLAYERS[shard]) for shard, channel in channels.items()}
            for shard_games in games.values():
                await shard_games.open()
                await shard_games.moves()

            # the sweeper's holder dies while its AI thinks a move: the other process takes the sweeps over
            notice = await emulator.invoke(
                emulator.user("carol"),
                ["checkers", "play"],
                {"level": "steady", "colour": "white", "think": LONG_THOUGHT},
                channel=channels[0],
            )
            interrupted = await board_in_thread(emulator, notice.message)
            assert version(interrupted) == -1, "the AI (Black) is to move"
            game_id = control(interrupted, "km:b:resign:")["custom_id"].split(":")[3]
            await eventually(lambda: _board_recorded(store, game_id), 10, "the board recorded with the game")
            await eventually(lambda: any(b.busy for b in workers.beats()), 10, "a worker searching the AI's move")
            searching = next(b.pid for b in workers.beats() if b.busy)
            os.kill(searching, signal.SIGKILL)  # mid-search: the move is searched again by the other worker
            bots[0].kill()
            await eventually(lambda: emulator.gateway.shards == [(1, SHARDS)], 10, "shard 0 disconnected")
            await eventually(lambda: _holds(bots[1], http), 10, "shard 1 taking over the sweeper")
            await games[1].moves()  # shard 1's games go on meanwhile

            # shard 0 comes back: its games resume, and the buttons it sent before it died answer
            bots[0].start()
            await eventually(lambda: bots[0].ready(http), STARTUP, "shard 0's process ready again")
            await _only_one_sweeps(bots[1], bots[0], http)
            await eventually(lambda: version(interrupted) >= 1, 3 * LONG_THOUGHT, "the interrupted AI turn resumed")
            await resign_by_clicks(emulator, emulator.user("carol"), interrupted)
            for shard_games in games.values():
                await shard_games.moves()
                await shard_games.finish()

            records = list(emulator.state.interactions.values())
            # each guild: 3 to open its games and 4 to resign them; the moves' menu choices (2 a move, 1 for a piece
            # with one move), 2 moves a round, 5 rounds in all; 3 for the game whose AI was interrupted
            choices = sum(g.choices for g in games.values())
            assert 5 * 2 <= choices <= 5 * 2 * 2
            assert len(records) == SHARDS * (3 + 4) + choices + 3
            for record in records:
                guild_id = emulator.state.channels[record.channel_id].guild_id
                where = f"interaction {record.name!r} in shard {shard_of(guild_id, SHARDS)}'s guild"
                assert record.delivered_to == [(shard_of(guild_id, SHARDS), SHARDS)], f"{where}: delivered once"
                assert record.callbacks == 1 and record.answered, f"{where}: answered exactly once"
                assert record.latency is not None and record.latency < 3.0, f"{where}: answered within 3 s"

            # one search per AI move: the turn the killed worker was searching ran again as the same job, and no
            # process searched a turn that the other was waiting for
            moves, searches = await _ai_moves(store, redis), await _ai_searches(redis)
            assert searches == moves, f"{searches} AI searches for {moves} AI moves"

            # heartbeats beyond the one each connection sends on HELLO, acknowledged without "Can't keep up"
            identified = emulator.gateway.identifies
            await eventually(lambda: emulator.gateway.heartbeats >= identified + 2, 2 * HEARTBEAT_INTERVAL, "beats")
        finally:
            for bot in bots:
                bot.stop()
            await redis.aclose()
    for bot in bots:
        console = bot.console.read_text(errors="replace")
        assert "running shards" in console
        assert "Traceback" not in console and "Can't keep up" not in console, console


async def _ai_moves(store: RedisGameStore, redis: aioredis.Redis) -> int:
    """The AI's moves in every game stored (active or finished)."""
    ids = {key.decode().split(":")[3] async for key in redis.scan_iter(match=f"{NAMESPACE}:game:*")}
    count = 0
    for game in await store.load_games(sorted(ids)):
        first = Color.BLACK if game.initial_fen[:1].upper() == "B" else Color.WHITE
        movers = (first if i % 2 == 0 else first.opponent for i in range(len(game.moves)))
        count += sum(game.player(color).is_ai for color in movers)
    return count


async def _ai_searches(redis: aioredis.Redis) -> int:
    """The AI move searches the workers finished (each job keeps its result)."""
    return len([key async for key in redis.scan_iter(match=f"{result_key_prefix}kingme-ai-*")])


async def _board_recorded(store: RedisGameStore, game_id: str) -> bool:
    game = await store.load_game(game_id)
    return game is not None and game.board_message is not None


async def _holds(bot: BotProcess, http: aiohttp.ClientSession) -> bool:
    return (await bot.sweeps(http))[0]


async def _only_one_sweeps(holder: BotProcess, other: BotProcess, http: aiohttp.ClientSession) -> None:
    """``holder`` holds the lease and sweeps; ``other`` does not, over several sweep intervals."""
    held, runs = await holder.sweeps(http)
    other_held, other_runs = await other.sweeps(http)
    assert held and not other_held
    await eventually(lambda: _swept_since(holder, runs + 4, http), 20 * SWEEP_INTERVAL, "the lease holder sweeping")
    assert await other.sweeps(http) == (False, other_runs), "the other process never swept"


async def _swept_since(bot: BotProcess, runs: float, http: aiohttp.ClientSession) -> bool:
    held, now = await bot.sweeps(http)
    return held and now >= runs
