"""The emulator as Discord is for a user-installed app (issue 23): each interaction's context and authorizing owners
reach the real discord.py client in a guild, the DM with the bot, a group DM and a guild without the bot; channel
routes where the bot is not answer 403 Missing Access (and are recorded) while the interaction webhook keeps working;
follow-ups are capped where only the user install authorised the interaction; tokens expire after 15 minutes on the
emulator's clock; a command is offered only in the contexts and installs it declares."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.emulator import Channel, DiscordEmulator, User


class Again(discord.ui.View):
    def __init__(self, bot: PlayAnywhereBot) -> None:
        super().__init__(timeout=None)
        self.bot = bot

    @discord.ui.button(label="Again", custom_id="where:again")
    async def again(self, interaction: discord.Interaction, button: discord.ui.Button[Again]) -> None:
        self.bot.seen.append(interaction)
        await interaction.response.edit_message(content=f"again in {interaction.context}")


class PlayAnywhereBot(commands.Bot):
    """A bot with commands installable on servers and on accounts, usable everywhere, and one left to the defaults."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=discord.Intents.default(), guild_ready_timeout=0.05
        )
        self.ready = asyncio.Event()
        self.seen: list[discord.Interaction] = []
        self.followup_errors: list[int] = []
        self.spammed = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self.add_view(Again(self))
        everywhere = app_commands.allowed_installs(guilds=True, users=True)
        anywhere = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)

        @everywhere
        @anywhere
        @app_commands.command(name="where", description="Say where this is")
        async def where(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.send_message(f"in {interaction.context}", view=Again(self))

        @everywhere
        @anywhere
        @app_commands.command(name="spam", description="Six follow-ups")
        async def spam(interaction: discord.Interaction) -> None:
            self.seen.append(interaction)
            await interaction.response.defer()
            await interaction.followup.send("first")  # fills the deferred response: not a follow-up message
            for n in range(6):
                try:
                    await interaction.followup.send(f"follow-up {n + 1}")
                except discord.HTTPException as error:
                    self.followup_errors.append(error.code)
            self.spammed.set()

        @everywhere
        @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
        @app_commands.command(name="nogroup", description="Not in DMs or group DMs between people")
        async def nogroup(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok")

        @app_commands.command(name="plain", description="Registered without integration types or contexts")
        async def plain(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok")

        for command in (where, spam, nogroup, plain):
            self.tree.add_command(command)
        await self.tree.sync()

    async def on_ready(self) -> None:
        self.ready.set()


@pytest.fixture
def emulator_answer_timeout() -> float:
    return 3.0


@pytest.fixture
async def bot(emulator: DiscordEmulator) -> AsyncIterator[PlayAnywhereBot]:
    client = PlayAnywhereBot()
    client.runner = asyncio.create_task(client.start(emulator.token))
    await asyncio.wait_for(client.ready.wait(), 5)
    try:
        yield client
    finally:
        await client.close()
        await client.runner


@pytest.fixture
def alice(emulator: DiscordEmulator) -> User:
    return emulator.user("alice")


def places(emulator: DiscordEmulator, alice: User) -> dict[str, Channel]:
    strangers = emulator.add_guild("No Bot Here", bot=False)
    return {
        "guild": emulator.channel,
        "bot_dm": emulator.dm(alice),
        "group_dm": emulator.group_dm([alice, emulator.user("bob"), emulator.user("carol")], name="friends"),
        "dm_with_bob": emulator.dm(alice, emulator.user("bob")),
        "guild_without_bot": emulator.add_channel("general", guild=strangers),
    }


@pytest.mark.parametrize(
    ("place", "installed", "context", "owners", "guild_integration", "user_integration"),
    [
        ("guild", False, "guild", {0}, True, False),
        ("guild", True, "guild", {0, 1}, True, True),
        ("bot_dm", True, "dm_channel", {0, 1}, False, True),
        ("group_dm", True, "private_channel", {1}, False, True),
        ("dm_with_bob", True, "private_channel", {1}, False, True),
        ("guild_without_bot", True, "guild", {1}, False, True),
    ],
)
async def test_context_and_owners_reach_discordpy(
    emulator: DiscordEmulator,
    bot: PlayAnywhereBot,
    alice: User,
    place: str,
    installed: bool,
    context: str,
    owners: set[int],
    guild_integration: bool,
    user_integration: bool,
) -> None:
    if installed:
        emulator.install(alice)
    channel = places(emulator, alice)[place]
    reply = await emulator.invoke(alice, ["where"], channel=channel)
    interaction = bot.seen[-1]
    assert (
        getattr(interaction.context, context)
        and sum((interaction.context.guild, interaction.context.dm_channel, interaction.context.private_channel)) == 1
    )
    assert set(interaction._integration_owners) == owners
    assert interaction.is_guild_integration() is guild_integration
    assert interaction.is_user_integration() is user_integration
    assert interaction.user.id == alice.id and interaction.channel_id == channel.id
    assert reply.message.channel_id == channel.id and reply.message.content == f"in {interaction.context}"
    assert reply.message.interaction_metadata is not None
    assert set(reply.message.interaction_metadata["authorizing_integration_owners"]) == {str(k) for k in owners}
    # a click on the response is authorised as the command was, in the same context
    await emulator.click(emulator.user("bob"), reply.message, "where:again")
    click = bot.seen[-1]
    assert (
        click.type is discord.InteractionType.component
        and getattr(click.context, context)
        and repr(click.context) == repr(interaction.context)
    )
    assert click._integration_owners == interaction._integration_owners
    assert reply.message.content == f"again in {interaction.context}"
    assert emulator.refused_calls == []  # the bot answered through the interaction only


async def test_guild_without_bot_is_unknown_to_the_bot(emulator: DiscordEmulator, alice: User) -> None:
    hidden = emulator.add_guild("No Bot Here", bot=False)
    client = PlayAnywhereBot()
    client.runner = asyncio.create_task(client.start(emulator.token))
    try:
        await asyncio.wait_for(client.ready.wait(), 5)
        assert client.get_guild(emulator.guild.id) is not None
        assert client.get_guild(hidden.id) is None and emulator.bot_user.id not in hidden.member_ids
        emulator.install(alice)
        await emulator.invoke(alice, ["where"], channel=emulator.add_channel("general", guild=hidden))
        assert client.seen[-1].guild_id == hidden.id and client.get_guild(hidden.id) is None
    finally:
        await client.close()
        await client.runner


@pytest.mark.parametrize("place", ["group_dm", "dm_with_bob", "guild_without_bot"])
async def test_channel_routes_where_the_bot_is_not_answer_missing_access(
    emulator: DiscordEmulator, bot: PlayAnywhereBot, alice: User, place: str
) -> None:
    emulator.install(alice)
    channel = places(emulator, alice)[place]
    reply = await emulator.invoke(alice, ["where"], channel=channel)
    messageable = bot.get_partial_messageable(channel.id)
    attempts = {
        "send": messageable.send("hello"),
        "fetch": messageable.fetch_message(reply.message.id),
        "history": anext(messageable.history(limit=5)),
        "edit": messageable.get_partial_message(reply.message.id).edit(content="edited"),
        "thread": bot.http.start_thread_without_message(channel.id, name="game", auto_archive_duration=60, type=11),
    }
    for name, attempt in attempts.items():
        with pytest.raises(discord.Forbidden) as refused:
            await attempt
        assert refused.value.status == 403 and refused.value.code == 50001, name
    assert len(emulator.refused_calls) == len(attempts)
    assert emulator.refused_calls[0] == f"POST /api/v10/channels/{channel.id}/messages"
    assert all(f"/channels/{channel.id}/" in call for call in emulator.refused_calls)
    assert reply.message.content.startswith("in ")  # nothing reached the channel
    assert len(emulator.messages(channel)) == 1


async def test_channel_routes_work_where_the_bot_is(
    emulator: DiscordEmulator, bot: PlayAnywhereBot, alice: User
) -> None:
    emulator.install(alice)
    for channel in (emulator.channel, emulator.dm(alice)):
        sent = await bot.get_partial_messageable(channel.id).send("hello")
        assert sent.content == "hello" and emulator.last_message(channel) is not None
    assert emulator.refused_calls == []


@pytest.mark.parametrize(
    ("place", "errors"),
    [
        ("group_dm", [40094]),
        ("guild_without_bot", [40094]),
        ("guild", []),  # the server install authorised it too: no cap
    ],
)
async def test_followups_are_capped_where_only_the_user_install_authorised(
    emulator: DiscordEmulator, bot: PlayAnywhereBot, alice: User, place: str, errors: list[int]
) -> None:
    emulator.install(alice)
    channel = places(emulator, alice)[place]
    handle = emulator.invoke(alice, ["spam"], channel=channel)
    await handle
    await asyncio.wait_for(bot.spammed.wait(), 5)
    assert bot.followup_errors == errors
    sent = [m.content for m in emulator.messages(channel) if m.content.startswith("follow-up")]
    assert sent == [f"follow-up {n}" for n in range(1, 7 - len(errors))]
    assert handle.record.followups == 6 - len(errors)


async def test_token_expires_after_15_minutes_on_the_emulator_clock(
    emulator: DiscordEmulator, bot: PlayAnywhereBot, alice: User
) -> None:
    emulator.install(alice)
    channel = places(emulator, alice)["group_dm"]
    await emulator.invoke(alice, ["where"], channel=channel)
    interaction = bot.seen[-1]
    emulator.advance_clock(14 * 60)
    still = await interaction.followup.send("still here", wait=True)
    assert still.content == "still here"
    emulator.advance_clock(61)
    for attempt in (
        interaction.followup.send("too late", wait=True),
        interaction.edit_original_response(content="too late"),
        interaction.original_response(),
    ):
        with pytest.raises(discord.HTTPException) as expired:
            await attempt
        assert expired.value.status == 401 and expired.value.code == 50027
    assert [m.content for m in emulator.messages(channel)][-1] == "still here"


async def test_a_late_first_response_after_15_minutes_gets_invalid_token(
    bot: PlayAnywhereBot, alice: User, emulator: DiscordEmulator
) -> None:
    emulator.callbacks.response_deadline = None
    reply = emulator.invoke(alice, ["plain"])
    emulator.advance_clock(15 * 60 + 1)  # before the bot answers: its callback comes too late
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(reply.wait(), 1)
    assert not reply.record.answered and reply.record.callbacks == 1


@pytest.mark.parametrize(
    ("command", "place", "installed", "offered"),
    [
        ("nogroup", "group_dm", True, False),
        ("nogroup", "dm_with_bob", True, False),
        ("nogroup", "guild_without_bot", True, True),
        ("nogroup", "bot_dm", True, True),
        ("where", "group_dm", False, False),  # alice never installed the app: nothing reaches a group DM
        ("where", "guild_without_bot", False, False),
        ("plain", "group_dm", True, False),  # defaults: the server install only
        ("plain", "guild_without_bot", True, False),
        ("plain", "guild", False, True),
        ("plain", "bot_dm", False, True),
    ],
)
async def test_commands_are_offered_only_in_their_contexts_and_installs(
    emulator: DiscordEmulator,
    bot: PlayAnywhereBot,
    alice: User,
    command: str,
    place: str,
    installed: bool,
    offered: bool,
) -> None:
    if installed:
        emulator.install(alice)
    channel = places(emulator, alice)[place]
    if offered:
        reply = await emulator.invoke(alice, [command], channel=channel)
        assert reply.message.content == "ok"
    else:
        with pytest.raises(ValueError, match="not offered"):
            emulator.invoke(alice, [command], channel=channel)
        assert not emulator.state.interactions


async def test_registered_contexts_and_integration_types(emulator: DiscordEmulator, bot: PlayAnywhereBot) -> None:
    by_name = {c.name: c.payload for c in emulator.registered_commands()}
    assert by_name["where"]["integration_types"] == [0, 1] and by_name["where"]["contexts"] == [0, 1, 2]
    assert by_name["nogroup"]["contexts"] == [0, 1]
    assert by_name["plain"].get("contexts") is None and by_name["plain"].get("integration_types") is None
