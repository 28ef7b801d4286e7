"""The sweeper ends overdue games on time and expires old challenges; the clock is the test's. With a lease in Redis,
of several sweepers (one per process) one sweeps at a time, and another takes over when it stops or dies."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from bot.service import (
    ChallengeExpired,
    ChallengeStatus,
    ChannelId,
    GameOver,
    GameService,
    GuildId,
    RatingChanged,
    Sweeper,
    UnknownChallengeError,
)
from bot.store import RedisLease
from tests.support import eventually

from .conftest import Clock, EventLog, ServiceFactory, SlowChooser, ThreadChooser, ai_idle
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
    assert isinstance(events.events[-1], RatingChanged) or any(isinstance(e, GameOver) for e in events.events)
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
    assert isinstance(events.events[-1], ChallengeExpired)
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


async def test_a_lease_is_held_by_one_holder_and_renewed_only_by_it(redis_client: aioredis.Redis) -> None:
    first = RedisLease(redis_client, "job", ttl=60)
    second = RedisLease(redis_client, "job", ttl=60)
    assert first.holder != second.holder
    assert await first.hold() and first.held
    assert not await second.hold() and not second.held
    assert await first.hold(), "the holder renews it"
    assert await second.holder_now() == first.holder
    await second.release()  # not its lease: nothing happens
    assert await first.holder_now() == first.holder
    await first.release()
    assert await first.holder_now() is None and not first.held
    assert await second.hold() and await first.holder_now() == second.holder


async def test_an_expired_lease_passes_on_and_its_old_holder_cannot_renew_or_release_it(
    redis_client: aioredis.Redis,
) -> None:
    stalled = RedisLease(redis_client, "job", ttl=0.05)
    assert await stalled.hold()
    await eventually(lambda: _gone(redis_client, stalled.key), what="the lease's expiry")
    taker = RedisLease(redis_client, "job", ttl=60)
    assert await taker.hold()
    assert not await stalled.hold(), "the old holder finds it taken"
    await stalled.release()
    assert await taker.holder_now() == taker.holder
    assert 0 < await redis_client.pttl(taker.key) <= 60_000


async def _gone(client: aioredis.Redis, key: str) -> bool:
    return not await client.exists(key)


async def test_of_two_sweepers_with_a_lease_one_sweeps_until_it_stops(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    interval = 0.02
    ttl = 30.0  # far longer than any stall of a loaded machine: only the holder's stop hands the lease on here (a
    # lease that runs out is taken over in the test below)
    sweepers = [Sweeper(service, interval, lease=RedisLease(redis_client, "sweeper", ttl=ttl)) for _ in range(2)]
    sweepers[0].start()
    await eventually(lambda: sweepers[0].holds_lease and sweepers[0].runs >= 1, what="the first sweeper sweeping")
    sweepers[1].start()
    try:
        runs = sweepers[0].runs
        await eventually(lambda: sweepers[0].runs >= runs + 5, what="more sweeps by the holder")
        assert not sweepers[1].holds_lease and sweepers[1].runs == 0, "the other one only asks for the lease"

        await sweepers[0].stop()  # gives the lease up: the other takes it at its next tick
        assert not sweepers[0].holds_lease
        stopped_at = sweepers[0].runs
        await eventually(lambda: sweepers[1].holds_lease and sweepers[1].runs >= 3, what="the takeover")
        assert sweepers[0].runs == stopped_at
    finally:
        for sweeper in sweepers:
            await sweeper.stop()
    assert await redis_client.exists("kingme:v1:lease:sweeper") == 0, "released on stop"


async def test_a_dead_holders_lease_is_taken_over_when_it_expires(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    dead = RedisLease(redis_client, "sweeper", ttl=0.3)  # a process that took the lease, then died
    assert await dead.hold()
    sweeper = Sweeper(service, 0.02, lease=RedisLease(redis_client, "sweeper", ttl=0.3))
    sweeper.start()
    try:
        await eventually(lambda: sweeper.runs >= 1, what="the takeover after the dead holder's lease expired")
        assert sweeper.holds_lease and not await dead.hold()
    finally:
        await sweeper.stop()


def test_without_a_lease_a_sweeper_always_sweeps(service: GameService) -> None:
    assert Sweeper(service).holds_lease


async def test_the_sweeper_leaves_an_ai_turn_another_live_process_waits_for(
    make_service: ServiceFactory, clock: Clock
) -> None:
    """Two processes of the bot on one store: the one whose AI turn waits long (the AI is slow or busy) keeps its
    turn's lease, so the other one's sweeper, which restarts the turns waiting longer than AI_RETRY_AFTER, does not
    search it a second time; once the first one is gone (its lease lapsed), the sweeper takes the turn over."""
    slow, other = SlowChooser(), ThreadChooser()
    owner = make_service(chooser_=slow, ai_retry_after=0.6)
    sweeper = make_service(chooser_=other, ai_retry_after=0.6)
    started = await owner.play_ai(GuildId("g"), ChannelId("c"), ANN, "easy", color="white")
    assert started.game is not None
    await asyncio.wait_for(slow.asked.wait(), 10)
    for _ in range(3):  # the turn waits for longer than AI_RETRY_AFTER, several times over
        await asyncio.sleep(0.4)
        clock.advance(1.0)
        await sweeper.sweep()
        await ai_idle(sweeper)
    assert other.calls == 0, "the turn a live process waits for is not searched again"
    slow.release.set()
    await ai_idle(owner)
    assert len((await owner.state(started.game.id)).game.moves) == 1, "the owner's search made the move, once"

    stuck = await owner.play_ai(GuildId("g"), ChannelId("c2"), BOB, "easy", color="white")
    assert stuck.game is not None
    slow.release.clear()
    await owner.close()  # the owner stops while its turn waits: its lease lapses
    await asyncio.sleep(0.7)
    clock.advance(1.0)
    await sweeper.sweep()
    await ai_idle(sweeper)
    assert other.calls == 1 and len((await sweeper.state(stuck.game.id)).game.moves) == 1, "taken over"
