"""A real redis-server on a free TCP port and real ``kingme worker`` processes, for the tests of the AI job queue
(AI_BACKEND=queue). A test module takes the fixtures by naming them: ``world = queue_support.world`` and
``redis_client = queue_support.redis_client``."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from bot.pool import WorkerBeat
from bot.redis_process import EmbeddedRedis
from tests.support import eventually

WORKER_START_TIMEOUT = 120.0
"""Seconds for a worker to start and load the search kernel on a loaded 2-core machine."""


@contextlib.contextmanager
def tcp_redis(directory: Path) -> Iterator[EmbeddedRedis]:
    """A started redis-server on a free TCP port (as workers on other machines would reach it), stopped afterwards."""
    server = EmbeddedRedis(directory, transport="tcp")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def worker_commands(redis_url: str, log_dir: Path, count: int = 2) -> Iterator[WorkerCommands]:
    """:class:`WorkerCommands`, stopped afterwards."""
    commands = WorkerCommands(redis_url, log_dir, count)
    try:
        yield commands
    finally:
        commands.stop()


@dataclass
class QueueWorld:
    """A redis-server on a free TCP port and two ``kingme worker`` commands on it, for a whole test module."""

    server: EmbeddedRedis
    workers: WorkerCommands

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[aioredis.Redis]:
        """A client of the Redis, emptied first, once both workers beat again (their heartbeats come back within a
        second)."""
        client = aioredis.Redis.from_url(self.server.url)
        try:
            await client.flushall()
            await self.workers.wait_live()
            yield client
        finally:
            await client.aclose()


@contextlib.contextmanager
def queue_world(directory: Path) -> Iterator[QueueWorld]:
    """A :class:`QueueWorld` under ``directory``, stopped afterwards."""
    with tcp_redis(directory / "redis") as server, worker_commands(server.url, directory / "workers") as workers:
        yield QueueWorld(server, workers)


class WorkerCommands:
    """``count`` separate ``kingme worker --processes 1`` commands on the Redis at ``redis_url``, their output in
    ``log_dir``. Each runs one worker process (the command's child), which it starts again if it dies."""

    def __init__(self, redis_url: str, log_dir: Path, count: int = 2) -> None:
        self.redis_url = redis_url
        self._client = redis.Redis.from_url(redis_url)
        env = {**os.environ, "REDIS_URL": redis_url, "LOG_LEVEL": "INFO"}
        log_dir.mkdir(parents=True, exist_ok=True)
        self.logs = [log_dir / f"worker-{index}.log" for index in range(count)]
        self.commands: list[subprocess.Popen[bytes]] = []
        for path in self.logs:
            with path.open("wb") as out:
                command = [sys.executable, "-m", "bot", "worker", "--processes", "1"]
                self.commands.append(
                    subprocess.Popen(command, cwd=log_dir, env=env, stdout=out, stderr=subprocess.STDOUT)
                )

    def beats(self) -> list[WorkerBeat]:
        """The live workers' heartbeats, read straight from Redis."""
        keys = list(self._client.scan_iter(match="kingme:ai:worker:*"))
        return [WorkerBeat.loads(value) for value in self._client.mget(keys) if value is not None] if keys else []

    async def wait_live(self, count: int | None = None, within: float = WORKER_START_TIMEOUT) -> list[WorkerBeat]:
        """Wait until ``count`` (default: one per command) workers beat; fail with their logs if a command ends."""
        wanted = len(self.commands) if count is None else count

        def live() -> bool:
            ended = [command.args for command in self.commands if command.poll() is not None]
            assert not ended, f"a worker command ended: {ended}; logs:\n{self.tail()}"
            return len(self.beats()) >= wanted

        await eventually(live, within, f"{wanted} live workers")
        return self.beats()

    def tail(self) -> str:
        """The end of every command's output."""
        return "\n".join(path.read_text(errors="replace")[-3000:] for path in self.logs)

    @contextlib.contextmanager
    def paused(self, pids: Iterable[int] | None = None) -> Iterator[None]:
        """SIGSTOP the worker processes ``pids`` (default: every live one), so that they take no job, and SIGCONT them
        afterwards."""
        pids = [beat.pid for beat in self.beats()] if pids is None else list(pids)
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)

    def stop(self) -> None:
        """SIGTERM every command (it stops its worker), then kill what is left."""
        for command in self.commands:
            if command.poll() is None:
                command.terminate()
        for command in self.commands:
            try:
                command.wait(30)
            except subprocess.TimeoutExpired:
                command.kill()
                command.wait()
        self._client.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QueueWorld]:
    """The module's Redis and two workers (they take a while to load the kernel, so they serve every test)."""
    with queue_world(tmp_path_factory.mktemp("queue")) as made:
        yield made


@pytest.fixture
async def redis_client(world: QueueWorld) -> AsyncIterator[aioredis.Redis]:
    """A client of the module's Redis, emptied for this test, with both workers live."""
    async with world.client() as client:
        yield client
