"""``kingme sandbox --data DIR``: the games (the embedded Redis's data) and the emulated Discord (its world file) stay
in DIR, so after a restart the channel shows the same messages and the old board's menus and buttons still work. A
world file that cannot be read stops the start with one line and is left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.emulator import AppEmoji, Attachment, DiscordEmulator, Message, RegisteredCommand, WorldKeeper
from bot.runtime import StartupError
from bot.sandbox_runtime import WORLD_FILE, SandboxRuntime
from tests.bot.sandbox.conftest import make_settings
from tests.support import board_in_thread, eventually

TIMEOUT = 20.0
EPHEMERAL = 1 << 6


def option(message: Message, prefix: str, index: int = 0) -> tuple[str, str]:
    """The custom id of the message's select menu that starts with ``prefix``, and its ``index``-th option's value."""
    select = next(c for c in message.iter_components() if str(c.get("custom_id", "")).startswith(prefix))
    return select["custom_id"], select["options"][index]["value"]


def game_id(board: Message) -> str:
    custom_id, _ = option(board, "km:p:")
    return custom_id.split(":")[2]


def version(board: Message) -> int:
    """The game's version the board's piece menu was drawn for (a move by either side adds one); -1 while it has
    none (the AI is thinking)."""
    found = [c["custom_id"] for c in board.iter_components() if str(c.get("custom_id", "")).startswith("km:p:")]
    return int(found[0].split(":")[3]) if found else -1


def button(message: Message, prefix: str) -> str:
    return next(
        c["custom_id"]
        for c in message.iter_components()
        if c.get("type") == 2 and str(c.get("custom_id", "")).startswith(prefix)
    )


def seen(emulator: DiscordEmulator, board: Message) -> dict[str, Any]:
    """What a user sees of the world: the ids of the server, the channel, the users and the bot, the board as it is
    drawn, the emoji tiles and the channel's messages."""
    return {
        "guild": emulator.guild.id,
        "channel": emulator.channel.id,
        "users": {u.name: u.id for u in emulator.state.users.values()},
        "bot": emulator.bot_user.id,
        "board": (board.id, board.content, board.embeds, board.components),
        "emojis": {e.name: e.id for e in emulator.emojis.emojis.values()},
        "messages": [m.id for m in emulator.messages()],
    }


def saved_embeds(data: Path, message_id: int) -> list[Any] | None:
    """A message's embeds as the world file on disk has them now (None: not there)."""
    world = data / WORLD_FILE
    messages = json.loads(world.read_bytes())["messages"] if world.exists() else []
    return next((m["embeds"] for m in messages if m["id"] == message_id), None)


async def move(sandbox: SandboxRuntime, board: Message) -> None:
    """Alice moves her first piece on ``board`` with its menus, and the AI answers."""
    emulator, alice = sandbox.emulator, sandbox.emulator.user("alice")
    before = version(board)
    for prefix in ("km:p:", "km:m:"):  # a piece with one move plays it when chosen: then there is no move menu
        if prefix == "km:m:" and not any(
            str(c.get("custom_id", "")).startswith(prefix) for c in board.iter_components()
        ):
            break
        custom_id, value = option(board, prefix)
        await emulator.select(alice, board, custom_id, [value])
    await eventually(lambda: version(board) >= before + 2, within=TIMEOUT, what="the AI's answer on the board")


