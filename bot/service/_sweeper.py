"""The background task that ends overdue games, expires old challenges and restarts stuck AI turns."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.service._errors import StoreUnavailableError
from bot.service._service import GameService

log = logging.getLogger(__name__)


class Sweeper:
    """Calls :meth:`GameService.sweep` every ``interval`` seconds until stopped. A failing sweep is logged and the
    next one runs on time (through a Redis outage too, until Redis is back): the sweep is idempotent (every ending is
    a guarded write), so several sweepers, in one process or many, can run at once.

    Stopping does not rely on cancellation alone: the Redis client may swallow a cancellation that arrives while it
    reads a reply, and a loop that only waits for ``CancelledError`` then runs on for ever. The loop also checks a
    stop flag, and waits for it instead of sleeping."""

    def __init__(self, service: GameService, interval: float | None = None) -> None:
        self._service = service
        self._interval = interval if interval is not None else service.settings.sweep_interval
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._stopping = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name="kingme-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        self._stopping.set()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run_once(self) -> int:
        """One sweep; returns how many games and challenges it ended."""
        return len(await self._service.sweep())

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                ended = await self.run_once()
                if ended:
                    log.info("sweeper ended %d overdue games or expired challenges", ended)
            except asyncio.CancelledError:
                raise
            except StoreUnavailableError:  # Redis is away: say so in one line; the next sweep finds it back
                log.warning("sweep skipped: the store is unavailable; retrying in %.0f s", self._interval)
            except Exception:
                log.exception("sweep failed; retrying in %.0f s", self._interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self._interval)
