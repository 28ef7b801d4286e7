"""The sandbox: the real bot, run by the normal composition root, connected to the local Discord emulator instead of
Discord, with the sandbox page and the public pages on its HTTP side.

    kingme sandbox  ->  bot.cli.sandbox.run_sandbox(settings)  ->  bot.sandbox_runtime.SandboxRuntime(settings, ...)

The sandbox listens on 127.0.0.1 only, its page on ``HTTP_PORT`` and ``/healthz`` and ``/metrics`` on ``OPS_PORT``
(anyone who reaches the page can act as any local user), and keeps its games in an embedded redis-server. By default
both that and the emulated Discord live in a temporary directory, removed at stop. Given a data directory, the sandbox
keeps its Redis data there, the emulated Discord world beside it (:data:`WORLD_FILE`, see
:class:`bot.emulator.WorldKeeper`) and the page's key (:data:`bot.sandbox.KEY_FILE`), so a restart shows the same
channels, games and boards, whose buttons still work, at the same address. ``REDIS_URL`` and ``DISCORD_TOKEN`` are
ignored, so a sandbox never touches a real bot's store or account.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import shutil
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Final

from pydantic import SecretStr

from bot.emulator import DiscordEmulator, WorldFileError, WorldKeeper, patch_discordpy
from bot.runtime import Runtime, StartupError
from bot.sandbox import KEY_FILE, SandboxBridge, kept_key, open_private_places
from bot.settings import Settings

log = logging.getLogger(__name__)

SANDBOX_HOST: Final = "127.0.0.1"
WORLD_FILE: Final = "discord-world.json"
"""The emulated Discord world's file in a sandbox's data directory (its Redis data is in ``redis/``)."""
READY_TIMEOUT: Final = 60.0
"""Seconds the bot may take to log in to the emulator and sync its commands (AI workers start first)."""

Announce = Callable[[str], None]


class SandboxRuntime(Runtime):
    """A :class:`Runtime` whose Discord is a :class:`DiscordEmulator` started with it, and whose web server also
    serves the sandbox page (``/``) and its websocket.

    Args:
        settings: the operator's settings; the token, Redis URL, data directory, guild and public URL are replaced.
        announce: called with the page's address and key once the bot is ready (``kingme sandbox`` prints it).
        http_host: the interface both listeners use, the page's and ``/healthz``'s (keep the loopback: the page has
            no login); ``HTTP_HOST`` and ``OPS_HOST`` are replaced by it.
        redis_binary: as for :class:`Runtime`.
        data_dir: where to keep the games and the emulated Discord across runs (created if missing); None: a
            temporary directory, removed at stop.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        announce: Announce | None = None,
        http_host: str = SANDBOX_HOST,
        redis_binary: str | None = None,
        data_dir: Path | None = None,
    ) -> None:
        token = "sandbox." + secrets.token_urlsafe(24)
        self.emulator = DiscordEmulator(token=token)
        self.keeper = None if data_dir is None else WorldKeeper(self.emulator, data_dir / WORLD_FILE)
        """Keeps the emulated world in ``data_dir`` (None without one)."""
        self.bridge = SandboxBridge(self.emulator)
        port = settings.http_port or free_port(http_host)
        shown_host = "127.0.0.1" if http_host in ("0.0.0.0", "") else http_host
        self.address = f"http://{shown_host}:{port}"
        """The web server's address (``/healthz``, the public pages); the page's is :attr:`page_url`."""
        sandbox_settings = settings.model_copy(
            update={
                "discord_token": SecretStr(token),
                "discord_guild_id": None,
                "redis_url": None,
                "http_host": http_host,
                "http_port": port,
                "ops_host": http_host,
                "public_base_url": self.address,
            }
        )
        super().__init__(
            sandbox_settings,
            redis_binary=redis_binary,
            bot_options={"guild_ready_timeout": 0.05},
            web_setup=[self.bridge.install],
        )
        self._announce = announce
        self._listen_host = http_host
        self._temporary: Path | None = None
        self._patch: contextlib.ExitStack | None = None

    async def start(self) -> None:
        """Start the emulator, point discord.py at it, start every part of the bot, and wait until it is ready."""
        try:
            _check_port_free(self._listen_host, self.settings.http_port)
            self.settings = self.settings.model_copy(update={"kingme_data": self._prepare_data()})
            open_private_places(self.emulator)  # each person's DM with the bot and a group DM, King Me installed
            try:
                await self.emulator.start(SANDBOX_HOST, 0)
            except OSError as exc:
                raise StartupError(f"the Discord emulator cannot listen on {SANDBOX_HOST}: {exc.strerror}") from None
            self._patch = contextlib.ExitStack()
            self._patch.enter_context(patch_discordpy(self.emulator))
            await super().start()
            await self._wait_ready()
            if self.keeper is not None:
                await self.keeper.start()
        except BaseException:
            await self.stop()
            raise
        log.info("sandbox ready at %s", self.page_url)
        if self._announce is not None:
            self._announce(self.page_url)

    @property
    def page_url(self) -> str:
        """The page to open: the address with the key, which the page's socket must present (known once started
        when the key is kept in the data directory)."""
        return self.bridge.page_url(self.address)

    async def stop(self) -> None:
        """Stop the bot and every part (the bot first, so it does not reconnect), then the emulator. Idempotent."""
        await super().stop()
        if self.keeper is not None:
            await self.keeper.stop()  # the world as the stopped bot left it
        await self.bridge.close()
        if self._patch is not None:
            self._patch.close()
            self._patch = None
        await self.emulator.stop()
        if self._temporary is not None:
            await asyncio.to_thread(shutil.rmtree, self._temporary, True)
            self._temporary = None

    def _prepare_data(self) -> Path:
        """The directory for the run's data: the given one with its world restored, or a new temporary one."""
        if self.keeper is None:
            self._temporary = Path(tempfile.mkdtemp(prefix="kingme-sandbox-"))
            return self._temporary
        folder = self.keeper.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StartupError(f"cannot use {folder} for the sandbox's data: {exc.strerror or exc}") from None
        try:
            restored = self.keeper.load()
        except WorldFileError as exc:
            raise StartupError(f"{exc}; the file is left as it is: move it away to start afresh") from None
        try:
            self.bridge.key = kept_key(folder / KEY_FILE)
        except OSError as exc:
            raise StartupError(f"cannot keep the page's key in {folder / KEY_FILE}: {exc.strerror or exc}") from None
        log.info("sandbox data in %s (%s)", folder, "restored" if restored else "new")
        return folder

    async def _wait_ready(self) -> None:
        assert self.bot is not None
        try:
            async with asyncio.timeout(READY_TIMEOUT):
                await self.bot.wait_until_ready()
        except TimeoutError:
            raise StartupError(
                f"the bot did not connect to the local Discord emulator within {READY_TIMEOUT:g} s"
            ) from None


