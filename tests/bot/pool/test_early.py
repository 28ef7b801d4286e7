"""The AI's workers spawned early, before the bot is imported (``bot.pool.start_early``): a pool that would start the
same workers takes them over; one that would read other endgame databases shuts them down and starts its own."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from ai import egdb
from bot.pool import AiPool, start_early
from bot.pool import _early as early
from tests.support import eventually


def early_pids() -> set[int]:
    [(pool, _)] = early._early.values()
    return set(pool._processes)  # spawned at once: one task submitted per worker


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.fixture(autouse=True)
def _restore_egdb_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EGDB_DIR", os.environ.get("EGDB_DIR", ""))  # start_early sets it; put it back after


async def test_a_pool_takes_over_the_workers_started_early(tmp_path: Path) -> None:
    start_early(1, tmp_path / "egdb")
    spawned = early_pids()
    pool = AiPool(workers=1, queue_limit=4)
    try:
        await pool.start()
        assert {w.pid for w in pool.started_workers} == spawned, "the early worker, not a new one"
        assert early._early == {}
    finally:
        await pool.close()


async def test_early_workers_reading_other_databases_are_shut_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start_early(1, tmp_path / "none")
    spawned = early_pids()
    other = tmp_path / "other"
    other.mkdir()
    (other / egdb.file_name(4)).write_bytes(b"not a database")  # a folder with a database file of its own
    monkeypatch.setenv("EGDB_DIR", str(other))
    pool = AiPool(workers=1, queue_limit=4)
    try:
        await pool.start()
        assert not {w.pid for w in pool.started_workers} & spawned, "a worker of its own"
        await eventually(lambda: not any(map(alive, spawned)), 30, "the early worker gone")
    finally:
        await pool.close()
