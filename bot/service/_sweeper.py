"""The background task that ends overdue games, expires old challenges and restarts stuck AI turns: in one process at a
time when the bot runs as several (the one holding the sweeper's lease)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final, Protocol

from bot.service._errors import StoreUnavailableError
from bot.service._service import GameService

log = logging.getLogger(__name__)

LEASE_INTERVALS: Final = 3
"""The lease lasts this many sweep intervals: a holder renews it at every sweep, and when the holder dies another
process takes over within that time."""


class Lease(Protocol):
    """Something at most one process holds at a time (:class:`bot.store.RedisLease`)."""

    async def hold(self) -> bool:
        """Take or renew it; True while this process holds it."""
        ...

    async def release(self) -> None:
        """Give it up, so another process takes it at once."""
        ...


class Sweeper:
    """Calls :meth:`GameService.sweep` every ``interval`` seconds until stopped. A failing sweep is logged and the
    next one runs on time (through a Redis outage too, until Redis is back).

    With a ``lease`` it sweeps only while it holds the lease, asking for it (or renewing it) before every sweep, and
    gives it up when stopped; the lease should last :data:`LEASE_INTERVALS` intervals. Without one, it always sweeps.
    Either way a sweep is idempotent (every ending is a guarded write), so two sweeps at once (a holder stalled past
    its lease while the next one took over) end nothing twice; the lease keeps the work, and the log, in one place.

    Stopping does not rely on cancellation alone: the Redis client may swallow a cancellation that arrives while it
    reads a reply, and a loop that only waits for ``CancelledError`` then runs on for ever. The loop also checks a
    stop flag, and waits for it instead of sleeping."""

    def __init__(self, service: GameService, interval: float | None = None, *, lease: Lease | None = None) -> None:
        self._service = service
        self._interval = interval if interval is not None else service.settings.sweep_interval
        self._lease = lease
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self.holds_lease = lease is None
        """Whether this process sweeps now (it held the lease at the last ask; always, without a lease)."""
        self.runs = 0
        """Sweeps this sweeper has run."""

    @property
    def interval(self) -> float:
        return self._interval

    @staticmethod
    def lease_seconds(interval: float) -> float:
        """How long the lease of a sweeper with this ``interval`` should last."""
        return LEASE_INTERVALS * interval

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._stopping = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name="kingme-sweeper")

    async def stop(self) -> None:
        """Stop sweeping and give the lease up."""
        task, self._task = self._task, None
        self._stopping.set()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._lease is not None and self.holds_lease:
            self.holds_lease = False
            try:
                await self._lease.release()
            except Exception as exc:  # it expires on its own
                log.warning("could not release the sweeper's lease: %s", exc)

    async def run_once(self) -> int:
        """One sweep; returns how many games and challenges it ended."""
        self.runs += 1
        return len(await self._service.sweep())

    async def _may_sweep(self) -> bool:
        """Whether this process is the one to sweep now: it holds (or has just taken, or renewed) the lease."""
        if self._lease is None:
            return True
        held = await self._lease.hold()
        if held != self.holds_lease:
            log.info("this process %s the sweeps", "now runs" if held else "no longer runs")
        self.holds_lease = held
        return held

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if await self._may_sweep():
                    ended = await self.run_once()
                    if ended:
                        log.info("sweeper ended %d overdue games or expired challenges", ended)
            except asyncio.CancelledError:
                raise
            except StoreUnavailableError:  # Redis is away: say so in one line; the next sweep finds it back
                log.warning("sweep skipped: the store is unavailable; retrying in %g s", self._interval)
            except Exception:
                log.exception("sweep failed; retrying in %g s", self._interval)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self._interval)
