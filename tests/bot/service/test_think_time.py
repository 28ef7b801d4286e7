"""The AI's thinking time has one owner: a game uses its level's own time unless the player chose one, and
``AI_THINK_TIME_MAX`` caps both."""

from __future__ import annotations

import redis.asyncio as aioredis

from ai.api import GameInput, Limits, SearchResult, get_level
from bot.service import GameService, InvalidRequestError
from bot.service._ai_turns import think_limits

from .conftest import ServiceFactory, ThreadChooser, ai_idle
from .test_errors import refused
from .test_games import ANN, GUILD


class RecordingChooser(ThreadChooser):
    """The in-process chooser, remembering the limits it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.limits: list[Limits] = []

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self.limits.append(limits)
        return await super().choose(level, game, limits, seed)


def test_the_limits_are_the_levels_own_unless_chosen_and_capped() -> None:
    assert get_level("master").default_limits.time == 2.0
    assert think_limits("master", None, 10.0) == Limits(time=2.0)
    assert think_limits("master", None, 0.5) == Limits(time=0.5), "capped"
    assert think_limits("master", 0.3, 10.0) == Limits(time=0.3), "chosen"
    assert think_limits("hard", 4.0, 3.0) == Limits(time=3.0), "chosen, and capped"
    assert think_limits("medium", None, 10.0) == Limits(depth=5), "a level bounded by depth keeps no time limit"
    assert think_limits("medium", 0.2, 10.0) == Limits(time=0.2, depth=5)


async def first_ai_move(service: GameService, chooser: RecordingChooser, channel: str, **options: object) -> Limits:
    """Start a game where the AI (``hard``, Black) opens, wait for its move, and return the limits it was given."""
    start = await service.play_ai(GUILD, channel, ANN, "hard", color="white", **options)  # type: ignore[arg-type]
    assert start.game is not None
    await ai_idle(service)
    assert len((await service.state(start.game.id)).game.moves) == 1
    return chooser.limits[-1]


async def test_a_chosen_time_is_used_and_the_levels_own_is_capped(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    chooser = RecordingChooser()
    service = make_service(chooser_=chooser, ai_think_time_max=0.5, one_game_per_channel=False)
    assert await first_ai_move(service, chooser, "c1", think_time=0.2) == Limits(time=0.2)
    assert await first_ai_move(service, chooser, "c2") == Limits(time=0.5), "hard's own 1 s, capped"
    games = {view.game.ai_think_time for view in await service.user_games(ANN.id)}
    assert games == {0.2, None}, "a game stores the time the player chose, or None"
    await refused(
        redis_client,
        InvalidRequestError,
        "between 0 and 0.5 seconds",
        lambda: service.play_ai(GUILD, "c3", ANN, "hard", think_time=0.6),
    )
