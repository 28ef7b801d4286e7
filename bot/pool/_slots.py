"""Worker slots with two priorities: live AI moves first, game reviews only with what they leave.

A review is cut into slices of one position each (:func:`ai.review.evaluate_position`, tens of milliseconds), and each
slice asks for a slot at low priority: it gets one only when a worker is free and no live move is waiting. A live move
that arrives while every worker runs a slice waits for the first slice to end, never for a whole review; the slots
are handed out in that order, first come first served within each priority.
"""

from __future__ import annotations

import asyncio
import collections


class PrioritySlots:
    """A semaphore of ``slots`` slots whose waiters of high priority are always served before those of low priority.
    Used from one event loop."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._high: collections.deque[asyncio.Future[None]] = collections.deque()
        self._low: collections.deque[asyncio.Future[None]] = collections.deque()

    async def acquire(self, *, low: bool = False) -> None:
        """Wait for a slot (behind every waiting live move when ``low``); :meth:`release` it when done."""
        waiter = asyncio.get_running_loop().create_future()
        (self._low if low else self._high).append(waiter)
        self._grant()
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted, then cancelled before it could run: pass it on
                self.release()
            raise

    def release(self) -> None:
        self._free += 1
        self._grant()

    def _grant(self) -> None:
        while self._free > 0:
            queue = self._high if self._high else self._low
            if not queue:
                return
            waiter = queue.popleft()
            if waiter.done():  # its caller gave up
                continue
            self._free -= 1
            waiter.set_result(None)
