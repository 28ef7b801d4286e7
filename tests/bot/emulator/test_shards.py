"""Shards on the emulator as Discord does them, against the real ``AutoShardedBot``: ``GET /gateway/bot`` says how many
shards to run, IDENTIFY names one, and a guild (``(guild_id >> 22) % count``) reaches only its shard's connection:
READY, GUILD_CREATE, its interactions. Two bots with disjoint ``shard_ids`` make a cluster in which each interaction
is delivered once, to the owner of its guild's shard, and answered once; a second answer gets 400 (40060). Heartbeats
are acknowledged after a round trip, so discord.py never reports "Can't keep up"."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.emulator import DiscordEmulator, Guild, patch_discordpy, shard_of
from tests.support import eventually

SHARDS = 2


class WhoButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"who:(?P<n>[0-9]+)"):
    """A button any process rebuilds from its custom_id; it answers with the name of the bot that handled it."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"who {n}", custom_id=f"who:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> WhoButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        assert isinstance(interaction.client, ShardBot)
        view = discord.ui.View(timeout=None).add_item(WhoButton(self.n + 1))
        await interaction.response.edit_message(content=f"{self.n + 1} by {interaction.client.name}", view=view)


class ShardBot(commands.AutoShardedBot):
    """Runs ``shard_ids`` of ``shard_count`` (None: what ``GET /gateway/bot`` says); ``/who`` names the bot and the
    shard that answered, ``/twice`` answers its interaction twice."""

    def __init__(self, name: str, shard_ids: Sequence[int] | None = None, shard_count: int | None = None) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
            shard_ids=list(shard_ids) if shard_ids is not None else None,
            shard_count=shard_count,
        )
        self.name = name
        self.second_answer: discord.HTTPException | None = None
        self.runner: asyncio.Task[None] | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """No 5 s pause between the shards' IDENTIFYs: the emulator has no identify rate limit."""

    async def setup_hook(self) -> None:
        self.add_dynamic_items(WhoButton)

        @app_commands.command(name="who", description="who answers")
        async def who(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None).add_item(WhoButton(0))
            await interaction.response.send_message(f"{self.name} shard {_shard_of(interaction)}", view=view)

        @app_commands.command(name="twice", description="answers twice")
        async def twice(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("once")
            interaction.response._response_type = None  # as if a second process had received it too
            try:
                await interaction.response.send_message("twice")
            except discord.HTTPException as exc:
                self.second_answer = exc

        self.tree.add_command(who)
        self.tree.add_command(twice)
        await self.tree.sync()

    async def start_on(self, emulator: DiscordEmulator) -> None:
        self.runner = asyncio.create_task(self.start(emulator.token))
        ready = asyncio.create_task(self.wait_until_ready())
        await asyncio.wait({self.runner, ready}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():
            ready.cancel()
            await self.stop()
            raise TimeoutError(f"{self.name} never became ready")

    async def stop(self) -> None:
        await self.close()
        if self.runner is not None:
            await self.runner


def _shard_of(interaction: discord.Interaction[Any]) -> int | None:
    guild = interaction.guild
    return guild.shard_id if guild is not None else None


@pytest.fixture
def emulator_answer_timeout() -> float:
    return 3.0


@pytest.fixture
def emulator_options() -> dict[str, Any]:
    return {"shards": SHARDS}


@pytest.fixture(autouse=True)
def guild_on_each_shard(emulator: DiscordEmulator) -> None:
    """One more guild on each shard (three in all), before any bot connects."""
    for shard in range(SHARDS):
        emulator.add_guild(f"Shard {shard} Club", shard=(shard, SHARDS))


def guilds_on(emulator: DiscordEmulator, shard: int) -> set[int]:
    return {g for g in emulator.state.guilds if shard_of(g, SHARDS) == shard}


def first_channel(emulator: DiscordEmulator, guild_id: int) -> Any:
    channel = next((c for c in emulator.state.channels.values() if c.guild_id == guild_id), None)
    if channel is None:
        channel = emulator.add_channel("checkers", guild=emulator.state.guilds[guild_id])
    return channel


async def test_add_guild_places_the_guild_on_the_shard_asked_for(emulator: DiscordEmulator) -> None:
    for shard in range(4):
        guild: Guild = emulator.add_guild(f"club {shard}", shard=(shard, 4))
        assert (guild.id >> 22) % 4 == shard == shard_of(guild.id, 4)
        assert set(guild.member_ids) == set(emulator.state.users)


async def test_autosharded_bot_runs_the_count_gateway_bot_reports(emulator: DiscordEmulator) -> None:
    headers = {"Authorization": f"Bot {emulator.token}"}
    async with aiohttp.ClientSession(headers=headers) as http, http.get(f"{emulator.api_url}/gateway/bot") as response:
        gateway = json.loads(await response.read())
    assert gateway["shards"] == SHARDS and gateway["url"].startswith("ws://127.0.0.1:")
    assert set(gateway["session_start_limit"]) == {"total", "remaining", "reset_after", "max_concurrency"}

    bot = ShardBot("all")  # no shard_count: it asks GET /gateway/bot
    await bot.start_on(emulator)
    try:
        assert bot.shard_count == SHARDS and sorted(bot.shards) == [0, 1]
        assert sorted(emulator.gateway.shards) == [(0, SHARDS), (1, SHARDS)]
        assert {g.id for g in bot.guilds} == set(emulator.state.guilds)
        assert all(g.shard_id == shard_of(g.id, SHARDS) for g in bot.guilds)
        for guild_id in emulator.state.guilds:
            reply = await emulator.invoke(emulator.user("bob"), ["who"], channel=first_channel(emulator, guild_id))
            assert reply.message.content == f"all shard {shard_of(guild_id, SHARDS)}"
            assert reply.interaction.delivered_to == [(shard_of(guild_id, SHARDS), SHARDS)]
    finally:
        await bot.stop()


async def test_two_processes_each_get_only_their_shards_guilds_and_interactions(emulator: DiscordEmulator) -> None:
    bots = [ShardBot(f"bot{shard}", [shard], SHARDS) for shard in range(SHARDS)]
    for bot in bots:
        await bot.start_on(emulator)
    try:
        for shard, bot in enumerate(bots):
            assert {g.id for g in bot.guilds} == guilds_on(emulator, shard), "READY and GUILD_CREATE of its shard only"
        boards = []
        for guild_id in emulator.state.guilds:
            owner = shard_of(guild_id, SHARDS)
            reply = await emulator.invoke(emulator.user("alice"), ["who"], channel=first_channel(emulator, guild_id))
            assert reply.message.content == f"bot{owner} shard {owner}"
            boards.append((owner, reply.message))
        for owner, board in boards:  # a click on a message is answered by the owner of its guild's shard
            clicked = await emulator.click(emulator.user("carol"), board, "who:0")
            assert clicked.message.content == f"1 by bot{owner}"
        records = list(emulator.state.interactions.values())
        assert len(records) == 2 * len(emulator.state.guilds)
        for record in records:
            guild_id = emulator.state.channels[record.channel_id].guild_id
            assert record.delivered_to == [(shard_of(guild_id, SHARDS), SHARDS)], "delivered once, to its shard"
            assert record.callbacks == 1 and record.answered, "answered exactly once"
            assert record.latency is not None and record.latency < 3.0

        # while shard 1's process is gone the other shard's guilds still work; then a new process takes shard 1
        await bots[1].stop()
        await eventually(lambda: emulator.gateway.shards == [(0, SHARDS)], what="shard 1 disconnected")
        for guild_id in guilds_on(emulator, 0):
            reply = await emulator.invoke(emulator.user("alice"), ["who"], channel=first_channel(emulator, guild_id))
            assert reply.message.content == "bot0 shard 0"
        restarted = ShardBot("bot1-again", [1], SHARDS)
        await restarted.start_on(emulator)
        bots[1] = restarted
        for owner, board in boards:  # old buttons, answered by whoever owns their shard now
            clicked = await emulator.click(emulator.user("bob"), board, "who:1")
            assert clicked.message.content == ("2 by bot0" if owner == 0 else "2 by bot1-again")
    finally:
        for bot in bots:
            await bot.stop()


async def test_an_interaction_answered_twice_gets_40060(emulator: DiscordEmulator) -> None:
    bot = ShardBot("all", shard_count=SHARDS)
    await bot.start_on(emulator)
    try:
        reply = await emulator.invoke(emulator.user("alice"), ["twice"])
        assert reply.message.content == "once"
        await eventually(lambda: bot.second_answer is not None, what="the second answer's refusal")
        assert bot.second_answer is not None
        assert (bot.second_answer.status, bot.second_answer.code) == (400, 40060)
        assert reply.interaction.callbacks == 2
    finally:
        await bot.stop()


async def test_unsharded_client_gets_every_guild(emulator: DiscordEmulator) -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
    runner = asyncio.create_task(bot.start(emulator.token))
    try:
        await asyncio.wait_for(bot.wait_until_ready(), 10)
        assert {g.id for g in bot.guilds} == set(emulator.state.guilds)
        assert emulator.gateway.shards == [None]
    finally:
        await bot.close()
        await runner


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], "0,1"])
async def test_identify_with_an_impossible_shard_is_closed_with_4010(emulator: DiscordEmulator, shard: Any) -> None:
    async with aiohttp.ClientSession() as http, http.ws_connect(emulator.gateway_url) as ws:
        hello = await ws.receive_json()
        assert hello["op"] == 10
        await ws.send_json({"op": 2, "d": {"token": emulator.token, "intents": 1, "properties": {}, "shard": shard}})
        message = await ws.receive()
        assert message.type is aiohttp.WSMsgType.CLOSE and ws.close_code == 4010
    assert emulator.gateway.identifies == 0


