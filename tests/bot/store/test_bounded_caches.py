"""Every in-process cache is bounded: the mapping they are built on, the service's cache of game states and the AI's
memory of announced failures. (The Discord layer's ping memory is the same :class:`BoundedDict`; its board memory
was bounded before.)"""

from __future__ import annotations

import pytest

from ai.api import GameInput, Limits, SearchResult
from bot.bounded import BoundedDict
from bot.service import AiFailed, GameService
from bot.service import _ai_turns as ai_turns
from bot.service import _pipeline as pipeline_module
from tests.bot.service.conftest import Clock, EventLog, ServiceFactory, ai_idle
from tests.bot.service.test_games import ANN, GUILD


def test_bounded_dict_forgets_the_least_recently_used() -> None:
    cache: BoundedDict[str, int] = BoundedDict(2)
    cache["a"], cache["b"] = 1, 2
    assert cache["a"] == 1  # a is now the most recently used
    cache["c"] = 3
    assert dict(cache) == {"a": 1, "c": 3} and len(cache) == 2 and "b" not in cache
    del cache["a"]
    assert list(cache) == ["c"]
    with pytest.raises(ValueError):
        BoundedDict(0)


async def test_the_service_caches_a_bounded_number_of_games(
    make_service: ServiceFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline_module, "CACHED_GAMES", 2)
    service = make_service()
    games = []
    for channel in ("c1", "c2", "c3"):
        result = await service.play_ai(GUILD, channel, ANN, "easy")
        assert result.game is not None
        games.append(result.game)
    assert service.cached_games == 2
    await ai_idle(service)
    oldest = await service.state(games[0].id)
    await service.move(oldest.id, GUILD, ANN, oldest.legal_moves[0])  # read from the store, then cached again
    assert service.cached_games == 2


class BrokenChooser:
    capacity = 4

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        raise RuntimeError("no AI today")


async def test_announced_ai_failures_are_remembered_within_a_bound(
    make_service: ServiceFactory, monkeypatch: pytest.MonkeyPatch, clock: Clock, events: EventLog
) -> None:
    monkeypatch.setattr(ai_turns, "FAILURES_REMEMBERED", 2)
    service: GameService = make_service(chooser_=BrokenChooser(), ai_retry_after=1.0)

    def failures() -> int:
        return sum(isinstance(e, AiFailed) for e in events.events)

    for channel in ("c1", "c2", "c3"):  # the AI plays Black and moves first
        await service.play_ai(GUILD, channel, ANN, "easy", color="white")
    await ai_idle(service)
    assert failures() == 3, "each failure is announced once"
    clock.advance(2)
    await service.sweep()  # every turn starts again and fails again
    await ai_idle(service)
    # Unbounded, all three would be remembered and none announced again; with room for two, a failure forgotten to
    # make room is announced again (which ones depends on the order the retries fail in).
    assert 3 < failures() <= 6
