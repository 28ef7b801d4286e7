"""The embedded redis-server supervised: killed from outside (SIGKILL), it is started again on the same data at the same
address and the clients connected before go on; one that keeps failing is tried less and less often, and each outage
is logged once; one its owner stopped stays stopped; stopping the supervisor lets a start under way finish, so the
owner then stops a whole server. Real redis-server processes throughout (a wrapper script stands in front of the real
binary where a test needs a server that refuses to start, or starts slowly)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from bot.redis_process import Backoff, EmbeddedRedis, RedisSupervisor, find_redis_server
from tests.support import eventually

LOGGER = "bot.redis_process._supervisor"
QUICK = Backoff(first=0.1, most=0.4, stable_after=30.0)


def wrapper(tmp_path: Path, body: str) -> Path:
    """A ``redis-server`` that runs ``body`` (shell) and then becomes the real one (``exec``: the same pid)."""
    script = tmp_path / "redis-server"
    script.write_text(f'#!/bin/sh\n{body}\nexec "{find_redis_server()}" "$@"\n')
    script.chmod(0o755)
    return script


def kill(server: EmbeddedRedis) -> int:
    """SIGKILL the server from outside, as the OOM killer would; returns its pid."""
    pid = server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    return pid


def records(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LOGGER]


@pytest.fixture
def server(redis_server: EmbeddedRedis) -> EmbeddedRedis:
    """The suite's private, started server (tests/conftest.py), here the one under supervision."""
    return redis_server


@pytest.fixture
async def supervised(server: EmbeddedRedis) -> AsyncIterator[RedisSupervisor]:
    supervisor = RedisSupervisor(server, backoff=QUICK)
    supervisor.start()
    try:
        yield supervisor
    finally:
        await supervisor.stop()


@contextlib.asynccontextmanager
async def wrapped_and_supervised(tmp_path: Path, body: str) -> AsyncIterator[tuple[EmbeddedRedis, RedisSupervisor]]:
    """A started server behind :func:`wrapper` ``body``, and its supervisor; both stopped afterwards, in that order."""
    server = EmbeddedRedis(tmp_path / "redis", binary=wrapper(tmp_path, body), start_timeout=10).start()
    supervisor = RedisSupervisor(server, backoff=QUICK)
    supervisor.start()
    try:
        yield server, supervisor
    finally:
        await supervisor.stop()
        server.stop()


async def test_a_killed_server_is_started_again_on_the_same_data(
    server: EmbeddedRedis, supervised: RedisSupervisor, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    url = server.url
    async with aioredis.Redis.from_url(url) as client:
        await client.set("game", "11-15")
        assert supervised.status().as_json() == {"state": "running", "restarts": 0}
        pid = kill(server)

        await eventually(lambda: supervised.status().restarts == 1, 5, "the server started again (and loaded)")
        assert server.pid not in (None, pid) and server.url == url
        assert await client.get("game") == b"11-15", "the client connected before goes on, and the data is there"
        status = supervised.status()
        assert (status.state, status.down_seconds) == ("running", None)
        assert status.last_outage_seconds is not None and status.last_outage_seconds < 2
    [(down_level, down), (back_level, back)] = records(caplog)
    assert down_level == logging.WARNING and "was killed by SIGKILL" in down and url in down
    assert back_level == logging.INFO and "is back" in back and "1 start" in back


async def test_a_server_that_keeps_failing_is_tried_less_and_less_often_and_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    refuse = tmp_path / "refuse"
    refusing = f'[ -e "{refuse}" ] && {{ echo "refusing to start" >&2; exit 1; }}'
    async with wrapped_and_supervised(tmp_path, refusing) as (server, supervisor):
        refuse.touch()
        kill(server)
        await eventually(lambda: supervisor.status().attempts >= 3, 10, "three failed starts")
        began = time.monotonic()
        tried = supervisor.status().attempts
        await asyncio.sleep(1.6)
        status = supervisor.status()
        assert status.state == "restarting" and status.down_seconds is not None and status.down_seconds > 1.6
        assert status.as_json()["attempts"] == status.attempts
        # at most one start per 0.4 s (the back-off's ceiling) now, where polling alone would try every 0.1 s
        assert status.attempts - tried <= (time.monotonic() - began) / 0.4 + 1, status
        assert not server.running

        refuse.unlink()
        await eventually(lambda: supervisor.status().state == "running", 5, "the server back once it can start")
        assert server.ping() and supervisor.status().restarts == 1
    logged = records(caplog)
    assert [level for level, _ in logged] == [logging.WARNING, logging.WARNING, logging.INFO], logged
    assert "did not start again (redis-server exited with code 1 during startup" in logged[1][1]
    assert "redis-server.log" in logged[1][1]
    assert "is back" in logged[2][1]


def test_the_back_off_doubles_up_to_its_ceiling() -> None:
    backoff = Backoff(first=0.5, most=30.0)
    assert [backoff.delay(n) for n in range(9)] == [0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert backoff.delay(10_000) == 30.0


@pytest.mark.parametrize("how", ["stop", "kill"])
async def test_a_server_its_owner_stopped_stays_stopped(
    server: EmbeddedRedis, supervised: RedisSupervisor, how: str
) -> None:
    getattr(server, how)()
    await asyncio.sleep(0.5)  # five looks at the process
    assert not server.running and not server.ping()
    assert supervised.status().as_json() == {"state": "stopped", "restarts": 0}


async def test_after_stop_nothing_starts_the_server_again(server: EmbeddedRedis) -> None:
    supervisor = RedisSupervisor(server, backoff=QUICK)
    supervisor.start()
    await supervisor.stop()
    kill(server)
    await asyncio.sleep(0.5)
    assert not server.running and supervisor.status().restarts == 0


async def test_stop_lets_a_start_under_way_finish(tmp_path: Path) -> None:
    """A start runs in a thread that a cancellation cannot stop: ``stop()`` waits for it, so the server the owner stops
    next is the whole one, not one that comes up behind its back."""
    slow = tmp_path / "slow"
    async with wrapped_and_supervised(tmp_path, f'[ -e "{slow}" ] && sleep 1') as (server, supervisor):
        slow.touch()
        kill(server)
        await eventually(lambda: supervisor.status().attempts == 1, 5, "a start under way")
        await supervisor.stop()
        assert server.ping(), "stop() returned before the start under way had finished"
        server.stop()
        assert not server.running and not server.ping()
