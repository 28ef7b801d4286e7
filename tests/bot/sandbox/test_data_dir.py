"""``kingme sandbox --data DIR``: the games (the embedded Redis's data) and the emulated Discord (its world file) stay
in DIR, so after a restart the channel shows the same messages and the old board's menus and buttons still work. A
world file that cannot be read stops the start with one line and is left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.emulator import DiscordEmulator, Message
from bot.runtime import StartupError
from bot.sandbox_runtime import WORLD_FILE, SandboxRuntime
from tests.bot.sandbox.conftest import make_settings
from tests.support import eventually

TIMEOUT = 20.0


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
    for prefix in ("km:p:", "km:m:"):
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
        board = (await emulator.invoke(alice, ["checkers", "play"], {"level": "easy"})).message
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
