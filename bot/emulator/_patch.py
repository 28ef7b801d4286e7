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
    with point_discordpy(emulator.base_url):
        yield


@contextmanager
def point_discordpy(base_url: str) -> Iterator[None]:
    """Point discord.py at the emulator listening at ``base_url`` (``http://host:port``), also one in another
    process; restore discord.py's own addresses on exit."""
    url = yarl.URL(base_url)
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"not an emulator address: {base_url!r} (expected http://host:port)")
    root = url.with_path("").with_query(None).with_fragment(None)
    route_base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = str(root / "api" / "v10")
    ws_scheme = "wss" if url.scheme == "https" else "ws"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = root.with_scheme(ws_scheme).with_path("/gateway/")
    try:
        yield
    finally:
        discord.http.Route.BASE = route_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
