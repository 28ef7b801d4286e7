"""Per-key asyncio locks, so that the commands on one game apply one at a time."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Hashable


class KeyedLocks:
    """One :class:`asyncio.Lock` per key, created on first use and forgotten once nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[Hashable, asyncio.Lock] = weakref.WeakValueDictionary()

    def busy(self, key: Hashable) -> bool:
        """Whether someone holds ``key``'s lock now (so a newcomer would wait)."""
        lock = self._locks.get(key)
        return lock is not None and lock.locked()

    @contextlib.asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        async with lock:
            yield
