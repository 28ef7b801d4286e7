"""A lease in Redis, so that work which must happen once (the sweeper: timeouts, expiries, stuck AI turns) runs in one
of the bot's processes at a time, and moves to another when that one stops or dies.

The lease is one key, ``{ns}:lease:{name}``, whose value names its holder and which expires after ``ttl`` seconds
unless renewed. It is taken with ``SET NX PX`` (only when free), renewed and released by small scripts that first
check the holder is still this process (compare-and-set), so a process whose lease expired while it was stalled never
renews or deletes the lease another process has taken since. A holder that dies simply stops renewing: its lease
expires and the next process to ask takes it. Redis out of reach is :class:`bot.service.StoreUnavailableError`, as
from the store.
"""

from __future__ import annotations

import os
import secrets
import socket

import redis.asyncio as aioredis

from bot.store._connection import unavailable_as_service_error
from bot.store._redis_base import NAMESPACE

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


def process_name() -> str:
    """A name for this process that no other shares: host, pid and a random part (a pid is reused after a restart)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@unavailable_as_service_error
class RedisLease:
    """The lease ``name``, held for ``ttl`` seconds at a time by ``holder`` (default: :func:`process_name`), under the
    store's ``namespace``."""

    def __init__(
        self, redis: aioredis.Redis, name: str, *, ttl: float, holder: str | None = None, namespace: str = NAMESPACE
    ) -> None:
        if ttl <= 0:
            raise ValueError("a lease needs a positive ttl")
        self.key = f"{namespace}:lease:{name}"
        self.holder = holder or process_name()
        self._redis = redis
        self._ttl_ms = max(1, round(ttl * 1000))
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._held = False

    @property
    def held(self) -> bool:
        """Whether this process held the lease when it last asked (:meth:`hold`)."""
        return self._held

    async def hold(self) -> bool:
        """Renew the lease if this process holds it, else take it if it is free; True when this process holds it
        for the next ``ttl`` seconds."""
        renewed = await self._renew(keys=[self.key], args=[self.holder, self._ttl_ms])
        self._held = bool(renewed) or bool(await self._redis.set(self.key, self.holder, nx=True, px=self._ttl_ms))
        return self._held

    async def release(self) -> None:
        """Give the lease up (if this process still holds it), so another process takes it at once."""
        self._held = False
        await self._release(keys=[self.key], args=[self.holder])

    async def holder_now(self) -> str | None:
        """Who holds the lease now, if anyone."""
        value = await self._redis.get(self.key)
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)
