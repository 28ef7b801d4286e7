"""What can go wrong when running a private ``redis-server``; every message is one line fit for an operator, but for
a start failure, which ends with the last lines of the server's log."""

from __future__ import annotations


class EmbeddedRedisError(RuntimeError):
    """Base class for errors raised by :mod:`bot.redis_process`."""


class RedisServerNotFound(EmbeddedRedisError):  # noqa: N818 - established public name
    """No usable ``redis-server`` executable could be found."""


class RedisServerStartError(EmbeddedRedisError):
    """The ``redis-server`` process exited or did not answer PING in time."""
