"""Every request's writes made once, and its outcome told truthfully even when the store's reply is lost.

A front end gives each request an idempotency key (:data:`~bot.service.RequestId`: the Discord interaction's id). The
write that request makes records its outcome under that key in the same atomic step (see
:class:`~bot.service.Request`), so the same write sent again (the client resends a command whose reply timed out)
finds it and writes nothing. When the reply never comes at all, :func:`once` asks the store what happened to the key,
a few times within :data:`RECOVERY` seconds: the outcome it recorded (the write was made: the request succeeded), or
none, which the store then records as void so the write cannot land later (nothing changed, and the person is told so).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.service._errors import NOTHING_CHANGED, StoreUnavailableError
from bot.service._ids import RequestId
from bot.service._models import Challenge, GameState
from bot.service._ports import GameRecords, Request

log = logging.getLogger(__name__)

RECOVERY = 10.0
"""Seconds to keep asking the store for a request's outcome after its write's reply was lost (a deferred interaction
may answer for 15 minutes; a person should not wait longer than this)."""
_FIRST_WAIT, _LONGEST_WAIT = 0.1, 1.0


def outcome_of(record: GameState | Challenge) -> str:
    """What a write records for its request: the record it wrote and that record's version."""
    kind = "game" if isinstance(record, GameState) else "challenge"
    return f"{kind}:{record.id}:{record.version}"


async def once(
    store: GameRecords,
    key: RequestId | None,
    record: GameState | Challenge,
    write: Callable[[Request | None], Awaitable[None]],
) -> None:
    """Run ``write`` (a store write that takes a :class:`Request`) for the request ``key`` that leaves ``record``; with
    no key, as it is. Raises :class:`StoreUnavailableError` only when the write is known not to have been made
    (:data:`NOTHING_CHANGED`) or nothing could be learnt within :data:`RECOVERY` seconds."""
    if key is None:
        await write(None)
        return
    request = Request(key, outcome_of(record))
    try:
        await write(request)
    except StoreUnavailableError:
        recorded = await _settled(store, key)
        if recorded != request.outcome:
            log.warning("request %s: its write was not made (%s); the person is told nothing changed", key, recorded)
            raise StoreUnavailableError(NOTHING_CHANGED) from None
        log.info("request %s: the reply was lost but the write was made (%s)", key, recorded)


async def _settled(store: GameRecords, key: RequestId) -> str:
    """The store's final word on ``key`` (see :meth:`~bot.service.GameRecords.settle_request`), asked until it
    answers or :data:`RECOVERY` seconds have passed (then the last error propagates)."""
    deadline = time.monotonic() + RECOVERY
    wait = _FIRST_WAIT
    while True:
        try:
            return await store.settle_request(key)
        except StoreUnavailableError:
            if time.monotonic() + wait > deadline:
                raise
            await asyncio.sleep(wait)
            wait = min(2 * wait, _LONGEST_WAIT)
