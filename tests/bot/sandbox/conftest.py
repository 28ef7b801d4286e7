"""Fixtures for the sandbox: the whole sandbox as ``kingme sandbox`` runs it (the composition root, an embedded
redis-server, the real KingMeBot on the local Discord emulator, the web server on a free port), and a page's
websocket seen from the test."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest

from bot.sandbox import SOCKET_PATH
from bot.sandbox_runtime import SandboxRuntime
from bot.settings import Settings
from tests.support import WHOLE_PROCESS, settings_with

if TYPE_CHECKING:
    from playwright.async_api import Browser

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("KINGME_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

TIMEOUT = 20.0
"""Seconds to wait for one update (an AI move on a loaded 2-core machine included)."""
BOARD = re.compile(r"^km:p:(?P<game>[^:]+):(?P<version>\d+)$")
Update = dict[str, Any]


SETTINGS = {
    **WHOLE_PROCESS,
    "use_threads": True,
    "ai_think_time_max": 0.05,
    "exhibition_move_delay": 0.0,
    "rate_user_burst": 10_000,  # a whole game clicked at machine speed; tests/bot/games/test_limits.py tests the limits
    "rate_guild_burst": 10_000,
}


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return settings_with(SETTINGS, tmp_path, **overrides)


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[SandboxRuntime]:
    runtime = SandboxRuntime(make_settings(tmp_path))
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


class PageSocket:
    """A sandbox page's websocket from the test's side: every update it received, in order, and its requests."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.updates: list[Update] = []
        self._changed = asyncio.Condition()
        self._ref = 0
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for frame in self.socket:
            if frame.type is aiohttp.WSMsgType.TEXT:
                async with self._changed:
                    self.updates.append(json.loads(frame.data))
                    self._changed.notify_all()

    async def close(self) -> None:
        await self.socket.close()
        await self._reader

    def send(self, op: str, **fields: Any) -> int:
        """Send an action; returns its ``ref``."""
        self._ref += 1
        asyncio.get_running_loop().create_task(self.socket.send_json({"op": op, "ref": self._ref, **fields}))
        return self._ref

    async def wait_for(self, check: Callable[[Update], bool], *, after: int = 0, what: str = "update") -> Update:
        """The first update from index ``after`` on that passes ``check``."""

        def found() -> Update | None:
            return next((u for u in self.updates[after:] if check(u)), None)

        async with self._changed:
            try:
                async with asyncio.timeout(TIMEOUT):
                    await self._changed.wait_for(lambda: found() is not None)
            except TimeoutError:
                kinds = [u.get("type") for u in self.updates[after:]]
                raise AssertionError(f"no {what} within {TIMEOUT}s; received {kinds}") from None
        update = found()
        assert update is not None
        return update

    async def answer(self, ref: int) -> Update:
        """The bridge's answer to action ``ref``: ``done``, ``choices`` or ``error``."""
        return await self.wait_for(lambda u: u.get("ref") == ref, what=f"answer to action {ref}")

    async def act(self, op: str, **fields: Any) -> Update:
        return await self.answer(self.send(op, **fields))

    async def barrier(self) -> int:
        """Wait until every update pushed so far has arrived (the bridge sends in order); returns their count."""
        await self.act("commands")
        return len(self.updates)

    def snapshot(self) -> Update:
        return [u for u in self.updates if u["type"] == "snapshot"][-1]

    def messages(self) -> dict[str, Update]:
        """The messages this page shows: the last snapshot's, then its creates, updates and deletes."""
        start = max(i for i, u in enumerate(self.updates) if u["type"] == "snapshot")
        shown = {m["id"]: m for m in self.updates[start]["messages"]}
        for update in self.updates[start + 1 :]:
            if update["type"] in ("message_create", "message_update"):
                shown[update["message"]["id"]] = update["message"]
            elif update["type"] == "message_delete":
                shown.pop(update["id"], None)
        return shown


@pytest.fixture
async def connect(sandbox: SandboxRuntime) -> AsyncIterator[Callable[[str], Any]]:
    """``await connect("alice")``: a page's websocket acting as that user, its first snapshot received."""
    session = aiohttp.ClientSession()
    pages: list[PageSocket] = []

    async def open_page(user: str) -> PageSocket:
        socket = await session.ws_connect(f"{sandbox.address}{SOCKET_PATH}?as={user}&key={sandbox.bridge.key}")
        page = PageSocket(socket)
        pages.append(page)
        await page.wait_for(lambda u: u["type"] == "snapshot", what="snapshot")
        return page

    try:
        yield open_page
    finally:
        for page in pages:
            await page.close()
        await session.close()


def components(message: Update) -> list[Update]:
    """Every component of a message JSON, at any depth."""
    found: list[Update] = []
    stack = list(message.get("components") or [])
    while stack:
        component = stack.pop(0)
        found.append(component)
        stack.extend(component.get("components") or [])
    return found


def component(message: Update, prefix: str) -> Update | None:
    return next((c for c in components(message) if str(c.get("custom_id", "")).startswith(prefix)), None)


def board_version(message: Update) -> tuple[str, int] | None:
    """(game id, version) of a board message whose piece menu shows, else None."""
    piece = component(message, "km:p:")
    match = BOARD.match(piece["custom_id"]) if piece else None
    return (match["game"], int(match["version"])) if match else None


# -- the browser ---------------------------------------------------------------------------------------------------


@pytest.fixture
def chromium() -> str:
    """The system's Chromium, or a failure that says what to install."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"the browser tests need Chromium at {CHROMIUM}: apt-get install chromium (or set KINGME_CHROMIUM)")
    ARTIFACTS.mkdir(exist_ok=True)
    return CHROMIUM


@pytest.fixture
async def browser(chromium: str) -> AsyncIterator[Browser]:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.fail(
            "the browser tests need Playwright's Python package: pip install playwright "
            "(not `playwright install`: they use the system's Chromium)"
        )
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()