async def test_games_and_their_boards_outlive_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    settings = make_settings(tmp_path)
    first = SandboxRuntime(settings, data_dir=data)
    await first.start()
    try:
        emulator = first.emulator
        alice = emulator.user("alice")
        notice = (await emulator.invoke(alice, ["checkers", "play"], {"level": "easy"})).message
        board = await board_in_thread(emulator, notice)
        await move(first, board)
        game = game_id(board)
        assert first.service is not None
        position = (await first.service.state(game)).fen
        before = seen(emulator, board)
        # written while it runs (a crash loses at most the last second), not only at stop
        await eventually(lambda: saved_embeds(data, board.id) == board.embeds, within=TIMEOUT, what="the board saved")
        newest = emulator.state.snowflake.last
    finally:
        await first.stop()
    assert (data / WORLD_FILE).is_file() and (data / "redis").is_dir()

    second = SandboxRuntime(settings, data_dir=data)
    await second.start()
    try:
        emulator = second.emulator
        alice = emulator.user("alice")
        board = emulator.state.messages[board.id]
        assert seen(emulator, board) == before, "the world came back otherwise than it was"
        assert emulator.state.snowflake() > newest, "a new id repeats an old one"
        assert second.service is not None
        assert (await second.service.state(game)).fen == position, "the game came back otherwise than it was"
        # the old board's menus still play the game, and its buttons still work
        played = board.embeds
        await move(second, board)
        assert board.embeds != played
        resign = await emulator.click(alice, board, button(board, "km:b:resign"))
        assert resign.message.ephemeral and button(resign.message, "km:r:"), 'no "Really resign?" after a restart'
    finally:
        await second.stop()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"{ not json", "is not valid JSON"),
        (b'{"hello": "world"}', "is not a King Me sandbox world"),
        (json.dumps({"format": "kingme-discord-world", "version": 99}).encode(), "format version 99"),
        (json.dumps({"format": "kingme-discord-world", "version": 1, "users": "x"}).encode(), "is damaged"),
    ],
)
async def test_a_world_file_that_cannot_be_read_stops_the_start_and_is_left_alone(
    tmp_path: Path, text: bytes, says: str
) -> None:
    data = tmp_path / "kept"
    data.mkdir()
    world = data / WORLD_FILE
    world.write_bytes(text)
    sandbox = SandboxRuntime(make_settings(tmp_path), data_dir=data)
    with pytest.raises(StartupError) as raised:
        await sandbox.start()
    message = str(raised.value)
    assert says in message and str(world) in message and "\n" not in message
    assert world.read_bytes() == text, "the world file was overwritten"


async def test_the_world_file_keeps_threads_attachments_ephemeral_replies_emojis_and_commands(tmp_path: Path) -> None:
    """Everything a page or the bot can see comes back as it was, in the same Discord JSON."""
    path = tmp_path / WORLD_FILE
    emulator = DiscordEmulator()
    alice, bob = emulator.user("alice"), emulator.user("bob")
    thread = emulator.state.add_thread(emulator.channel, "alice vs bob", emulator.bot_user)
    thread.member_ids.add(alice.id)
    pdn = Attachment(emulator.state.snowflake(), "kingme-1.pdn", b'[Event "x"]\n1. 11-15 *', "text/plain")
    for message in (
        Message(emulator.state.snowflake(), emulator.channel.id, emulator.guild.id, alice, content="hi"),
        Message(
            emulator.state.snowflake(),
            thread.id,
            emulator.guild.id,
            emulator.bot_user,
            embeds=[{"title": "board", "description": "<:km1_bk:1>"}],
            components=[{"type": 1, "components": [{"type": 2, "style": 4, "label": "Resign", "custom_id": "km:b"}]}],
            attachments=[pdn],
            flags=EPHEMERAL,
            visible_to=bob.id,
            interaction_metadata={"id": "1", "type": 2, "name": "checkers export"},
        ),
    ):
        emulator.state.add_message(message)
    emulator.emojis.emojis[1] = AppEmoji(1, "km1_bk", b"\x89PNG\r\n\x1a\n...", "image/png")
    command = RegisteredCommand(emulator.state.snowflake(), emulator.bot_user.id, "checkers", 1, None, {"name": "x"})
    emulator.state.commands[command.id] = command
    keeper = WorldKeeper(emulator, path)
    await keeper.start()
    await keeper.stop()

    again = DiscordEmulator()
    assert WorldKeeper(again, path).load()
    for name in ("alice", "bob", "carol", emulator.bot_user.name):
        assert again.user(name).id == emulator.user(name).id
    assert [again.payloads.channel(c) for c in again.state.channels.values()] == [
        emulator.payloads.channel(c) for c in emulator.state.channels.values()
    ]
    assert [again.message_json(m) for m in again.state.messages.values()] == [
        emulator.message_json(m) for m in emulator.state.messages.values()
    ]
    assert again.messages(thread, visible_to=alice) == [] and len(again.messages(thread, visible_to=bob)) == 1
    assert again.state.messages[max(again.state.messages)].attachments[0].data == pdn.data
    assert again.state.messages[max(again.state.messages)].author is again.bot_user
    assert [(e.id, e.name, e.image) for e in again.emojis.emojis.values()] == [(1, "km1_bk", b"\x89PNG\r\n\x1a\n...")]
    commands = [(c.id, c.name, c.payload) for c in again.state.commands.values()]
    assert commands == [(command.id, "checkers", {"name": "x"})]
    assert again.state.snowflake() > emulator.state.snowflake.last
