"""Glicko-2 against Glickman's worked example, and rating bookkeeping through the service."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot.service import CommitConflict, GameService, Rating
from bot.service._ratings import after_game, is_provisional, update
from bot.service._standings import GLOBAL_SCOPE, Standings
from bot.store import RedisGameStore

from .conftest import ServiceFactory
from .test_games import ANN, BOB, GUILD, start_human_game


def test_glickman_example() -> None:
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, results)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.vol == pytest.approx(0.05999, abs=1e-5)


def test_volatility_uses_the_deviation_not_the_rating() -> None:
    # the volatility step needs the deviation (phi), not the rating: a player far from 1500 keeps a sane volatility
    strong = after_game(Rating(2100, 60, 0.06, games=50), Rating(1500, 60), 0.0)
    assert 0.059 < strong.vol < 0.0605
    assert strong.rating < 2100 and strong.games == 51 and strong.losses == 1


def test_provisional_until_the_deviation_falls() -> None:
    rating = Rating()
    opponent = Rating(1500, 60)
    games = 0
    while is_provisional(rating):
        rating = after_game(rating, opponent, 0.5)
        games += 1
    assert 3 <= games <= 20 and rating.rd <= 110


async def play_short_game(service: GameService, resigner: object) -> str:
    view = await start_human_game(service)
    await service.move(view.id, GUILD, ANN, "11-15")
    await service.move(view.id, GUILD, BOB, "22-18")
    await service.resign(view.id, GUILD, resigner)  # type: ignore[arg-type]
    return view.id


async def test_ratings_change_once_even_if_the_end_is_processed_twice(
    service: GameService, redis_client: object
) -> None:
    view = await start_human_game(service)
    await service.move(view.id, GUILD, ANN, "11-15")
    await service.move(view.id, GUILD, BOB, "22-18")
    before = (await service.state(view.id)).game
    await service.resign(view.id, GUILD, BOB)
    after = (await service.state(view.id)).game
    ann = await service.stats(ANN.id)
    assert ann.rating.games == 1 and ann.rating.wins == 1
    # process the same end again, as a second process would: the store refuses it and nothing changes
    store = RedisGameStore(redis_client)  # type: ignore[arg-type]
    standings = Standings(store, service.settings.rated_games_per_pair_per_day)
    settled, settlement, _ = await standings.settle(replace(after, rating_changes=()))
    with pytest.raises(CommitConflict):
        await store.finish_game(before, settled, settlement)
    assert await service.stats(ANN.id) == ann
    assert len(await service.history(ANN.id)) == 1


async def test_concurrent_endings_count_once(make_service: ServiceFactory) -> None:
    one, two = make_service(), make_service()
    view = await start_human_game(one)
    await one.move(view.id, GUILD, ANN, "11-15")
    await one.move(view.id, GUILD, BOB, "22-18")
    await asyncio.gather(
        one.resign(view.id, GUILD, ANN),
        two.resign(view.id, GUILD, BOB),
        one.offer_draw(view.id, GUILD, ANN),
        return_exceptions=True,
    )
    assert (await one.stats(ANN.id)).rating.games == 1
    assert (await one.stats(BOB.id, guild_id=GUILD)).rating.games == 1


async def test_only_a_few_rated_games_per_pair_a_day(service: GameService) -> None:
    limit = service.settings.rated_games_per_pair_per_day
    ids = [await play_short_game(service, BOB) for _ in range(limit + 1)]
    games = [(await service.state(i)).game for i in ids]
    assert [g.rated for g in games] == [True] * limit + [False]
    assert games[-1].unrated_reason is not None and "today" in games[-1].unrated_reason
    assert (await service.stats(ANN.id)).rating.games == limit


async def test_a_resignation_before_both_sides_moved_is_not_rated(service: GameService) -> None:
    view = await start_human_game(service)
    result = await service.resign(view.id, GUILD, BOB)
    assert result.game is not None and not result.game.game.rated
    assert result.game.game.unrated_reason == "too short to rate"
    assert (await service.stats(ANN.id)).rating.games == 0


async def test_ratings_are_per_guild_and_global(service: GameService) -> None:
    await play_short_game(service, BOB)
    guild = await service.stats(ANN.id, guild_id=GUILD)
    other = await service.stats(ANN.id, guild_id="elsewhere")
    world = await service.stats(ANN.id)
    assert guild.rating.games == world.rating.games == 1 and other.rating.games == 0
    assert guild.scope == f"guild:{GUILD}" and world.scope == GLOBAL_SCOPE
    assert [e.user_id for e in await service.leaderboard()] == [ANN.id, BOB.id]
    assert await service.leaderboard(guild_id="elsewhere") == []
