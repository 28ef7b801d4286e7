"""Helpers shared by the whole suite: one test clock and one way to wait for a condition."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable


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
    condition: Callable[[], object | Awaitable[object]], within: float = 5.0, what: str = "condition"
) -> None:
    """Wait until ``condition()`` is true (a coroutine function is awaited), checking every 10 ms; fail the test after
    ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return
        assert loop.time() < deadline, f"{what} not met within {within:g} s"
        await asyncio.sleep(0.01)
