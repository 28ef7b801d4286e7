"""Discord's limits on the bot's edits of channel messages (``PATCH /channels/{id}/messages/{id}``), answered as
Discord answers them.

- **The route's rate limit**, one bucket per channel (the route's major parameter): ``edits`` per ``per`` seconds
  (Discord's is 5 per 5 s). Every answer carries Discord's ``X-RateLimit-*`` headers; a request over the limit gets
  429 ``{"message", "retry_after", "global": false}`` with ``Retry-After``, ``X-RateLimit-Scope: user`` and ``Via``
  (discord.py takes a 429 without ``Via`` for a Cloudflare ban and raises instead of waiting). discord.py waits these
  out by itself: the request that empties a bucket returns only after ``X-RateLimit-Reset-After``, and a 429 (from a
  bucket another process emptied) is retried after ``retry_after``. Buckets run on real (monotonic) time, since that is
  what discord.py waits in.
- **Edits of old messages** (error 30046, "Maximum number of edits to messages older than 1 hour reached. Try again
  later."): an edit of a message older than ``old_after`` (an hour, by the emulator's clock) is refused once
  ``old_edits`` such edits were made in the channel within ``old_window`` seconds. Discord publishes neither number;
  reports put the limit at a few edits per channel, and it comes as a 429 with code 30046, so the emulator takes
  3 per channel per hour (harsher than any report, which is what a test of the bot wants) and answers 429 with
  ``retry_after`` = the seconds until the oldest counted edit leaves the window. discord.py waits that out like any
  429 (up to 5 tries) unless it exceeds the client's ``max_ratelimit_timeout``, in which case it raises
  :class:`discord.RateLimited` at once; after 5 refused tries it raises :class:`discord.HTTPException` with
  ``code == 30046``.

Edits through an interaction (the answer to a click, ``/webhooks/.../messages/@original``) are not counted: they
go through the interaction's own routes and limits. Tests change the limits with ``emulator.rest.edits.limits =
EditLimits(...)`` and read every refusal in ``emulator.rest.edits.refusals``.
"""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

from ._http import json_response
from ._state import EmulatorState, Message

OLD_MESSAGE_EDITS = 30046
RATE_LIMITED = 0
_BUCKET = "f1e2d3c4b5a6978812345678abcdef00"  # the route's X-RateLimit-Bucket: one hash, shared by every channel


@dataclass(frozen=True)
class EditLimits:
    """How many edits Discord allows (see the module's docstring)."""

    edits: int = 5
    """Edits per channel per :attr:`per` seconds."""
    per: float = 5.0
    old_after: float = 3600.0
    """Age in seconds from which a message counts as old."""
    old_edits: int = 3
    """Edits of old messages per channel per :attr:`old_window` seconds."""
    old_window: float = 3600.0


@dataclass(frozen=True)
class EditRefusal:
    """One refused edit: ``code`` is 0 for the route's rate limit, 30046 for an old message."""

    channel_id: int
    message_id: int
    code: int
    retry_after: float


@dataclass
class _Bucket:
    resets_at: float = 0.0
    used: int = 0


class EditLimiter:
    """Counts the bot's edits per channel and refuses those over :attr:`limits`."""

    def __init__(
        self,
        state: EmulatorState,
        limits: EditLimits | None = None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = state
        self.limits = limits or EditLimits()
        self.refusals: list[EditRefusal] = []
        self._monotonic = monotonic
        self._buckets: dict[int, _Bucket] = collections.defaultdict(_Bucket)
        self._old_edits: dict[int, collections.deque[float]] = collections.defaultdict(collections.deque)

    def admit(self, message: Message) -> web.Response | None:
        """Count an edit of ``message``; returns the 429 answering it when it is over a limit, else None (then
        :meth:`headers` gives the rate-limit headers of the successful answer)."""
        limits, channel_id = self.limits, message.channel_id
        now, bucket = self._monotonic(), self._buckets[channel_id]
        if now >= bucket.resets_at:
            bucket.resets_at, bucket.used = now + limits.per, 0
        if bucket.used >= limits.edits:
            wait = bucket.resets_at - now
            body = {"message": "You are being rate limited.", "retry_after": round(wait, 3), "global": False}
            return self._refuse(message, RATE_LIMITED, wait, body, {"X-RateLimit-Scope": "user"})
        bucket.used += 1
        if self.state.age(message) < limits.old_after:
            return None
        clock, edits = self.state.clock(), self._old_edits[channel_id]
        while edits and edits[0] <= clock - limits.old_window:
            edits.popleft()
        if len(edits) >= limits.old_edits:
            wait = edits[0] + limits.old_window - clock
            body = {
                "message": "Maximum number of edits to messages older than 1 hour reached. Try again later.",
                "code": OLD_MESSAGE_EDITS,
                "retry_after": round(wait, 3),
                "global": False,
            }
            return self._refuse(message, OLD_MESSAGE_EDITS, wait, body, {})
        edits.append(clock)
        return None

    def headers(self, channel_id: int) -> dict[str, str]:
        """Discord's rate-limit headers for the channel's bucket, as they stand now."""
        bucket, limits = self._buckets[channel_id], self.limits
        reset_after = max(0.0, bucket.resets_at - self._monotonic())
        return {
            "X-RateLimit-Limit": str(limits.edits),
            "X-RateLimit-Remaining": str(max(0, limits.edits - bucket.used)),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": _BUCKET,
        }

    def _refuse(
        self, message: Message, code: int, wait: float, body: dict[str, object], extra: dict[str, str]
    ) -> web.Response:
        self.refusals.append(EditRefusal(message.channel_id, message.id, code, wait))
        response = json_response(body, 429)
        response.headers.update(self.headers(message.channel_id))
        response.headers.update({"Retry-After": str(math.ceil(wait)), "Via": "1.1 google", **extra})
        return response
