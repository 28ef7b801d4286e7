"""Fixtures shared by the bot's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.emulator import DiscordEmulator, EditLimits, patch_discordpy


@pytest.fixture
def emulator_answer_timeout() -> float:
    """How long the emulator waits for the bot to answer an interaction (a test module may override it)."""
    return 10.0


@pytest.fixture
def emulator_options() -> dict[str, Any]:
    """More arguments for the emulator (a test module may override it, say with ``shards``)."""
    return {}


@pytest.fixture
async def emulator(emulator_answer_timeout: float, emulator_options: dict[str, Any]) -> AsyncIterator[DiscordEmulator]:
    """A local Discord with discord.py pointed at it; afterwards, no route discord.py called may be missing."""
    emu = DiscordEmulator(answer_timeout=emulator_answer_timeout, **emulator_options)
    # whole games played at machine speed edit a board faster than Discord's 5 edits per 5 s allow: the suite relaxes
    # the rate limit (tests of Discord's limits set them: tests/bot/emulator/test_edit_limits.py, games/test_long_games)
    emu.rest.edits.limits = EditLimits(edits=100, per=1.0)
    await emu.start()
    try:
        with patch_discordpy(emu):
            yield emu
    finally:
        await emu.stop()
    assert emu.rest.unhandled == [], "discord.py called routes the emulator does not serve"
