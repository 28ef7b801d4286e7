"""The record of the posts still to edit after an erasure (``GameService.tidyings``), on the real store: kept, crossed
off game by game and dropped with the last, one process at a time, and an unreadable record dropped, never fatal."""

from __future__ import annotations

import redis.asyncio as aioredis

from bot.service import GameId, GameService, UserId
from bot.store import NAMESPACE

ALICE = UserId("101")
KEY = f"{NAMESPACE}:tidying"


async def test_a_tidying_is_crossed_off_game_by_game_and_dropped_with_the_last(service: GameService) -> None:
    tidyings = service.tidyings
    started = await tidyings.start(ALICE, [GameId("g1"), GameId("g2")], ["alice", "", "Deleted player", "Alice A"])
    assert started.names == ("Alice A", "alice"), "no empty name, never the replacement itself"
    [pending] = await tidyings.pending()
    assert pending == started
    left = await tidyings.done_with(pending, GameId("g1"))
    assert left.games == (GameId("g2"),) and await tidyings.pending() == [left]
    assert (await tidyings.done_with(left, GameId("g2"))).games == ()
    assert await tidyings.pending() == []


async def test_one_process_at_a_time_holds_a_persons_edits(service: GameService) -> None:
    tidyings = service.tidyings
    assert await tidyings.claim(ALICE, "first", 30.0)
    assert not await tidyings.claim(ALICE, "second", 30.0), "held by the first"
    assert await tidyings.claim(ALICE, "first", 30.0), "renewed by its holder"
    await tidyings.release(ALICE, "first")
    assert await tidyings.claim(ALICE, "second", 30.0), "free once released"


async def test_an_unreadable_record_is_dropped_and_the_others_kept(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    kept = await service.tidyings.start(ALICE, [GameId("g1")], ["alice"])
    for user, junk in (("102", "not json"), ("103", '{"games": 3, "names": []}'), ("104", '["a"]')):
        await redis_client.hset(KEY, user, junk)
    assert await service.tidyings.pending() == [kept]
    assert await redis_client.hkeys(KEY) == [ALICE.encode()]
