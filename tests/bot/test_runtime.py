"""The composition root's own rules: what it refuses before starting anything, how it shows a Redis URL, and a stop
step that cannot hang. Starting, serving and stopping the whole bot is in tests/bot/cli/test_serve.py."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import Runtime, StartupError, redact_url, stop_within
from bot.settings import Settings
from tests.support import WHOLE_PROCESS, settings_with

SETTINGS = {**WHOLE_PROCESS, "redis_url": None, "discord_token": "not-a-real-token", "discord_guild_id": None}


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    return settings_with(SETTINGS, tmp_path, **overrides)


async def test_no_token_is_a_startup_error(tmp_path: Path) -> None:
    runtime = Runtime(make_settings(tmp_path, discord_token=None))
    with pytest.raises(StartupError, match="DISCORD_TOKEN is not set"):
        await runtime.start()
    assert runtime.embedded is None  # nothing was started


def test_redact_url() -> None:
    assert redact_url("redis://:pw@host:6379/0") == "redis://:***@host:6379/0"
    assert redact_url("rediss://user:pw@host/1") == "rediss://user:***@host/1"
    assert redact_url("redis://host:6379/0") == "redis://host:6379/0"
    assert redact_url("unix:///tmp/redis.sock") == "unix:///tmp/redis.sock"


async def test_a_stop_step_whose_cancellation_is_lost_still_ends() -> None:
    """Python 3.11's wait_for can drop a cancellation (see ``stop_within``); the shutdown then cancels again."""
    lost = 0

    looping = asyncio.Event()

    async def sweeper_like() -> None:
        nonlocal lost
        while True:
            looping.set()
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                if lost:
                    raise
                lost += 1  # the first cancellation disappears, as it does inside redis-py on 3.11

    task = asyncio.create_task(sweeper_like())
    await looping.wait()

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    await asyncio.wait_for(stop_within(stop, "the sweeper", 0.2), 5)
    assert task.done() and lost == 1
