"""The loop of a fuzz run: a step, then the invariants; on a failure, the seed, how to replay it and the last steps."""

from __future__ import annotations

import asyncio
import collections
import itertools
import time
from collections.abc import Awaitable, Callable

from tests.bot.fuzz._invariants import ErrorLog, Invariants

RECENT = 30
"""Steps shown with a failure."""


async def run(
    steps: int,
    step: Callable[[], Awaitable[str]],
    invariants: Invariants,
    errors: ErrorLog,
    replay: str,
    lanes: int = 1,
) -> float:
    """Run ``steps`` steps (``step()`` returns what it did) in ``lanes`` concurrent lanes (people act at the same
    time, and a step waiting on Redis leaves the loop to another), checking the invariants and the error log after
    each step and everything at the end; returns the seconds it took. A failure names the step, the replay and the
    last :data:`RECENT` steps."""
    recent: collections.deque[str] = collections.deque(maxlen=RECENT)
    numbers = itertools.count(1)
    checking = asyncio.Lock()
    failed: list[int] = []

    async def lane() -> None:
        while not failed and (n := next(numbers)) <= steps:
            try:
                recent.append(f"{n}: {await step()}")
                async with checking:
                    await invariants.check()
                    errors.check()
            except BaseException:
                failed.append(n)
                raise

    started = time.perf_counter()
    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(lanes):
                group.create_task(lane())
        await invariants.check_all()
        errors.check()
    except BaseException as exc:
        cause = exc.exceptions[0] if isinstance(exc, BaseExceptionGroup) else exc
        last = "\n".join(recent)
        where = f"step {failed[0]}" if failed else "the final check"
        raise AssertionError(
            f"fuzz failed at {where} of {steps}: {cause!r}\n{replay}\nthe last steps:\n{last}"
        ) from cause
    return time.perf_counter() - started
