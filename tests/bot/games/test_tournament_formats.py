"""The round robin and the arena of the acceptance, on Discord, played by clicks: a round robin of four in single
games, and a ten-minute arena of eight on the test clock. Each ends with its podium, whose table equals the standings
the test works out by hand from the games: the round robin's score, Sonneborn-Berger and head-to-head; the arena's
points (2 a win, 1 a draw, doubled on a streak of two wins) and performance. The real bot on the emulator, the real
store, the real AI pool."""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from fractions import Fraction

import pytest

from bot.emulator import Message, User
from bot.service import (
    ChannelId,
    GameId,
    GameState,
    GuildId,
    TournamentId,
    TournamentRecord,
    TournamentStatus,
    UserId,
)
from bot.settings import Settings
from tests.bot.games.conftest import Harness, description, make_settings
from tests.bot.tournament_support import board_of, click, number, points_of
from tests.support import eventually

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "hugo")


@pytest.fixture
def settings() -> Settings:
    return make_settings(sweep_interval=1.0)


@pytest.fixture
def sweeping() -> bool:
    return True  # the sweeper runs beside the bot, as in `kingme`: what an advance missed is done within a second


def people_of(harness: Harness, count: int) -> dict[int, User]:
    known = {u.name: u for u in harness.emulator.state.users.values()}
    return {u.id: u for u in (known.get(n) or harness.emulator.add_user(n) for n in NAMES[:count])}


async def open_tournament(harness: Harness, people: dict[int, User], **options: object) -> TournamentId:
    """``/tournament create`` by the first person, the others join with the announcement's button, then it starts."""
    emulator = harness.emulator
    creator, *others = people.values()
    announcement = (await emulator.invoke(creator, ["tournament", "create"], {"name": "Open", **options})).message
    for person in others:
        await click(emulator, person, announcement, "km:t:join:")
    started = (await emulator.invoke(creator, ["tournament", "start"])).message
    assert started.content.startswith("Open has started"), started.content
    assert harness.service is not None
    where = GuildId(str(emulator.guild.id)), ChannelId(str(announcement.channel_id))
    found = await harness.service.tournaments.in_channel(*where)
    assert found is not None
    return found.id


async def resign_by_clicks(harness: Harness, people: dict[int, User], game: GameState, who: UserId) -> None:
    board = await board_of(harness.emulator, game)
    person = people[int(who)]
    asked = await click(harness.emulator, person, board, "km:b:resign:")
    await click(harness.emulator, person, asked, "km:r:")
    await eventually(lambda: board.content == "Game over.", what="the game over on its board")


async def final_table(harness: Harness) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The podium post's table: its heading, and each row's name and the cells after it."""
    emulator = harness.emulator
    await eventually(lambda: any("is over" in m.content for m in emulator.messages()), within=15, what="the podium")
    [final] = [m for m in emulator.messages() if "is over" in m.content]
    return table_of(final)


def table_of(message: Message) -> tuple[list[str], list[tuple[str, list[str]]]]:
    lines = description(message).splitlines()
    assert lines[0] == "```", lines
    heading = lines[1].split()
    rows = []
    for line in lines[2 : lines.index("```", 1)]:
        cells = re.split(r"\s{2,}", line.strip())
        rows.append((cells[1], cells[2:]))
    return heading, rows


async def finished(harness: Harness, tid: TournamentId) -> tuple[TournamentRecord, dict[GameId, GameState]]:
    assert harness.service is not None
    record = await harness.service.tournaments.get(tid)
    assert record.status is TournamentStatus.FINISHED
    return record, {b.game_id: (await harness.service.state(b.game_id)).game for b in record.games}


async def test_a_round_robin_of_four_by_clicks(harness: Harness) -> None:
    """Everyone meets everyone once; in each game the player whose name comes later resigns, except bob and carol,
    who agree a draw: the table's score, Sonneborn-Berger and head-to-head are those worked out from the games."""
    people = people_of(harness, 4)
    tid = await open_tournament(harness, people, format="round_robin", match="single")
    assert harness.service is not None
    handled: set[GameId] = set()
    while (record := await harness.service.tournaments.get(tid)).status is TournamentStatus.RUNNING:
        todo = [b for b in record.games if b.game_id not in handled]
        for played in todo:
            game = (await harness.service.state(played.game_id)).game
            handled.add(played.game_id)
            if {game.black.name, game.white.name} == {"bob", "carol"}:
                board = await board_of(harness.emulator, game)
                black, white = people[int(game.black.id)], people[int(game.white.id)]
                await click(harness.emulator, black, board, "km:b:draw:")
                await click(harness.emulator, white, board, "km:b:drawyes:")
                await eventually(lambda b=board: b.content == "Game over.", what="the draw")  # type: ignore[misc]
                continue
            later = max((game.black, game.white), key=lambda p: p.name)
            await resign_by_clicks(harness, people, game, later.id)
        if not todo:
            await moved_on(harness, tid, len(record.games))
    record, games = await finished(harness, tid)
    assert len(games) == 6
    met = sorted(sorted((g.black.id, g.white.id)) for g in games.values())
    assert met == sorted(sorted(p) for p in itertools.combinations(record.entrants, 2)), "everyone met once"

    score: dict[UserId, Fraction] = defaultdict(Fraction)
    for game in games.values():
        for player in (game.black.id, game.white.id):
            score[player] += points_of(game, player)
    berger: dict[UserId, Fraction] = defaultdict(Fraction)
    against: dict[tuple[UserId, UserId], Fraction] = {}
    for game in games.values():
        for me, them in ((game.black.id, game.white.id), (game.white.id, game.black.id)):
            berger[me] += score[them] * points_of(game, me)
            against[me, them] = points_of(game, me)
    head: dict[UserId, Fraction] = {}
    for me in record.entrants:
        tied = [o for o in record.entrants if o != me and (score[o], berger[o]) == (score[me], berger[me])]
        head[me] = sum((against[me, o] for o in tied), Fraction(0))
    seeded = [e.id for e in record.model.players]
    order = sorted(seeded, key=lambda p: (-score[p], -berger[p], -head[p]))

    heading, rows = await final_table(harness)
    assert heading[:5] == ["#", "Player", "Pts", "SB", "H2H"], heading
    assert [(name, [number(c) for c in cells[:3]]) for name, cells in rows] == [
        (record.name_of(p), [score[p], berger[p], head[p]]) for p in order
    ]
    assert score[order[0]] > 0


