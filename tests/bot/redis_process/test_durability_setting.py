"""``REDIS_APPENDFSYNC``: validated where it is read, and applied by the embedded redis-server the bot starts."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis.asyncio as aioredis
from pydantic import ValidationError

from bot.emulator import DiscordEmulator
from bot.redis_process import EmbeddedRedis
from bot.runtime import Runtime
from tests.bot.test_runtime import make_settings


def test_only_everysec_and_always_are_accepted(tmp_path: Path) -> None:
    assert make_settings(tmp_path).redis_appendfsync == "everysec"
    assert make_settings(tmp_path, redis_appendfsync="always").redis_appendfsync == "always"
    for wrong in ("no", "sometimes", ""):
        with pytest.raises(ValidationError, match="redis_appendfsync"):
            make_settings(tmp_path, redis_appendfsync=wrong)
        with pytest.raises(ValueError, match="appendfsync must be one of everysec, always"):
            EmbeddedRedis(tmp_path, appendfsync=wrong)  # type: ignore[arg-type]


async def test_the_bot_starts_its_redis_server_with_the_setting(emulator: DiscordEmulator, tmp_path: Path) -> None:
    settings = make_settings(tmp_path, discord_token=emulator.token, use_threads=True, redis_appendfsync="always")
    async with Runtime(settings, bot_options={"guild_ready_timeout": 0.05}) as runtime:
        assert runtime.embedded is not None
        async with aioredis.Redis.from_url(runtime.embedded.url, decode_responses=True) as client:
            assert await client.config_get("appendfsync") == {"appendfsync": "always"}
            assert await client.config_get("appendonly") == {"appendonly": "yes"}
