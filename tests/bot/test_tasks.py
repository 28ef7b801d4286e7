"""Stopping background tasks for sure (:mod:`bot.tasks`), against the real dropped cancellation of Python 3.11's
``asyncio.wait_for``: a loop that renews something through it, cancelled just as a renewal's reply arrives."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bot.tasks import cancel_and_wait


class Renewals:
    """A loop like an AI turn's lease keeper: each renewal awaits its reply through ``asyncio.wait_for``, as redis-py
    sends every command; the test answers each reply itself."""

    def __init__(self) -> None:
        self.replies: asyncio.Queue[asyncio.Future[None]] = asyncio.Queue()
        self.renewed = 0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            reply = loop.create_future()
            await self.replies.put(reply)
            await asyncio.wait_for(reply, 10.0)
            self.renewed += 1


async def test_a_loop_whose_cancellation_is_dropped_is_cancelled_again_until_it_ends() -> None:
    renewals = Renewals()
    task = asyncio.create_task(renewals.run())
    reply = await renewals.replies.get()
    reply.set_result(None)  # the reply arrives ...
    task.cancel()  # ... in the same turn of the loop as the cancellation
    following = await asyncio.wait_for(renewals.replies.get(), 5.0)
    if sys.version_info < (3, 12):  # CPython gh-86296: the renewal returned, the cancellation is gone
        assert not task.done() and renewals.renewed == 1, "the loop went on to its next renewal"
    following.set_result(None)  # the next renewal answers too, and may be the one cancelled

    await asyncio.wait_for(cancel_and_wait(task), 5.0)
    assert task.cancelled()


async def test_every_task_is_cancelled_and_what_they_raised_is_not_raised_again() -> None:
    started = asyncio.Event()

    async def fails_on_the_way_out() -> None:
        try:
            started.set()
            await asyncio.sleep(30)
        finally:
            raise RuntimeError("its clean-up failed")

    async def sleeps() -> None:
        await asyncio.sleep(30)

    failing, sleeping = asyncio.create_task(fails_on_the_way_out()), asyncio.create_task(sleeps())
    finished = asyncio.create_task(asyncio.sleep(0))
    await started.wait()
    await finished
    await cancel_and_wait(failing, sleeping, finished)
    assert isinstance(failing.exception(), RuntimeError) and sleeping.cancelled() and finished.result() is None


async def test_a_clean_up_gets_its_time_before_it_is_cancelled_again() -> None:
    cleaned = asyncio.Event()

    async def slow_clean_up() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.sleep(0.2)  # gives a lease up, say
            cleaned.set()

    task = asyncio.create_task(slow_clean_up())
    await asyncio.sleep(0)
    await cancel_and_wait(task, again_after=5.0)
    assert cleaned.is_set() and task.cancelled()


async def test_the_callers_cancellation_propagates() -> None:
    refusing = True

    async def stubborn() -> None:
        while True:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                if not refusing:
                    raise

    task = asyncio.create_task(stubborn())
    stopping = asyncio.create_task(cancel_and_wait(task))
    await asyncio.sleep(0.2)
    assert not stopping.done(), "it cancels again and again while the task runs"
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert not task.done()
    refusing = False
    await cancel_and_wait(task)
    assert task.cancelled()
