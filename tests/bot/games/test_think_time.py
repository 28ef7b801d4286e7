"""The AI's thinking time through the Discord path: ``/checkers play`` gives the game its level's own time unless the
player chose one (``think``), and the process pool searches for exactly that long."""

from __future__ import annotations

from typing import Any

import pytest

from ai.api import GameInput, Limits, SearchResult, get_level
from bot.pool import AiPool, move_time
from bot.settings import Settings
from tests.bot.games.conftest import Harness, board_state, eventually, make_settings, play_ai


class RecordingPool(AiPool):
    """The real process pool, remembering the level and limits of every move it was asked for."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[str, Limits | None]] = []

    async def choose(self, level: str, game: GameInput, limits: Limits | None = None, seed: int = 0) -> SearchResult:
        self.asked.append((level, limits))
        return await super().choose(level, game, limits, seed)


@pytest.fixture
def pool_type() -> type[AiPool]:
    return RecordingPool


@pytest.fixture
def settings() -> Settings:
    """The shipped cap on thinking time (the shared fixture caps it at 0.05 s to keep the suite fast)."""
    return make_settings(ai_think_time_max=Settings.model_fields["ai_think_time_max"].default)


async def first_ai_move(harness: Harness, options: dict[str, Any]) -> tuple[str, Limits | None]:
    """``/checkers play`` as White, so the AI opens; wait for its move on the board; the level and limits it had."""
    pool = harness.pool
    assert isinstance(pool, RecordingPool)
    board = await play_ai(harness, harness.user("alice"), {"colour": "white", **options})
    await eventually(lambda: board_state(board) is not None, within=60, what="the AI's first move on the board")
    (asked,) = pool.asked
    return asked


async def test_master_thinks_its_own_two_seconds_on_discord(harness: Harness) -> None:
    level, limits = await first_ai_move(harness, {"level": "master"})
    assert level == "master" and limits is not None
    assert limits.time == get_level("master").default_limits.time == 2.0
    assert move_time(level, limits) == 2.0, "the pool gives the search its 2 s"


async def test_the_time_the_player_chose_wins_over_the_levels(harness: Harness) -> None:
    level, limits = await first_ai_move(harness, {"level": "master", "think": 0.2})
    assert level == "master" and limits is not None and limits.time == 0.2
    assert move_time(level, limits) == 0.2
