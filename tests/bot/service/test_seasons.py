"""Seasons: a server's ladder that starts afresh beside the all-time one, kept as it ended when the next starts, and
erased with a person's data."""

from __future__ import annotations

import pytest

from bot.service import GameService, GuildId, InvalidRequestError, UserId

from .test_games import ANN, BOB, GUILD
from .test_ratings import play_short_game

G = GuildId(GUILD)


def ladder(entries: list[object]) -> list[tuple[str, int]]:
    return [(e.user_id, e.games) for e in entries]  # type: ignore[attr-defined]


async def test_a_season_counts_the_rated_games_played_while_it_runs(service: GameService) -> None:
    await play_short_game(service, BOB)  # before any season: on the all-time ladders only
    assert await service.seasons.current(G) is None
    with pytest.raises(InvalidRequestError):
        await service.leaderboard(guild_id=G, season=1)

    first = await service.seasons.start(G)
    assert (first.number, first.name) == (1, "Season 1")
    assert await service.leaderboard(guild_id=G, season=1) == [], "a season starts empty"
    await play_short_game(service, BOB)
    season = await service.leaderboard(guild_id=G, season=1)
    assert sorted(ladder(season)) == [(str(ANN.id), 1), (str(BOB.id), 1)]
    assert season[0].user_id == str(ANN.id), "the winner first"
    assert sorted(ladder(await service.leaderboard(guild_id=G))) == [(str(ANN.id), 2), (str(BOB.id), 2)]

    second = await service.seasons.start(G, "Winter")
    assert (second.number, second.name) == (2, "Winter")
    await play_short_game(service, ANN)
    assert sorted(ladder(await service.leaderboard(guild_id=G, season=1))) == [(str(ANN.id), 1), (str(BOB.id), 1)]
    winter = await service.leaderboard(guild_id=G, season=2)
    assert sorted(ladder(winter)) == [(str(ANN.id), 1), (str(BOB.id), 1)] and winter[0].user_id == str(BOB.id)
    assert [s.name for s in await service.seasons.all(G)] == ["Season 1", "Winter"]
    assert (await service.seasons.current(G)) == second


async def test_a_persons_season_ratings_go_with_their_data(service: GameService) -> None:
    await service.seasons.start(G)
    await play_short_game(service, BOB)
    erased = await service.erase_personal_data(UserId(str(BOB.id)))
    assert erased.ratings_removed >= 1
    assert ladder(await service.leaderboard(guild_id=G, season=1)) == [(str(ANN.id), 1)], "Bob is off the season ladder"