async def test_a_ten_minute_arena_of_eight_by_clicks_on_the_test_clock(harness: Harness) -> None:
    """Games end one at a time (their White resigns) while the clock runs 45 s a game; players are paired again as
    their games end, never with their last opponent; no game starts after ten minutes; the table's points and
    performance are those worked out from the games in the order they were played."""
    people = people_of(harness, 8)
    tid = await open_tournament(harness, people, format="arena", minutes=10, match="single")
    service = harness.service
    assert service is not None
    steps = 0
    while (record := await service.tournaments.get(tid)).status is TournamentStatus.RUNNING:
        steps += 1
        assert steps < 60, "the arena never ended"
        active = [g for g in [(await service.state(b.game_id)).game for b in record.games] if g.is_active]
        if active:
            game = min(active, key=lambda g: g.created_at)
            await resign_by_clicks(harness, people, game, game.white.id)
            await arena_moved_on(harness, tid, game.id)  # the players paired again, before the clock moves
        harness.clock.advance(45.0)
        await service.sweep()  # what the sweeper does on its timer
    record, games = await finished(harness, tid)
    assert record.ends_at is not None
    assert all(g.created_at < record.ends_at for g in games.values())
    assert len(games) > 8, "players were paired again as their games ended"

    ratings = {e.id: e.rating for e in record.model.players}
    played: dict[UserId, list[tuple[UserId, Fraction]]] = defaultdict(list)
    for game in sorted(games.values(), key=lambda g: g.created_at):
        for me, them in ((game.black.id, game.white.id), (game.white.id, game.black.id)):
            played[me].append((them, points_of(game, me)))
    arena: dict[UserId, int] = {}
    performance: dict[UserId, int] = {}
    for player in record.entrants:
        total, running = 0, 0
        for _, p in played[player]:
            points = int(p * 2)  # 2 a win, 1 a draw
            total += points * (2 if running >= 2 else 1)
            running = running + 1 if p == 1 else 0
        arena[player] = total
        performance[player] = round(_exact_performance(player, played, ratings))
        opponents = [o for o, _ in played[player]]
        assert all(a != b for a, b in itertools.pairwise(opponents)), "never the same opponent twice running"
    seeded = [e.id for e in record.model.players]
    order = sorted(seeded, key=lambda p: (-arena[p], -_exact_performance(p, played, ratings)))

    heading, rows = await final_table(harness)
    assert heading[:4] == ["#", "Player", "Pts", "Perf"], heading
    assert [(name, [int(c) for c in cells[:2]]) for name, cells in rows] == [
        (record.name_of(p), [arena[p], performance[p]]) for p in order
    ]


def _exact_performance(
    player: UserId, played: dict[UserId, list[tuple[UserId, Fraction]]], ratings: dict[UserId, int]
) -> Fraction:
    games = played[player]
    if not games:
        return Fraction(0)
    margin = sum(1 if p == 1 else -1 if p == 0 else 0 for _, p in games)
    return Fraction(sum(ratings[o] for o, _ in games) + 400 * margin, len(games))


async def arena_moved_on(harness: Harness, tid: TournamentId, ended: GameId) -> None:
    """Wait until the arena has scored the game ``ended`` and opened the game of every pairing made since."""

    async def done() -> bool:
        assert harness.service is not None
        record = await harness.service.tournaments.get(tid)
        board = record.board_of(ended)
        assert board is not None
        if not record.model.rounds[board.round - 1].pairings[board.board].finished:
            return False
        if harness.service.tournaments._runner._advancing:  # the step after a result is still being taken
            return False
        paired = {(r.number, b) for r in record.model.rounds for b, p in enumerate(r.pairings) if not p.finished}
        return paired <= {(g.round, g.board) for g in record.games}

    await eventually(done, within=20, what="the arena moving on")


async def moved_on(harness: Harness, tid: TournamentId, seen: int) -> None:
    """Wait until the tournament is over, or has more than ``seen`` games, or has games being played and each
    pairing made has its game opened (so the test clock moves on only once the games paired meanwhile are open)."""

    async def done() -> bool:
        assert harness.service is not None
        record = await harness.service.tournaments.get(tid)
        if record.status is not TournamentStatus.RUNNING or len(record.games) > seen:
            return True
        paired = {(r.number, b) for r in record.model.rounds for b, p in enumerate(r.pairings) if not p.finished}
        return bool(paired) and paired <= {(g.round, g.board) for g in record.games}

    await eventually(done, within=20, what="the tournament moving on")
