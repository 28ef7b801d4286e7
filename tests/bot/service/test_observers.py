"""Observers hear every committed step's events once, from requests and from the background alike; the metrics count
moves and endings with them, reading who moved from the events."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import Metrics
from bot.service import ChallengeAccepted, ChallengeCreated, Event, GameOver, GameStarted, IllegalMoveError, MovePlayed

from .conftest import EventLog, ServiceFactory, ai_idle
from .test_games import ANN, BOB, GUILD, start_human_game


class Heard:
    """An observer that keeps every batch it hears."""

    def __init__(self) -> None:
        self.batches: list[tuple[Event, ...]] = []

    def __call__(self, events: Sequence[Event]) -> None:
        self.batches.append(tuple(events))

    def kinds(self) -> list[type[Event]]:
        return [type(e) for batch in self.batches for e in batch]


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(metrics.render().decode())
        for sample in family.samples
    }


async def test_requests_and_background_steps_are_observed_once(make_service: ServiceFactory, events: EventLog) -> None:
    heard, metrics = Heard(), Metrics()
    service = make_service(observers=[heard, metrics.count_events], one_game_per_channel=False)
    view = await start_human_game(service)
    await service.move(view.id, GUILD, ANN, "11-15")
    with pytest.raises(IllegalMoveError):
        await service.move(view.id, GUILD, BOB, "11-15")  # refused: nothing committed, nothing heard
    await service.move(view.id, GUILD, BOB, "22-18")
    await service.resign(view.id, GUILD, ANN)
    await service.play_ai(GUILD, "c2", ANN, "easy", color="white")  # the AI opens, in the background
    await ai_idle(service)

    kinds = heard.kinds()
    assert kinds[:3] == [ChallengeCreated, ChallengeAccepted, GameStarted]
    assert (kinds.count(MovePlayed), kinds.count(GameOver)) == (3, 1)
    background = [e for e in events.events if isinstance(e, MovePlayed)]
    assert len(background) == 1 and background[0].ai, "the sink hears the AI's move once, as before"
    counted = samples(metrics)
    assert counted[("kingme_moves_total", (("player", "human"),))] == 2
    assert counted[("kingme_moves_total", (("player", "ai"),))] == 1
    assert counted[("kingme_games_finished_total", (("termination", "resignation"),))] == 1


async def test_a_failing_observer_does_not_undo_the_step(make_service: ServiceFactory) -> None:
    def broken(events: Sequence[Event]) -> None:
        raise RuntimeError("observer down")

    service = make_service(observers=[broken])
    view = await start_human_game(service)
    result = await service.move(view.id, GUILD, ANN, "11-15")
    assert result.game is not None and result.game.game.moves == ("11-15",)
    assert (await service.state(view.id, GUILD)).game.moves == ("11-15",)
