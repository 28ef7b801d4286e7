"""Fixtures of the fuzz: its own Redis (keyspace notifications on), the seed, and the log of errors."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bot.pool import ThreadChooser
from bot.redis_process import EmbeddedRedis
from tests.bot.fuzz._inputs import seed
from tests.bot.fuzz._invariants import ErrorLog


@pytest.fixture
def fuzz_seed() -> int:
    value = seed()
    print(f"fuzz seed {value}")
    return value


@pytest.fixture
def fuzz_redis_server(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    """A Redis of the fuzz's own: the invariants follow its writes by keyspace notifications."""
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def fuzz_redis(fuzz_redis_server: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(fuzz_redis_server.url, decode_responses=False)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def threads() -> AsyncIterator[ThreadChooser]:
    """The AI in two threads of this process (the bot's ``USE_THREADS`` backend): real searches, no processes to
    start."""
    chooser = ThreadChooser(2)
    await chooser.start()
    try:
        yield chooser
    finally:
        await chooser.close()


@pytest.fixture
def error_log() -> Iterator[ErrorLog]:
    """Every record logged at ERROR or above while the test runs."""
    handler = ErrorLog()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
