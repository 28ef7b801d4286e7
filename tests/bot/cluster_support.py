"""King Me's processes as a cluster runs them, for the tests that start them: :class:`BotProcess`, one ``python -m bot
run`` process running one shard on the emulator and a shared Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from bot.emulator import DiscordEmulator

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class BotProcess:
    """One ``python -m bot run`` process running one shard, started (and restarted) with the same settings; its
    console (stderr) goes to a file that every run appends to."""

    def __init__(
        self,
        shard: int,
        shards: int,
        emulator: DiscordEmulator,
        redis_url: str,
        home: Path,
        overrides: Mapping[str, str] = {},
    ) -> None:
        self.shard = shard
        self.port = free_port()
        """Where its /healthz and /metrics answer (OPS_PORT; its public pages take any free port)."""
        self.home = home
        home.mkdir(parents=True)
        self.console = home / "console.log"
        settings = {
            "DISCORD_TOKEN": emulator.token,
            "DISCORD_EMULATOR_URL": emulator.base_url,
            "REDIS_URL": redis_url,
            "SHARD_COUNT": str(shards),
            "SHARD_IDS": str(shard),
            "HTTP_PORT": "0",
            "OPS_PORT": str(self.port),
            "KINGME_DATA": str(home / "data"),
            "EXHIBITION_MOVE_DELAY": "0",
            "LOG_LEVEL": "INFO",
            **overrides,
        }
        inherited = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "NUMBA_CACHE_DIR", "TMPDIR")}
        self.env = inherited | settings | {"PYTHONPATH": str(ROOT)}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.console.open("ab") as console:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "run"],
                cwd=self.home,  # no .env of a developer's
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=console,
            )

    def kill(self) -> None:
        """SIGKILL: the process dies at once, holding whatever it held."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    async def ready(self, http: aiohttp.ClientSession) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"shard {self.shard}'s process ended: {self.console.read_text(errors='replace')}")
        try:
            async with http.get(f"{self.url}/healthz") as response:
                return response.status == 200 and (await response.json())["gateway"] == "ready"
        except aiohttp.ClientError:
            return False

    async def metrics(self, http: aiohttp.ClientSession) -> dict[str, float]:
        async with http.get(f"{self.url}/metrics") as response:
            text = await response.text()
        return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples if not s.labels}

    async def sweeps(self, http: aiohttp.ClientSession) -> tuple[bool, float]:
        """(whether it holds the sweeper's lease, how many sweeps it ran)."""
        found = await self.metrics(http)
        return found["kingme_sweeper_lease_held"] == 1, found["kingme_sweeps"]
