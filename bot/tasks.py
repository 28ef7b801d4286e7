"""Stopping a background task for sure, on every Python King Me runs on.

On Python 3.11 ``asyncio.wait_for`` returns its operation's result and drops a cancellation that arrives in the same
turn of the event loop as that result (CPython gh-86296, fixed in 3.12), and redis-py sends every command through it.
A loop that renews a lease with a Redis command and is stopped by one ``cancel()`` (an AI turn's lease, a worker's
heartbeat) then goes on for ever, and whoever awaits it waits for ever. :func:`cancel_and_wait` cancels again until
the task has ended.
"""

from __future__ import annotations

import asyncio
from typing import Final

AGAIN_AFTER: Final = 0.05
"""Seconds to wait, by default, for a cancelled task to end before cancelling it again: enough for a loop that only
sleeps and renews; give more to a task whose clean-up (in its ``finally``) awaits work of its own."""


async def cancel_and_wait(*tasks: asyncio.Future[None], again_after: float = AGAIN_AFTER) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again every ``again_after`` seconds one that
    is still running (its cancellation was dropped, or its clean-up is slow). What they raised is retrieved, never
    raised here; a cancellation of the caller propagates at once."""
    for task in tasks:
        task.cancel()
    running = {task for task in tasks if not task.done()}
    while running:
        _, running = await asyncio.wait(running, timeout=again_after)
        for task in running:
            task.cancel()
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: what a task stopped here raised is not reported as never retrieved