async def test_heartbeats_are_acknowledged_after_a_round_trip(caplog: pytest.LogCaptureFixture) -> None:
    """discord.py times a heartbeat from when its keep-alive thread has sent it; an ACK faster than that thread is
    measured from the heartbeat before: "Can't keep up, shard ID 0 websocket is 10.2s behind" (41 s at Discord's
    interval). Eight shards beating every 10.2 s (just over the 10 s discord.py warns at) hit that race if the
    emulator answers at once."""
    count, interval = 8, 10.2
    emulator = DiscordEmulator(shards=count, heartbeat_interval=interval)
    await emulator.start()
    caplog.set_level(logging.WARNING, logger="discord.gateway")
    try:
        with patch_discordpy(emulator):
            bot = ShardBot("beating", shard_count=count)
            await bot.start_on(emulator)
            try:
                # one heartbeat on HELLO, one after the interval, from every shard
                await eventually(lambda: emulator.gateway.heartbeats >= 2 * count, within=3 * interval, what="beats")
                await eventually(lambda: all(s.latency < 1.0 for s in bot.shards.values()), what="acks")
            finally:
                await bot.stop()
    finally:
        await emulator.stop()
    behind = [r.getMessage() for r in caplog.records if "Can't keep up" in r.getMessage()]
    assert behind == []
