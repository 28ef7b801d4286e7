"""A process stopped in the middle of moving a tournament on leaves nothing behind that keeps the others from doing it.

The case found in the Discord Swiss with a restart: a game ends as the process stops; the advance it starts has just
taken the tournament's lease in Redis when it is cancelled, before the answer reaches it. That lease must be let go,
or every other process waits a whole lease (a minute) before the next game of the match opens."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from bot.service import GameService, MatchKind, TournamentId, User
from bot.store import RedisGameStore
from tests.support import Clock, eventually

from .conftest import EventLog, ServiceFactory, ThreadChooser, ai_idle, make_settings

GUILD, CHANNEL = "g1", "c1"
ANN, BOB, CID, DEE = (User(100 + i, name) for i, name in enumerate(("Ann", "Bob", "Cid", "Dee")))


class StoppedAfterClaim(RedisGameStore):
    """The real store, except that once :attr:`stall` is set a claim of a tournament's lease runs in Redis and its
    caller never hears back (the process is stopped while the answer is on its way)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        super().__init__(redis)
        self.stall = False
        self.claimed = asyncio.Event()

    async def claim_tournament(self, tournament_id: TournamentId, holder: str, ttl: float) -> bool:
        taken = await super().claim_tournament(tournament_id, holder, ttl)
        if not self.stall:
            return taken
        self.claimed.set()
        await asyncio.Event().wait()  # never answered: only the stop ends this
        return taken


async def test_an_advance_stopped_as_it_took_the_lease_lets_it_go(
    make_service: ServiceFactory, redis_client: aioredis.Redis, clock: Clock, events: EventLog
) -> None:
    store = StoppedAfterClaim(redis_client)
    stopping = GameService(store, ThreadChooser(), make_settings(), clock=clock, sink=events)
    try:
        tournaments = stopping.tournaments
        tid = (await tournaments.create(GUILD, CHANNEL, ANN, rounds=2, match=MatchKind.SINGLE)).id
        for person in (BOB, CID, DEE):
            await tournaments.join(tid, person)
        first, last = [(await stopping.state(g.game_id)).game for g in (await tournaments.start(tid, ANN)).games]
        await stopping.resign(first.id, None, User(first.black.id, first.black.name))
        await eventually(lambda: _scored(stopping, tid, 1), what="the first result recorded")
        store.stall = True
        await stopping.resign(last.id, None, User(last.black.id, last.black.name))  # the round's last game ends...
        await asyncio.wait_for(store.claimed.wait(), 10)  # ...its advance takes the lease, and the process stops
        assert not await RedisGameStore(redis_client).claim_tournament(tid, "a third", 60.0), "the lease is taken"
    finally:
        await stopping.close()
    other = make_service()
    await other.sweep()  # the next sweep of any other process pairs round 2 at once
    record = await other.tournaments.get(tid)
    assert record.round == 2 and len(record.games_of_round(2)) == 2, f"round {record.round}: {record.games}"
    await ai_idle(other)


async def _scored(service: GameService, tid: TournamentId, count: int) -> bool:
    record = await service.tournaments.get(tid)
    return sum(r is not None for p in record.model.rounds[-1].pairings for r in p.results) == count
