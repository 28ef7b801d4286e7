"""Helpers shared by the whole suite: one test clock, one way to wait for a condition, one way to make settings, and
one way to find the board of a game that a command opened in its own thread."""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.settings import Settings

if TYPE_CHECKING:
    from bot.emulator import DiscordEmulator, Message

THREAD_LINK = re.compile(r"<#(?P<id>\d+)>")
"""A channel mention: a command's answer (or an accepted challenge) links to the game's thread with one."""


class Clock:
    """Epoch seconds for the code under test, moved ahead by the test instead of by sleeping.

    ``Clock()`` follows real time plus whatever the test skipped; ``Clock(start)`` stands still at ``start`` until the
    test advances it (for exact deadlines).
    """

    def __init__(self, start: float | None = None) -> None:
        self._start = start
        self._skipped = 0.0

    def __call__(self) -> float:
        base = self._start if self._start is not None else time.time()
        return base + self._skipped

    def advance(self, seconds: float) -> None:
        self._skipped += seconds


async def eventually(
    condition: Callable[[], object | Awaitable[object]],
    within: float = 5.0,
    what: str = "condition",
    explain: Callable[[], str] | None = None,
) -> None:
    """Wait until ``condition()`` is true (a coroutine function is awaited), checking every 10 ms; fail the test after
    ``within`` seconds, saying ``explain()`` too when given (what the code under test was doing then)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return
        if loop.time() >= deadline:
            detail = f"; {explain()}" if explain is not None else ""
            raise AssertionError(f"{what} not met within {within:g} s{detail}")
        await asyncio.sleep(0.01)


def tasks_named(prefix: str) -> str:
    """The running asyncio tasks whose name starts with ``prefix``, each with the line where it waits, innermost last:
    for the message of a wait that failed (see :func:`eventually`)."""
    found = []
    for task in sorted(asyncio.all_tasks(), key=lambda task: task.get_name()):
        if task.get_name().startswith(prefix) and not task.done():
            frames = task.get_stack(limit=12)
            where = " > ".join(f"{frame.f_code.co_name}:{frame.f_lineno}" for frame in frames)
            found.append(f"{task.get_name()} at {where}")
    return f"tasks {prefix}*: " + ("; ".join(found) or "none")


WHOLE_PROCESS: dict[str, Any] = {
    "http_host": "127.0.0.1",
    "http_port": 0,
    "ops_port": 0,
    "ai_workers": 1,
    "log_level": "INFO",
}
"""Defaults for a test that starts a whole runtime: any free port on the loopback, for the public pages and for
``/healthz`` and ``/metrics``, and one AI worker."""


def settings_with(defaults: Mapping[str, Any], tmp_path: Path | None = None, **overrides: Any) -> Settings:
    """A test's settings: ``overrides`` over an area's ``defaults``, the data folder under ``tmp_path`` if one is given,
    and never a ``.env`` file (a developer's own must not change what a test sees)."""
    values = dict(defaults)
    if tmp_path is not None:
        values["kingme_data"] = tmp_path / "data"
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


async def board_in_thread(emulator: DiscordEmulator, notice: Message) -> Message:
    """The board in the thread that ``notice`` (a command's answer in the channel, an accepted challenge) links to:
    every game gets a thread of its own where the channel allows threads."""
    await eventually(lambda: THREAD_LINK.search(notice.content) is not None, what="the link to the game's thread")
    link = THREAD_LINK.search(notice.content)
    assert link is not None
    thread = emulator.state.channels[int(link["id"])]
    await eventually(lambda: bool(emulator.messages(thread)), what="the board in the game's thread")
    return emulator.messages(thread)[0]
