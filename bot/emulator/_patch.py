"""Point the unmodified discord.py client at an emulator: the only global state the emulator touches."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import discord.gateway
import discord.http
import yarl

from ._server import DiscordEmulator


@contextmanager
def patch_discordpy(emulator: DiscordEmulator) -> Iterator[None]:
    """Set ``Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY`` to the started ``emulator``; restore them
    on exit.

    Clients started inside the block talk to the emulator; build them with ``guild_ready_timeout=0.05``
    to skip the 2 s wait for guilds before ``on_ready``.
    """
    if not emulator.port:
        raise RuntimeError("start the emulator before patching discord.py")
    route_base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = emulator.api_url
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emulator.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = route_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
