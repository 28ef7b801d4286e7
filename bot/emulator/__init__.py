"""A local Discord for end-to-end tests and the sandbox: REST routes and a gateway that the unmodified
discord.py client logs in to, over an in-process model of one guild.

    async with DiscordEmulator() as emulator:
        with patch_discordpy(emulator):
            ...start the bot with emulator.token...
            reply = await emulator.invoke(emulator.user("alice"), ["checkers", "play"], {"level": 3})
"""

from ._interactions import InteractionHandle, Reply
from ._limits import EditLimiter, EditLimits, EditRefusal
from ._patch import patch_discordpy
from ._server import DiscordEmulator
from ._state import (
    Attachment,
    Channel,
    EmulatorEvent,
    EmulatorState,
    Guild,
    InteractionRecord,
    Message,
    RegisteredCommand,
    User,
)

__all__ = [
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
    "User",
    "patch_discordpy",
]
