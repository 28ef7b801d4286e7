"""The Discord emulator against the real, unmodified discord.py client: login, sync, slash commands,
autocomplete, ephemerals, deferrals, threads, components that survive a restart, RESUME, deadlines and nonces."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.emulator import DiscordEmulator, EmulatorEvent, Message, patch_discordpy
from tests.support import eventually

VARIANTS = ["american", "brazilian", "russian", "russian-giveaway"]


class CountButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"demo:count:(?P<n>[0-9]+)"
):
    """A counter whose state lives in its custom_id, so any client instance can handle it."""

    def __init__(self, count: int) -> None:
        super().__init__(discord.ui.Button(label=f"Clicked {count}", custom_id=f"demo:count:{count}"))
        self.count = count

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[discord.ui.View], match: re.Match[str]
    ) -> CountButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        content, view = f"count={self.count + 1}", board_view(self.count + 1)
        if self.count % 2 == 0:
            await interaction.response.edit_message(content=content, view=view)
        else:  # a deferred update answered by editing the original, the other way to update a board
            await interaction.response.defer()
            await interaction.edit_original_response(content=content, view=view)


class ColourSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]], template=r"demo:colour:(?P<g>[0-9]+)"
):
    def __init__(self, game: int) -> None:
        options = [
            discord.SelectOption(label="Red", value="red"),
            discord.SelectOption(label="White", value="white"),
        ]
        super().__init__(discord.ui.Select(custom_id=f"demo:colour:{game}", options=options))
        self.game = game

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[discord.ui.View], match: re.Match[str]
    ) -> ColourSelect:
        return cls(int(match["g"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            f"game {self.game}: you chose {self.item.values}", ephemeral=True
        )


def board_view(count: int, game: int = 7) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(CountButton(count))
    view.add_item(ColourSelect(game))
    return view


def demo_commands() -> list[app_commands.Command[..., None] | app_commands.Group]:
    """Fresh command objects for each bot instance."""
    demo = app_commands.Group(name="demo", description="Demo commands")
    admin = app_commands.Group(name="admin", description="Admin commands", parent=demo)

    @demo.command(description="Start a game")
    async def play(
        interaction: discord.Interaction,
        opponent: discord.Member,
        level: app_commands.Range[int, 1, 10],
        variant: str,
    ) -> None:
        kind = type(opponent).__name__
        text = f"{interaction.user.name} vs {opponent.name} ({kind}) level={level!r} variant={variant!r}"
        await interaction.response.send_message(text, view=board_view(0))

    @play.autocomplete("variant")
    async def variant_choices(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=v, value=v) for v in VARIANTS if v.startswith(current)]

    @admin.command(description="Reset everything")
    async def reset(interaction: discord.Interaction, confirm: bool) -> None:
        await interaction.response.send_message(f"reset confirm={confirm!r}")

    @app_commands.command(description="A secret")
    async def secret(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you can see this", ephemeral=True)

    @app_commands.command(description="Think, then answer with a file")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        assert interaction.channel is not None
        async with interaction.channel.typing():
            await asyncio.sleep(0.05)
        await interaction.followup.send(
            "done thinking", file=discord.File(io.BytesIO(b"PNG-bytes"), "board.png")
        )
        await interaction.edit_original_response(content="done thinking, edited")

    @app_commands.command(description="Say something, then take it back")
    async def vanish(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("poof")
        await interaction.delete_original_response()

    @app_commands.command(description="Open game threads")
    async def thread(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("opening a thread")
        original = await interaction.original_response()
        game = await original.create_thread(name="game-1")
        first = await game.send("first move")
        await first.edit(content="first move: 11-15")
        assert (await game.fetch_message(first.id)).content == "first move: 11-15"
        assert isinstance(interaction.channel, discord.TextChannel)
        side = await interaction.channel.create_thread(name="side", type=discord.ChannelType.public_thread)
        await (await side.send("scratch")).delete()
        await side.send("analysis", file=discord.File(io.BytesIO(b"11-15 23-19"), "moves.txt"))

    @app_commands.command(description="Answers too late")
    async def late(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.3)
        await interaction.response.send_message("sorry")

    return [demo, secret, slow, vanish, thread, late]


class DemoBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.05,
        )
        self.ready = asyncio.Event()
        self.runner: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CountButton, ColourSelect)
        for command in demo_commands():
            self.tree.add_command(command)
        await self.tree.sync()

    async def on_ready(self) -> None:
        self.ready.set()


async def start_bot(emulator: DiscordEmulator) -> DemoBot:
    bot = DemoBot()
    bot.runner = asyncio.create_task(bot.start(emulator.token))
    ready = asyncio.create_task(bot.ready.wait())
    await asyncio.wait({bot.runner, ready}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
    if not ready.done():
        ready.cancel()
        await bot.close()
        await bot.runner  # raises what start() raised
        raise TimeoutError("the bot never became ready")
    return bot


async def stop_bot(bot: DemoBot) -> None:
    await bot.close()
    if bot.runner is not None:
        await bot.runner


@pytest.fixture
def emulator_answer_timeout() -> float:
    return 2.0


@pytest.fixture
async def bot(emulator: DiscordEmulator) -> AsyncIterator[DemoBot]:
    client = await start_bot(emulator)
    try:
        yield client
    finally:
        await stop_bot(client)


def custom_ids(message: Message) -> list[str]:
    return [c["custom_id"] for c in message.iter_components() if "custom_id" in c]


async def test_login_ready_and_command_sync(emulator: DiscordEmulator, bot: DemoBot) -> None:
    assert bot.user is not None and bot.user.id == emulator.bot_user.id
    assert bot.application_id == emulator.bot_user.id
    guild = bot.get_guild(emulator.guild.id)
    assert guild is not None and guild.get_channel(emulator.channel.id).name == "checkers"  # type: ignore[union-attr]
    assert guild.member_count == 4 and guild.me.name == "King Me"  # others are not cached without the intent
    commands_by_name = {c.name: c for c in emulator.registered_commands()}
    assert set(commands_by_name) == {"demo", "secret", "slow", "vanish", "thread", "late"}
    play = next(o for o in commands_by_name["demo"].options if o["name"] == "play")
    assert [(o["name"], o["type"]) for o in play["options"]] == [
        ("opponent", 6),
        ("level", 4),
        ("variant", 3),
    ]
    assert play["options"][2]["autocomplete"] is True

    ids = {c.name: c.id for c in emulator.registered_commands()}
    await bot.tree.sync()
    assert {c.name: c.id for c in emulator.registered_commands()} == ids, "a re-sync keeps command ids"
    fetched = await bot.tree.fetch_commands()
    assert {c.id for c in fetched} == set(ids.values())

    target = discord.Object(id=emulator.guild.id)
    bot.tree.copy_global_to(guild=target)
    await bot.tree.sync(guild=target)
    assert {c.guild_id for c in emulator.registered_commands()} == {None, emulator.guild.id}
    reply = await emulator.invoke(emulator.user("alice"), ["secret"])  # resolved as the guild command
    assert reply.message.content == "only you can see this"


async def test_patch_discordpy_points_at_the_emulator_and_restores() -> None:
    def targets() -> tuple[str, str]:
        return discord.http.Route.BASE, str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)

    assert targets() == ("https://discord.com/api/v10", "wss://gateway.discord.gg/")
    async with DiscordEmulator() as emu:
        with patch_discordpy(emu):
            patched = targets()
    assert patched == (f"http://127.0.0.1:{emu.port}/api/v10", f"ws://127.0.0.1:{emu.port}/gateway/")
    assert targets() == ("https://discord.com/api/v10", "wss://gateway.discord.gg/")


async def test_user_actions_need_a_connected_bot(emulator: DiscordEmulator) -> None:
    board = Message(
        emulator.state.snowflake(),
        emulator.channel.id,
        emulator.guild.id,
        emulator.bot_user,
        components=[{"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "x"}]}],
    )
    emulator.state.add_message(board)
    with pytest.raises(RuntimeError, match="no bot is connected"):
        emulator.click(emulator.user("alice"), board, "x")


async def test_bad_token_raises_login_failure(emulator: DiscordEmulator) -> None:
    client = discord.Client(intents=discord.Intents.none())
    try:
        with pytest.raises(discord.LoginFailure):
            await client.login("not-" + emulator.token)
    finally:
        await client.close()


async def test_slash_command_options_arrive_typed(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice, bob = emulator.user("alice"), emulator.user("bob")
    loop = asyncio.get_running_loop()
    sent = loop.time()
    reply = await emulator.invoke(
        alice, ["demo", "play"], {"opponent": bob, "level": "3", "variant": "russian"}
    )
    answered = loop.time()
    assert reply.message.content == "alice vs bob (Member) level=3 variant='russian'"
    assert custom_ids(reply.message) == ["demo:count:0", "demo:colour:7"]
    assert reply.message.interaction_metadata is not None
    assert reply.message.interaction_metadata["name"] == "demo play"
    assert reply.interaction.response_type == 4
    assert reply.interaction.latency is not None and 0 <= reply.interaction.latency <= answered - sent
    assert emulator.last_message() is reply.message
    await eventually(lambda: any(m.id == reply.message.id for m in bot.cached_messages))  # MESSAGE_CREATE

    nested = await emulator.invoke(bob, ["demo", "admin", "reset"], {"confirm": "true"})
    assert nested.message.content == "reset confirm=True"


async def test_options_are_checked_like_the_discord_client(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice, bob = emulator.user("alice"), emulator.user("bob")
    good = {"opponent": bob, "level": 3, "variant": "russian"}
    bad_calls: list[tuple[list[str], dict[str, object]]] = [
        (["demo", "play"], good | {"colour": "red"}),
        (["demo", "play"], {"opponent": bob, "level": 3}),
        (["demo", "play"], good | {"level": "three"}),
        (["demo", "play"], good | {"level": 11}),
        (["demo"], {}),
        (["demo", "stop"], {}),
        (["chess"], {}),
    ]
    for path, options in bad_calls:
        with pytest.raises(ValueError):
            emulator.invoke(alice, path, options)
    assert emulator.state.interactions == {}


async def test_autocomplete_returns_the_bots_choices(emulator: DiscordEmulator, bot: DemoBot) -> None:
    reply = await emulator.autocomplete(
        emulator.user("alice"), ["demo", "play"], {"variant": "rus"}, "variant"
    )
    assert reply.choices == [
        {"name": "russian", "value": "russian"},
        {"name": "russian-giveaway", "value": "russian-giveaway"},
    ]
    assert reply.interaction.response_type == 8 and reply.messages == []


async def test_ephemeral_reply_is_visible_only_to_its_user(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice, bob = emulator.user("alice"), emulator.user("bob")
    reply = await emulator.invoke(alice, ["secret"])
    assert reply.message.ephemeral and reply.message.visible_to == alice.id
    assert reply.message in emulator.messages(visible_to=alice)
    assert reply.message not in emulator.messages(visible_to=bob)
    assert reply.message not in emulator.messages()
    assert emulator.last_message(visible_to=bob) is None
    public = await emulator.invoke(bob, ["demo", "admin", "reset"], {"confirm": False})
    await eventually(lambda: any(m.id == public.message.id for m in bot.cached_messages))
    assert all(m.id != reply.message.id for m in bot.cached_messages), "ephemerals are not dispatched"
    with pytest.raises(ValueError):
        emulator.click(bob, reply.message, "anything")


async def test_defer_then_followup_fills_the_thinking_message(
    emulator: DiscordEmulator, bot: DemoBot
) -> None:
    reply = await emulator.invoke(emulator.user("carol"), ["slow"])
    assert reply.interaction.response_type == 5
    assert len(reply.messages) == 1 and reply.message.id == reply.interaction.original_message_id
    assert reply.message.content == "done thinking" and not reply.message.loading
    assert [(a.filename, a.data) for a in reply.message.attachments] == [("board.png", b"PNG-bytes")]
    url = emulator.message_json(reply.message)["attachments"][0]["url"]
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert await response.read() == b"PNG-bytes"
    await eventually(lambda: reply.message.content == "done thinking, edited")
    assert reply.message.attachments and reply.message.edited_at is not None


async def test_deleted_response_disappears_for_everyone(emulator: DiscordEmulator, bot: DemoBot) -> None:
    reply = await emulator.invoke(emulator.user("alice"), ["vanish"])
    assert reply.message.content == "poof"
    await eventually(lambda: reply.message.id not in emulator.state.messages)
    assert all(m.content != "poof" for m in emulator.messages())


async def test_thread_commands_create_threads_the_bot_knows(emulator: DiscordEmulator, bot: DemoBot) -> None:
    events: list[EmulatorEvent] = []
    emulator.subscribe(events.append)
    reply = await emulator.invoke(emulator.user("alice"), ["thread"])
    await emulator.wait_for(
        "message_create", lambda e: e.message is not None and e.message.content == "analysis"
    )
    game, side = emulator.threads()
    assert (game.name, game.id, game.parent_id) == ("game-1", reply.message.id, emulator.channel.id)
    assert reply.message.thread_id == game.id
    [first] = emulator.messages(game)
    assert first.content == "first move: 11-15" and first.edited_at is not None
    [analysis] = emulator.messages(side)
    assert analysis.attachments[0].data == b"11-15 23-19"
    assert analysis.attachments[0].content_type == "text/plain"
    assert [e.channel for e in events if e.kind == "thread_create"] == [game, side]
    await eventually(lambda: all(isinstance(bot.get_channel(t.id), discord.Thread) for t in (game, side)))


async def test_dynamic_button_works_after_the_bot_restarts(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice, bob = emulator.user("alice"), emulator.user("bob")
    started = await emulator.invoke(
        alice, ["demo", "play"], {"opponent": bob, "level": 1, "variant": "american"}
    )
    board = started.message
    clicked = await emulator.click(alice, board, "demo:count:0")
    assert clicked.message is board and board.content == "count=1" and board.edited_at is not None
    assert clicked.interaction.response_type == 7
    assert custom_ids(board) == ["demo:count:1", "demo:colour:7"]
    deferred = await emulator.click(bob, board, "demo:count:1")
    assert (
        deferred.interaction.response_type == 6 and deferred.message is board and board.content == "count=2"
    )

    await stop_bot(bot)
    await eventually(lambda: not emulator.connected)
    restarted = await start_bot(emulator)
    try:
        again = await emulator.click(bob, board, "demo:count:2")
        assert again.message is board and board.content == "count=3"
        assert emulator.gateway.identifies == 2
    finally:
        await stop_bot(restarted)


async def test_string_select_answers_the_chooser(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice, bob = emulator.user("alice"), emulator.user("bob")
    board = (
        await emulator.invoke(alice, ["demo", "play"], {"opponent": bob, "level": 2, "variant": "russian"})
    ).message
    picked = await emulator.select(bob, board, "demo:colour:7", ["white"])
    assert picked.message.content == "game 7: you chose ['white']"
    assert picked.message.visible_to == bob.id and picked.message.ephemeral
    with pytest.raises(ValueError):
        emulator.select(bob, board, "demo:colour:7", ["green"])
    with pytest.raises(ValueError):
        emulator.click(bob, board, "demo:colour:7")


async def test_gateway_resume_after_reconnect_request(emulator: DiscordEmulator, bot: DemoBot) -> None:
    resumed = bot.wait_for("resumed", timeout=3)  # listens from this call on
    emulator.request_reconnect()
    await resumed
    assert (emulator.gateway.identifies, emulator.gateway.resumes) == (1, 1)
    reply = await emulator.invoke(emulator.user("alice"), ["secret"])
    assert reply.message.content == "only you can see this"


async def test_unanswered_and_late_interactions_are_recorded(emulator: DiscordEmulator, bot: DemoBot) -> None:
    alice = emulator.user("alice")
    orphan = Message(
        emulator.state.snowflake(),
        emulator.channel.id,
        emulator.guild.id,
        emulator.bot_user,
        content="a button nobody handles",
        components=[
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "?", "custom_id": "nobody:handles"}]}
        ],
    )
    emulator.state.add_message(orphan)
    emulator.answer_timeout = 0.2
    ignored = emulator.click(alice, orphan, "nobody:handles")
    with pytest.raises(TimeoutError, match="never answered"):
        await ignored
    assert not ignored.record.answered and ignored.record.latency is None

    emulator.callbacks.response_deadline = 0.2
    late = emulator.invoke(alice, ["late"])
    await eventually(lambda: late.record.responded_at is not None)
    assert not late.record.answered
    assert late.record.latency is not None and late.record.latency > 0.2
    assert "sorry" not in [m.content for m in emulator.messages(visible_to=alice)]


async def test_a_message_sent_again_with_its_nonce_is_returned_not_made_twice(
    emulator: DiscordEmulator, bot: DemoBot
) -> None:
    channel = bot.get_channel(emulator.channel.id)
    assert isinstance(channel, discord.TextChannel)
    first = await channel.send("daily", nonce="kd20260302abc")  # discord.py enforces a nonce it is given
    again = await channel.send("daily, again", nonce="kd20260302abc")
    assert again.id == first.id and again.content == "daily"
    other = await channel.send("another day", nonce="kd20260303abc")
    assert other.id != first.id
    assert [m.content for m in emulator.messages()].count("daily") == 1
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("too long a nonce", nonce="x" * 26)
    assert refused.value.status == 400
