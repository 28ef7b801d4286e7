"""The sweeper ends overdue games on time and expires old challenges; the clock is the test's."""

from __future__ import annotations

import pytest

from bot.service import (
    ChallengeStatus,
    EventKind,
    GameService,
    Sweeper,
    UnknownChallengeError,
)
from tests.support import eventually

from .conftest import Clock, EventLog
from .test_games import ANN, BOB, CHANNEL, GUILD, start_human_game


async def test_overdue_game_is_lost_on_time_by_the_side_to_move(
    service: GameService, clock: Clock, events: EventLog
) -> None:
    view = await start_human_game(service, turn_time=3600)
    await service.move(view.id, GUILD, ANN, "11-15")
    await service.move(view.id, GUILD, BOB, "22-18")
    clock.advance(3599)
    assert await Sweeper(service).run_once() == 0
    clock.advance(2)
    assert await Sweeper(service).run_once() == 1
    final = await service.state(view.id)
    assert final.game.termination == "time" and final.game.winner == "white"  # Black (Ann) was to move
    assert final.game.end_text == "White wins: Black ran out of time"
    assert events.events[-1].kind is EventKind.RATING_CHANGED or any(
        e.kind is EventKind.GAME_OVER for e in events.events
    )
    assert (await service.stats(ANN.id)).rating.games == 1
    assert await Sweeper(service).run_once() == 0  # nothing left to do, nothing done twice
    assert (await service.stats(ANN.id)).rating.games == 1


async def test_a_move_resets_the_deadline(service: GameService, clock: Clock) -> None:
    view = await start_human_game(service, turn_time=600)
    clock.advance(500)
    await service.move(view.id, GUILD, ANN, "11-15")
    clock.advance(500)
    assert await service.sweep() == []
    assert (await service.state(view.id)).seconds_left == pytest.approx(100)


async def test_expired_challenge_is_cancelled(service: GameService, clock: Clock, events: EventLog) -> None:
    result = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert result.challenge is not None
    clock.advance(service.settings.challenge_ttl + 1)
    with pytest.raises(UnknownChallengeError, match="expired"):
        await service.accept(result.challenge.id, GUILD, BOB)
    swept = await service.sweep()
    assert len(swept) == 1 and swept[0].challenge is not None
    assert swept[0].challenge.status is ChallengeStatus.EXPIRED
    assert events.events[-1].kind is EventKind.CHALLENGE_EXPIRED
    assert await service.challenges_of(BOB.id) == []
    with pytest.raises(UnknownChallengeError, match="no longer open"):
        await service.accept(result.challenge.id, GUILD, BOB)


async def test_sweeper_task_runs_on_its_own(service: GameService, clock: Clock) -> None:
    view = await start_human_game(service, turn_time=60)
    clock.advance(61)
    sweeper = Sweeper(service, interval=0.01)
    sweeper.start()

    async def ended() -> bool:
        return not (await service.state(view.id)).game.is_active

    try:
        await eventually(ended, within=5, what="the sweeper ending the game on time")
    finally:
        await sweeper.stop()
    assert (await service.state(view.id)).game.termination == "time"
