"""An AI turn's lease, renewed while the AI thinks, and the turn's end even when the renewal drops its cancellation.

On Python 3.11 a Redis command cancelled just as its reply arrives returns the reply and drops the cancellation (see
:mod:`bot.tasks`). A turn that stopped its lease keeper with one ``cancel()`` then waited for it for ever: the turn
never ended (``ai_turns_in_flight`` stayed at 1) and the keeper renewed a finished turn's lease every few moments.
The store here is the real one on the real Redis; only its renewal holds the reply back until the turn ends, which is
how the dropped cancellation is brought about at will."""

from __future__ import annotations

import asyncio
import contextlib

import redis.asyncio as aioredis

from bot.service import GameId, GameService, User
from bot.store import RedisGameStore
from tests.support import Clock

from .conftest import EventLog, SlowChooser, ai_idle, make_settings

BOB = User(202, "Bob")
GUILD = "g1"


class RenewalDropsItsCancellation(RedisGameStore):
    """The real store, whose first renewal of a turn's lease answers only when the turn cancels it, as its reply
    arrives: the renewal returns and the cancellation is gone."""

    def __init__(self, client: aioredis.Redis) -> None:
        super().__init__(client)
        self.claims = 0
        self.renewing = asyncio.Event()
        self._reply = asyncio.Event()

    async def claim_turn(self, game_id: GameId, version: int, holder: str, ttl: float) -> bool:
        self.claims += 1
        if self.claims == 2:  # the turn took its lease (1); this is the keeper's first renewal
            self.renewing.set()
            # the reply comes with the cancellation: asyncio.wait_for returns it and drops the cancellation (gh-86296)
            with contextlib.suppress(asyncio.CancelledError):
                await self._reply.wait()
        return await super().claim_turn(game_id, version, holder, ttl)


async def test_a_turn_ends_even_when_its_lease_renewal_drops_the_cancellation(
    redis_client: aioredis.Redis, clock: Clock, events: EventLog
) -> None:
    store, slow = RenewalDropsItsCancellation(redis_client), SlowChooser()
    service = GameService(store, slow, make_settings(ai_retry_after=0.3), clock=clock, sink=events)
    try:
        started = await service.play_ai(GUILD, "c1", BOB, "easy", color="white")  # the AI (Black) moves first
        assert started.game is not None
        await asyncio.wait_for(store.renewing.wait(), 10.0)  # the AI thinks; its lease is being renewed
        slow.release.set()

        await ai_idle(service, within=10.0)
        assert len((await service.state(started.game.id)).game.moves) == 1, "the AI's move was played"
        renewals = store.claims
        await asyncio.sleep(0.5)  # five renewal periods
        assert store.claims == renewals, "nothing renews the lease of a turn that has ended"
    finally:
        await service.close()
