"""The Redis client of the store, and how its failures reach the game service.

A Redis outage (the server killed, restarting, still replaying its append-only file, or out of reach) must neither
crash a request nor wedge a background task: the client retries a failed command a few times with a short
exponential backoff (so a restart under a second goes unnoticed), opens a fresh connection for each retry, and then
gives up; the store turns what is left into :class:`bot.service.StoreUnavailableError`, which every front end shows as
"cannot reach its storage". Nothing is kept about the outage: the first command after Redis is back simply works.

Each command opens its connection on its own (:class:`ConnectingPool`): redis-py 5's pool opens one at a time, holding
its lock through the retries, so during an outage every command of the process queued behind the others' 0.7 s of
retries and a player's move waited seconds for its "cannot reach its storage".
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Final, ParamSpec, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.asyncio.retry import Retry  # the asyncio one: the sync one cannot retry a coroutine
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from bot.service import StoreUnavailableError

log = logging.getLogger(__name__)

CONNECT_TIMEOUT: Final = 2.0
"""Seconds to open a connection (a host that drops packets fails after this, not after the kernel's minutes)."""
COMMAND_TIMEOUT: Final = 5.0
"""Seconds a command's reply may take; the store sends no blocking command, so only a hung server takes this long."""
RETRIES: Final = 3
"""Retries of a command that failed on its connection (the first try not counted)."""
BACKOFF: Final = ExponentialBackoff(cap=0.5, base=0.05)
"""Waits between the retries: 0.1 s, 0.2 s, 0.4 s (about 0.7 s in all, well inside Discord's 3 s)."""
HEALTH_CHECK_INTERVAL: Final = 30
"""Seconds a pooled connection may sit idle before it is checked with PING on its next use."""

_RETRIED: Final = (RedisConnectionError, RedisTimeoutError)
"""Failures worth another try on a new connection (``BusyLoadingError``, "still loading", is a ConnectionError)."""
_RETRIED_CONNECTING: Final = (ConnectionRefusedError, FileNotFoundError)
"""And while connecting, where a server that is restarting refuses the connection or has no socket file yet: the
socket's own errors, which redis-py retries (with the backoff) only when told to."""
_REFUSING: Final = ("MISCONF", "READONLY", "MASTERDOWN", "LOADING")
"""Error replies of a server that is up but cannot take the command now (cannot persist, a replica, loading)."""

P = ParamSpec("P")
R = TypeVar("R")
C = TypeVar("C", bound=type)


class ConnectingPool(ConnectionPool):
    """redis-py's pool, except that a connection is opened (with its retries) outside the pool's lock, as redis-py
    7.2 does: the lock guards only the choice of a connection, so one slow or failing connect holds up no other
    command. (arq, the AI job queue, keeps redis-py below 6.)"""

    async def get_connection(
        self, command_name: str | None = None, *keys: object, **options: object
    ) -> AbstractConnection:
        async with self._lock:
            connection: AbstractConnection = self.get_available_connection()  # type: ignore[no-untyped-call]
        try:
            await self.ensure_connection(connection)
        except BaseException:
            await self.release(connection)
            raise
        return connection


def connect(url: str, *, command_timeout: float = COMMAND_TIMEOUT) -> aioredis.Redis:
    """A client for ``url`` (``redis://``, ``rediss://`` or ``unix://``) that rides out short outages as above. A
    command whose reply takes longer than ``command_timeout`` is sent again on a new connection: a write sent again
    is made once all the same when it carries its request (see :mod:`bot.service._requests`)."""
    pool = ConnectingPool.from_url(
        url,
        socket_connect_timeout=CONNECT_TIMEOUT,
        socket_timeout=command_timeout,
        retry=Retry(BACKOFF, RETRIES),
        retry_on_error=[*_RETRIED, *_RETRIED_CONNECTING],
        health_check_interval=HEALTH_CHECK_INTERVAL,
    )
    client: aioredis.Redis = aioredis.Redis.from_pool(pool)
    return client


def connect_probe(url: str) -> aioredis.Redis:
    """A client for health checks: one try and no retries, so that ``/healthz`` says how Redis is now, not after the
    retries that hide a short outage from the players."""
    client: aioredis.Redis = aioredis.Redis.from_url(
        url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=COMMAND_TIMEOUT, retry=Retry(NoBackoff(), 0)
    )
    return client


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the store cannot be used right now (as opposed to a bug or a refused command)."""
    if isinstance(error, (*_RETRIED, ReadOnlyError, OSError)):
        return True
    return isinstance(error, ResponseError) and str(error).startswith(_REFUSING)


def _guarded(method: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[object, object, R]]:
    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            log.warning("Redis is unavailable (%s in %s): %s", type(exc).__name__, method.__qualname__, exc)
            raise StoreUnavailableError() from exc

    return call


def unavailable_as_service_error(cls: C) -> C:
    """Class decorator: every public coroutine method of ``cls`` raises :class:`StoreUnavailableError` instead of
    Redis's connection errors, so no caller of the store ever sees a redis-py exception (and a method added later is
    covered without anyone remembering to)."""
    names = {name for klass in cls.__mro__ if klass is not object for name in vars(klass)}  # inherited ones too
    for name in sorted(names):
        member = inspect.getattr_static(cls, name)
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, _guarded(member))
    return cls