def _check_port_free(host: str, port: int) -> None:
    """Refuse a taken port before anything starts, with what to do about it (a newcomer's likeliest failure)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            raise StartupError(
                f"HTTP port {port} on {host} is already in use (another sandbox?): stop it, or use another port "
                f"with `kingme sandbox --port 8081` or HTTP_PORT"
            ) from None


LOWEST_CHOSEN_PORT: Final = 10_000
"""The sandbox's own choice of a port (``HTTP_PORT=0``) is at least this, below the system's ephemeral ports."""
EPHEMERAL_PORTS: Final = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_port(host: str) -> int:
    """A port that is free now, for ``HTTP_PORT=0``: the sandbox must know its address before it starts, so it picks
    one and listens on it a moment later. It picks below the system's ephemeral range, from which the system hands
    out ports to every outgoing connection and every ``bind`` to port 0, so none of those takes it meanwhile (one
    picked by the system, freed and picked again, could be: a port the sandbox then found in use). Where that range
    is unknown or starts too low, the system's own choice."""
    try:
        first_ephemeral = int(EPHEMERAL_PORTS.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        first_ephemeral = 0
    chooser = random.SystemRandom()
    for _ in range(64 if first_ephemeral > LOWEST_CHOSEN_PORT else 0):
        port = chooser.randrange(LOWEST_CHOSEN_PORT, first_ephemeral)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])
