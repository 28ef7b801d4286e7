"""The Swiss of the acceptance, on Discord: six players (four people and two AI levels), three rounds of ballot
matches, played by clicks to the podium with a restart of the bot in the middle of round 2. Each round's games are
played as people play them: against an AI the person resigns with the board's button; between two people the first
game of the match is drawn by an offer and its acceptance, and in the second the player with Black resigns; the two
AIs play their own games out. At the end the test works the standings out by hand from the games (score, Buchholz
cut-1, Sonneborn-Berger, games won) and finds that table in the podium's post; every pairing obeys the rules, and the
rated games changed each person's rating once. The real bot on the emulator, the real store, the real AI pool."""

from __future__ import annotations

import pytest

from bot.service import ChannelId, GameId, GameState, GuildId, TournamentRecord, TournamentStatus, UserId
from bot.settings import Settings
from tests.bot.games.conftest import Harness, make_settings
from tests.bot.tournament_support import check_the_end, click, play_to_the_end

NAME = "Winter Swiss"
ROUNDS = 3


@pytest.fixture
def settings() -> Settings:
    return make_settings(sweep_interval=1.0)


@pytest.fixture
def sweeping() -> bool:
    return True  # the sweeper runs beside the bot, as in `kingme`: what an advance missed is done within a second


async def test_six_players_three_rounds_two_ais_by_clicks_with_a_restart_in_round_2(harness: Harness) -> None:
    emulator = harness.emulator
    names = ("alice", "bob", "carol", "dave")
    people = {u.id: u for u in (harness.user(n) if n != "dave" else emulator.add_user(n) for n in names)}
    alice, bob, carol, dave = people.values()
    options = {"name": NAME, "format": "swiss", "rounds": ROUNDS, "ai_allowed": True, "turn_time": 300}
    announcement = (await emulator.invoke(alice, ["tournament", "create"], options)).message
    assert "Swiss · 3 rounds · ballot matches" in announcement.embeds[0]["description"]
    for person in (bob, carol, dave):
        await click(emulator, person, announcement, "km:t:join:")
    for level in ("easy", "medium"):
        added = (await emulator.invoke(alice, ["tournament", "add-ai"], {"level": level})).message
        assert added.content == f"AI ({level}) entered {NAME}."
    await emulator.invoke(alice, ["tournament", "start"])
    assert harness.service is not None
    where = GuildId(str(emulator.guild.id)), ChannelId(str(announcement.channel_id))
    found = await harness.service.tournaments.in_channel(*where)
    assert found is not None
    tid = found.id

    async def restart() -> None:
        await harness.restart()
        assert harness.service is not None
        await harness.service.sweep()  # what the sweeper does on its timer: an advance the stop cut short is redone

    async def game_of(game_id: GameId) -> GameState:
        assert harness.service is not None
        return (await harness.service.state(game_id)).game

    async def current() -> TournamentRecord:
        assert harness.service is not None
        return await harness.service.tournaments.get(tid)

    record = await play_to_the_end(emulator, people, current, game_of, restart)

    service = harness.service
    assert service is not None

    async def rated_games(person: UserId) -> int:
        assert service is not None
        return (await service.stats(person, guild_id=where[0])).rating.games

    assert record.status is TournamentStatus.FINISHED and record.round == ROUNDS
    games = {b.game_id: (await service.state(b.game_id)).game for b in record.games}
    assert len(games) == len(record.games) == ROUNDS * 3 * 2, "three ballot matches a round, two games each"
    await check_the_end(emulator, record, games, people, rated_games)
