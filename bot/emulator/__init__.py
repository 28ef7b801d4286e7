"""A local Discord for end-to-end tests and the sandbox: REST routes and a gateway that the unmodified
discord.py client logs in to, over an in-process model of one guild.

    async with DiscordEmulator() as emulator:
        with patch_discordpy(emulator):
            ...start the bot with emulator.token...
            reply = await emulator.invoke(emulator.user("alice"), ["checkers", "play"], {"level": 3})
"""

from ._attachments import download, find_attachment
from ._emojis import AppEmoji
from ._interactions import InteractionHandle, Reply
from ._limits import EditLimiter, EditLimits, EditRefusal
from ._patch import patch_discordpy, point_discordpy
from ._server import DiscordEmulator
from ._snapshot import WorldFileError, WorldKeeper
from ._state import (
    Attachment,
    Channel,
    EmulatorEvent,
    EmulatorState,
    Guild,
    InteractionRecord,
    Message,
    RegisteredCommand,
    Shard,
    User,
    shard_of,
)

__all__ = [
    "AppEmoji",
    "Attachment",
    "Channel",
    "DiscordEmulator",
    "EditLimiter",
    "EditLimits",
    "EditRefusal",
    "EmulatorEvent",
    "EmulatorState",
    "Guild",
    "InteractionHandle",
    "InteractionRecord",
    "Message",
    "RegisteredCommand",
    "Reply",
    "Shard",
    "User",
    "WorldFileError",
    "WorldKeeper",
    "download",
    "find_attachment",
    "patch_discordpy",
    "point_discordpy",
    "shard_of",
]
