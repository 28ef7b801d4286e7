"""The emulated Discord world kept in a JSON file across runs (what ``kingme sandbox --data DIR`` keeps): the users,
the guild, its channels and threads, every message with its embeds, components and attachments, the registered
commands, the application's emojis and the snowflake counter. Interactions are not kept (their tokens last minutes).

A :class:`WorldKeeper` restores the file into an emulator before it starts, then writes the world whenever it changed
(checked every ``interval`` seconds, so a crash loses at most that much) and once more at stop. Each write goes to a
temporary file that then replaces the old one, so a crash mid-write leaves the previous world whole. A file that
cannot be read or is not a world is a :class:`WorldFileError` (one line) and is never overwritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ._emojis import AppEmoji
from ._state import Channel, EmulatorEvent, Guild, Message, RegisteredCommand, User

if TYPE_CHECKING:
    from ._server import DiscordEmulator

log = logging.getLogger(__name__)

FORMAT: Final = "kingme-discord-world"
VERSION: Final = 1
SAVE_INTERVAL: Final = 1.0
"""Seconds between checks for changes to write."""


class WorldFileError(Exception):
    """The world file cannot be read, or is not one; the message is one line that names the file."""


class _World(BaseModel):
    """The file's shape; the emulator's own dataclasses, bytes (attachments, emoji images) in base64."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    format: Literal["kingme-discord-world"]
    version: Literal[1]
    snowflake: int
    bot_user_id: int
    guild_id: int
    channel_id: int
    users: list[User]
    guilds: list[Guild]
    channels: list[Channel]
    messages: list[Message]
    commands: list[RegisteredCommand]
    emojis: list[AppEmoji]


def world_json(emulator: DiscordEmulator) -> bytes:
    """The emulator's world as the file's JSON (serialised as it is now: call it in the emulator's event loop)."""
    state = emulator.state
    world = _World.model_construct(
        format=FORMAT,
        version=VERSION,
        snowflake=state.snowflake.last,
        bot_user_id=emulator.bot_user.id,
        guild_id=emulator.guild.id,
        channel_id=emulator.channel.id,
        users=list(state.users.values()),
        guilds=list(state.guilds.values()),
        channels=list(state.channels.values()),
        messages=list(state.messages.values()),
        commands=list(state.commands.values()),
        emojis=list(emulator.emojis.emojis.values()),
    )
    return world.model_dump_json().encode()


def parse_world(text: bytes, source: str) -> _World:
    """The world in ``text``, or a :class:`WorldFileError` that says what is wrong with ``source``."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise WorldFileError(f"{source} is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WorldFileError(f"{source} is not a King Me sandbox world")
    if data.get("version") != VERSION:
        raise WorldFileError(f"{source} has world format version {data.get('version')!r}; this King Me reads {VERSION}")
    try:
        world = _World.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise WorldFileError(f"{source} is damaged: {where}: {first['msg']}") from None
    if not any(u.id == world.bot_user_id and u.bot for u in world.users):
        raise WorldFileError(f"{source} is damaged: its bot account is missing")
    if not any(g.id == world.guild_id for g in world.guilds):
        raise WorldFileError(f"{source} is damaged: its server is missing")
    if not any(c.id == world.channel_id and c.guild_id == world.guild_id for c in world.channels):
        raise WorldFileError(f"{source} is damaged: its first channel is missing")
    return world


def restore(emulator: DiscordEmulator, world: _World) -> None:
    """Replace the (not yet started) emulator's world with ``world``, in place: the state object and the bot's account
    that every part of the server holds stay the same objects."""
    state = emulator.state
    users = {u.id: u for u in world.users}
    bot = emulator.bot_user
    saved_bot = users[world.bot_user_id]
    bot.id, bot.name = saved_bot.id, saved_bot.name
    users[bot.id] = bot
    for message in world.messages:
        message.author = users.setdefault(message.author.id, message.author)
    _replace(state.users, users.values())
    _replace(state.guilds, world.guilds)
    _replace(state.channels, world.channels)
    _replace(state.messages, world.messages)
    _replace(state.commands, world.commands)
    _replace(emulator.emojis.emojis, world.emojis)
    state.interactions.clear()
    emulator.guild = state.guilds[world.guild_id]
    emulator.channel = state.channels[world.channel_id]
    ids = [world.snowflake, *state.users, *state.channels, *state.messages, *state.commands, *emulator.emojis.emojis]
    state.snowflake.advance_past(max(ids))


class _Identified(Protocol):
    id: int


_T = TypeVar("_T", bound=_Identified)


def _replace(mapping: dict[int, _T], items: Iterable[_T]) -> None:
    mapping.clear()
    mapping.update((item.id, item) for item in items)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, so ``path`` is always a whole file."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


class WorldKeeper:
    """Keeps one emulator's world in the file ``path``: :meth:`load` before the emulator starts, :meth:`start` once
    the bot is ready, :meth:`stop` when it has stopped."""

    def __init__(self, emulator: DiscordEmulator, path: Path, *, interval: float = SAVE_INTERVAL) -> None:
        self.emulator = emulator
        self.path = path
        self.interval = interval
        self._events = 0
        self._written: object = None
        self._task: asyncio.Task[None] | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._failing = False

    def load(self) -> bool:
        """Restore the world from the file; False when there is none yet. A file that cannot be read or is not a
        world raises :class:`WorldFileError`."""
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise WorldFileError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        restore(self.emulator, parse_world(text, str(self.path)))
        return True

    async def start(self) -> None:
        """Write the world now, then whenever it changes."""
        self._unsubscribe = self.emulator.subscribe(self._on_event)
        await self.save()
        self._task = asyncio.create_task(self._keep(), name="emulator-world-keeper")

    async def stop(self) -> None:
        """Stop watching and write the world a last time (nothing when it was never started)."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        await self.save()

    async def save(self) -> None:
        """Write the world if it changed since the last write."""
        fingerprint = self._fingerprint()
        if fingerprint == self._written:
            return
        data = world_json(self.emulator)
        try:
            await asyncio.to_thread(write_atomically, self.path, data)
        except OSError as exc:
            if not self._failing:
                log.warning("cannot write the sandbox's world to %s: %s", self.path, exc.strerror or exc)
            self._failing = True
            return
        self._failing = False
        self._written = fingerprint

    def _on_event(self, event: EmulatorEvent) -> None:
        self._events += 1

    def _fingerprint(self) -> object:
        """Changes since the last write: a message or thread event, a new id (every new object takes one), an
        emoji renamed or removed, a command re-registered."""
        emulator = self.emulator
        return (
            self._events,
            emulator.state.snowflake.last,
            tuple((e.id, e.name) for e in emulator.emojis.emojis.values()),
            tuple((c.id, c.version) for c in emulator.state.commands.values()),
        )

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.save()
