"""Tournaments in the game service, on the real store with a real in-process AI: a Swiss with AI entrants played to
its end (every pairing legal, the standings what the games gave, ratings changed once per rated game), a round robin,
the refusals, and what two processes or a stopped one leave: nothing paired twice, nothing lost."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterable

import pytest
import redis.asyncio as aioredis

from bot.service import (
    AlreadyPlayingError,
    ChannelId,
    GameId,
    GameService,
    GameStarted,
    GameState,
    InvalidRequestError,
    LimitReachedError,
    MatchKind,
    MessageId,
    MessageRef,
    NotAPlayerError,
    RoundStarted,
    TournamentFinished,
    TournamentFormat,
    TournamentId,
    TournamentRecord,
    TournamentStatus,
    UnknownTournamentError,
    User,
    UserId,
    arena_points,
    arena_scores,
    tournament_standings,
)
from bot.service._tournament_games import points_of
from bot.store import RedisGameStore
from tests.support import Clock, eventually

from .conftest import EventLog, ServiceFactory, ai_idle

GUILD, CHANNEL = "g1", "c1"
PEOPLE = [User(100 + i, name) for i, name in enumerate(("Ann", "Bob", "Cid", "Dee", "Eve", "Fay"))]
ANN, BOB, CID, DEE = PEOPLE[:4]


async def settle(service: GameService, tournament_id: TournamentId) -> TournamentRecord:
    """Play the round being played to its end: in a game of two people the one with Black resigns, against an AI the
    person resigns, and the AIs play their own games out (a ballot match's second game opens when its first ends);
    returns the tournament once the round is over."""
    number = (await service.tournaments.get(tournament_id)).round

    async def over() -> bool:
        record = await service.tournaments.get(tournament_id)
        for played in record.games_of_round(number):
            game = (await service.state(played.game_id)).game
            loser = game.black if not game.black.is_ai else game.white if not game.white.is_ai else None
            if game.is_active and loser is not None:
                await service.resign(game.id, None, User(loser.id, loser.name))
        return record.round > number or record.status is not TournamentStatus.RUNNING

    await eventually(over, within=120, what=f"round {number} over and the next paired")
    return await service.tournaments.get(tournament_id)


async def games_of(service: GameService, record: TournamentRecord) -> list[GameState]:
    return [(await service.state(g.game_id)).game for g in record.games]


def assert_standings_add_up(record: TournamentRecord, games: Iterable[GameState]) -> None:
    """The standings add up what the games gave (a win 1, a draw 1/2), and are ordered by it."""
    score: dict[UserId, float] = dict.fromkeys(record.entrants, 0.0)
    for game in games:
        black_score = {"1-0": 1.0, "0-1": 0.0}.get(game.result or "", 0.5)
        score[game.black.id] += black_score
        score[game.white.id] += 1.0 - black_score
    rows = tournament_standings(record.model)
    assert {row.player: float(row.score) for row in rows} == score
    assert [float(row.score) for row in rows] == sorted(score.values(), reverse=True)


def meetings(record: TournamentRecord) -> list[frozenset[UserId]]:
    return [frozenset(p.players) for r in record.model.rounds for p in r.pairings]


async def test_a_swiss_with_two_ai_entrants_is_played_to_its_podium(
    make_service: ServiceFactory, events: EventLog
) -> None:
    service = make_service(exhibition_move_delay=0.0, ai_think_time_max=0.02)
    created = await service.tournaments.create(GUILD, CHANNEL, ANN, rounds=3, ai_allowed=True, name="Autumn Swiss")
    tid = created.id
    for person in (BOB, CID, DEE):
        await service.tournaments.join(tid, person)
    for level in ("easy", "medium"):
        await service.tournaments.add_ai(tid, ANN, level)
    started = await service.tournaments.start(tid, ANN)
    assert started.status is TournamentStatus.RUNNING and started.round == 1
    assert len(started.games) == 3, "three ballot matches, their first games (the second follows the first)"
    [first] = [e for e in events.events if isinstance(e, RoundStarted)]
    assert first.round == 1 and set(first.games) == {g.game_id for g in started.games}

    record = started
    while record.status is TournamentStatus.RUNNING:
        record = await settle(service, tid)
    assert record.status is TournamentStatus.FINISHED and record.round == 3
    assert [e.tournament_id for e in events.events if isinstance(e, TournamentFinished)] == [tid]

    # every pairing legal: nobody meets anyone twice, six players in three boards each round
    met = meetings(record)
    assert len(met) == len(set(met)) == 9
    for round_ in record.model.rounds:
        assert len(round_.players) == 6 and round_.bye is None and round_.finished
    # each game is the match's: its players, its colours swapped in the second game, the ballot's opening played
    games = {g.id: g for g in await games_of(service, record)}
    for played in record.games:
        pairing = record.model.rounds[played.round - 1].pairings[played.board]
        game = games[played.game_id]
        black, white = (pairing.black, pairing.white) if played.game == 0 else (pairing.white, pairing.black)
        assert (game.black.id, game.white.id) == (black, white)
        assert len(game.moves) >= 3 and not game.is_active
        assert points_of(game, played) == pairing.results[played.game], "the result recorded is the game's"
    assert_standings_add_up(record, games.values())
    # rated games between people changed their ratings once each
    for person in (ANN, BOB, CID, DEE):
        rated = [g for g in games.values() if g.rated and UserId(person.id) in (g.black.id, g.white.id)]
        stats = await service.stats(UserId(person.id), guild_id=GUILD)
        assert stats.rating.games == len(rated), person.name
    assert all(not g.rated for g in games.values() if g.black.is_ai or g.white.is_ai)
    # the channel and the players are free again
    assert await service.tournaments.in_channel(GUILD, CHANNEL) is None
    again = await service.tournaments.create(GUILD, CHANNEL, BOB, rounds=1)
    assert again.entrants == (UserId(BOB.id),)


async def test_a_round_robin_of_four_in_single_games(make_service: ServiceFactory) -> None:
    service = make_service()
    robin = TournamentFormat.ROUND_ROBIN
    tid = (await service.tournaments.create(GUILD, CHANNEL, ANN, format=robin, match=MatchKind.SINGLE)).id
    for person in (BOB, CID, DEE):
        await service.tournaments.join(tid, person)
    record = await service.tournaments.start(tid, ANN)
    assert record.rounds_planned == 3 and len(record.games) == 2
    while record.status is TournamentStatus.RUNNING:
        record = await settle(service, tid)
    met = meetings(record)
    assert sorted(map(sorted, met)) == sorted(sorted(p) for p in itertools.combinations(record.entrants, 2))
    games = await games_of(service, record)
    assert len(games) == 6 and all(g.moves == () and not g.is_active for g in games), "single games, no ballot"
    assert_standings_add_up(record, games)


async def test_entries_and_commands_refused_plainly(make_service: ServiceFactory) -> None:
    service = make_service(tournaments_per_guild=2)
    tournaments = service.tournaments
    tid = (await tournaments.create(GUILD, CHANNEL, ANN, rounds=2)).id
    with pytest.raises(AlreadyPlayingError):
        await tournaments.create(GUILD, CHANNEL, BOB)  # one tournament a channel
    with pytest.raises(AlreadyPlayingError):
        await tournaments.join(tid, ANN)  # twice
    with pytest.raises(InvalidRequestError):
        await tournaments.start(tid, ANN)  # fewer than two players
    with pytest.raises(InvalidRequestError):
        await tournaments.add_ai(tid, ANN, "easy")  # people only
    with pytest.raises(InvalidRequestError):
        await tournaments.create(GUILD, "c9", BOB, rounds=0)
    with pytest.raises(InvalidRequestError):
        await tournaments.create(GUILD, "c9", BOB, max_players=1)
    await tournaments.join(tid, BOB)
    with pytest.raises(AlreadyPlayingError):
        await tournaments.create(GUILD, "c2", BOB)  # in another tournament already
    with pytest.raises(NotAPlayerError):
        await tournaments.start(tid, BOB)  # not the creator
    other = (await tournaments.create(GUILD, "c2", CID)).id
    with pytest.raises(LimitReachedError):
        await tournaments.create(GUILD, "c3", DEE)  # the server's two
    with pytest.raises(AlreadyPlayingError):
        await tournaments.join(other, BOB)
    started = await tournaments.start(tid, BOB, manager=True)  # a manager of the server may
    assert started.status is TournamentStatus.RUNNING
    with pytest.raises(InvalidRequestError):
        await tournaments.join(tid, DEE)  # too late
    with pytest.raises(InvalidRequestError):
        await tournaments.leave(tid, BOB)  # too late: withdraw instead
    withdrawn = await tournaments.withdraw(tid, BOB)
    games = await games_of(service, withdrawn)
    assert all(not g.is_active for g in games), "the withdrawn player's games are resigned"
    finished = await tournaments.get(tid)
    assert finished.status is TournamentStatus.FINISHED, "nobody left to pair: it ends"
    rows = tournament_standings(finished.model)
    assert rows[0].player == UserId(ANN.id) and rows[0].score == 2
    cancelled = await tournaments.cancel(other, CID)
    assert cancelled.status is TournamentStatus.CANCELLED
    with pytest.raises(InvalidRequestError):
        await tournaments.cancel(other, CID)


async def test_two_processes_advancing_at_once_pair_each_round_once(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    first, second = make_service(), make_service()
    tid = (await first.tournaments.create(GUILD, CHANNEL, ANN, rounds=2, match=MatchKind.SINGLE)).id
    for person in PEOPLE[1:]:
        await first.tournaments.join(tid, person)
    record = await first.tournaments.start(tid, ANN)
    for played in record.games_of_round(1):  # each end moves the tournament on in the background, meanwhile...
        game = (await first.state(played.game_id)).game
        await first.resign(game.id, None, User(game.black.id, game.black.name))
    # ...both processes move it on at once, twice each
    results = await asyncio.gather(*(s.tournaments.advance(tid) for s in (first, second, first, second)))
    assert all(r.round >= 1 for r in results)
    await eventually(lambda: _round_of(first, tid, 2), what="round 2 paired")
    record = await second.tournaments.get(tid)
    assert record.round == 2 and len(record.games_of_round(2)) == 3, "round 2 paired once, its three games"
    ids = [g.game_id for g in record.games]
    assert len(ids) == len(set(ids)) == 6
    active = await RedisGameStore(redis_client).active_game_ids()
    assert sorted(active) == sorted(g.game_id for g in record.games_of_round(2)), "no game opened twice"


async def _round_of(service: GameService, tid: TournamentId, number: int) -> bool:
    return (await service.tournaments.get(tid)).round == number


async def test_a_sweep_pairs_the_round_a_stopped_process_left_with_the_same_games(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    service = make_service()
    tournaments = service.tournaments
    tid = (await tournaments.create(GUILD, CHANNEL, ANN, rounds=1, match=MatchKind.SINGLE)).id
    await tournaments.join(tid, BOB)
    record = await tournaments.get(tid)
    store = RedisGameStore(redis_client)
    running = await store.save_tournament(record, _running(record))  # started, then stopped before pairing
    assert running.round == 0
    await service.sweep()
    paired = await tournaments.get(tid)
    assert paired.round == 1 and len(paired.games) == 1
    assert await store.active_game_ids() == [paired.games[0].game_id]
    await service.sweep()  # nothing more to do
    assert (await tournaments.get(tid)).games == paired.games
    await ai_idle(service)


def _running(record: TournamentRecord) -> TournamentRecord:
    return dataclasses.replace(record, status=TournamentStatus.RUNNING, rounds_planned=1, started_at=1.0)


async def test_a_ten_minute_arena_of_eight_pairs_who_waits_and_ends_on_time(
    make_service: ServiceFactory, clock: Clock
) -> None:
    """Players are paired again as soon as their game ends (never with their last opponent), no game starts after the
    ten minutes, the games under way then still count, and the scores are the arena's (2 a win, doubled on a
    streak)."""
    service = make_service()
    people = [User(200 + i, f"P{i}") for i in range(8)]
    arena = TournamentFormat.ARENA
    single = MatchKind.SINGLE
    tid = (await service.tournaments.create(GUILD, CHANNEL, people[0], format=arena, match=single, minutes=10)).id
    for person in people[1:]:
        await service.tournaments.join(tid, person)
    record = await service.tournaments.start(tid, people[0])
    assert len(record.games) == 4, "everyone paired at once"
    minute = 0
    while record.status is TournamentStatus.RUNNING:
        for played in record.games:  # one game ends at a time: White resigns, so results differ from game to game
            game = (await service.state(played.game_id)).game
            if game.is_active:
                await service.resign(game.id, None, User(game.white.id, game.white.name))
                break
        clock.advance(45.0)
        minute += 1
        assert minute < 60, "the arena ended"

        async def moved_on(before: int = len(record.games)) -> bool:
            now = await service.tournaments.get(tid)
            return now.status is not TournamentStatus.RUNNING or len(now.games) > before or _playing(now)

        await eventually(moved_on, what="the arena moving on")
        record = await service.tournaments.get(tid)
    end = record.ends_at
    games = await games_of(service, record)
    assert all(g.created_at < end for g in games), "no game started after the end"
    assert record.ended_at is not None and record.ended_at >= end
    by_player: dict[UserId, list[tuple[float, UserId, int]]] = {}
    for game in sorted(games, key=lambda g: g.created_at):
        black_points = {"1-0": 2, "0-1": 0}.get(game.result or "", 1)
        by_player.setdefault(game.black.id, []).append((game.created_at, game.white.id, black_points))
        by_player.setdefault(game.white.id, []).append((game.created_at, game.black.id, 2 - black_points))
    for player, played in by_player.items():
        opponents = [opponent for _, opponent, _ in played]
        assert all(a != b for a, b in itertools.pairwise(opponents)), f"{player} met the same opponent twice running"
    expected = {player: arena_points(points for _, _, points in played) for player, played in by_player.items()}
    assert arena_scores(record.model) == {p: expected.get(p, 0) for p in record.entrants}
    assert len(games) > 8, "players were paired again as their games ended"


def _playing(record: TournamentRecord) -> bool:
    return any(not p.finished for r in record.model.rounds for p in r.pairings)


async def test_a_tournament_set_for_a_time_starts_then_by_itself_or_is_called_off(
    make_service: ServiceFactory, clock: Clock, events: EventLog
) -> None:
    service = make_service()
    tournaments = service.tournaments
    with pytest.raises(InvalidRequestError):
        await tournaments.create(GUILD, CHANNEL, ANN, starts_at=clock() - 1)
    set_for = clock() + 600
    tid = (await tournaments.create(GUILD, CHANNEL, ANN, rounds=1, match=MatchKind.SINGLE, starts_at=set_for)).id
    lonely = (await tournaments.create(GUILD, "c2", CID, starts_at=set_for)).id
    await tournaments.join(tid, BOB)
    await service.sweep()
    assert (await tournaments.get(tid)).status is TournamentStatus.OPEN, "not before its time"
    clock.advance(601)
    await service.sweep()
    started = await tournaments.get(tid)
    assert started.status is TournamentStatus.RUNNING and started.round == 1 and len(started.games) == 1
    called_off = await tournaments.get(lonely)
    assert called_off.status is TournamentStatus.CANCELLED, "one entrant at its time: called off"
    assert [e.tournament_id for e in events.events if isinstance(e, TournamentFinished) and e.cancelled] == [lonely]


async def test_the_announcement_is_recorded_with_the_tournament_and_kept_through_its_changes(
    make_service: ServiceFactory,
) -> None:
    first, second = make_service(), make_service()
    tid = (await first.tournaments.create(GUILD, CHANNEL, ANN, rounds=1, match=MatchKind.SINGLE)).id
    assert (await first.tournaments.get(tid)).message is None
    await first.tournaments.set_message(tid, ChannelId("c1"), MessageId("555"))
    where = MessageRef(ChannelId("c1"), MessageId("555"))
    assert (await second.tournaments.get(tid)).message == where, "stored, for any process"
    joined = await second.tournaments.join(tid, BOB)  # a later change keeps it
    assert joined.message == where and joined.version == 3
    await first.tournaments.set_message(tid, ChannelId("c1"), MessageId("777"))  # read again after another's change
    moved = await second.tournaments.get(tid)
    assert moved.message == MessageRef(ChannelId("c1"), MessageId("777")) and moved.entrants == joined.entrants
    started = await first.tournaments.start(tid, ANN)
    assert started.message == moved.message
    with pytest.raises(UnknownTournamentError):
        await first.tournaments.set_message(TournamentId("0" * 12), ChannelId("c1"), MessageId("1"))
    await ai_idle(first)


async def test_a_result_that_ends_a_round_while_another_process_holds_it_still_moves_it_on(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    """The last game of a round ends while another process holds the tournament's lease (pairing, or opening games
    from what it read before): the game's end waits for the lease and then pairs the next round itself."""
    service = make_service()
    tid = (await service.tournaments.create(GUILD, CHANNEL, ANN, rounds=2, match=MatchKind.SINGLE)).id
    for person in (BOB, CID, DEE):
        await service.tournaments.join(tid, person)
    record = await service.tournaments.start(tid, ANN)
    store = RedisGameStore(redis_client)
    first, last = [(await service.state(g.game_id)).game for g in record.games]
    await service.resign(first.id, None, User(first.black.id, first.black.name))
    await eventually(lambda: _scored_games(service, tid, 1), what="the first result recorded")
    assert await store.claim_tournament(tid, "another process", 60.0)
    await service.resign(last.id, None, User(last.black.id, last.black.name))
    await asyncio.sleep(1.0)
    assert (await service.tournaments.get(tid)).round == 1, "nothing moves while the other holds it"
    await store.release_tournament(tid, "another process")
    await eventually(lambda: _round_of(service, tid, 2), within=10, what="round 2 paired once the lease is free")


async def _scored_games(service: GameService, tid: TournamentId, count: int) -> bool:
    record = await service.tournaments.get(tid)
    return sum(r is not None for p in record.model.rounds[-1].pairings for r in p.results) == count


async def test_games_ending_at_once_in_one_process_open_each_next_game_once(
    make_service: ServiceFactory, events: EventLog
) -> None:
    """Two games of an arena end at the same moment in one process: the two advances they start are taken one after
    the other (the lease is the process's, so it does not keep them apart), and each game of the next wave gets one
    room and is shown once."""
    service = make_service()
    rooms: Counter[GameId] = Counter()

    async def room(record: TournamentRecord, game: GameState) -> None:
        rooms[game.id] += 1
        await asyncio.sleep(0.2)  # a thread takes a moment to open

    service.tournaments.rooms = room
    arena, single = TournamentFormat.ARENA, MatchKind.SINGLE
    tid = (await service.tournaments.create(GUILD, CHANNEL, ANN, format=arena, match=single, minutes=10)).id
    for person in (BOB, CID, DEE):
        await service.tournaments.join(tid, person)
    first = await service.tournaments.start(tid, ANN)
    assert len(first.games) == 2 and set(rooms.values()) == {1}
    games = [(await service.state(g.game_id)).game for g in first.games]
    await asyncio.gather(*(service.resign(g.id, None, User(g.white.id, g.white.name)) for g in games))

    async def next_wave() -> bool:
        record = await service.tournaments.get(tid)
        return len(record.games) == 4 and not service.tournaments._runner._advancing

    await eventually(next_wave, what="the next wave opened")
    assert len(rooms) == 4 and set(rooms.values()) == {1}, f"a room per game, once each: {rooms}"
    started = [e.game_id for e in events.events if isinstance(e, GameStarted) and e.game_id is not None]
    assert sorted(started) == sorted(rooms), "each game shown once"


async def test_sixty_joins_at_once_all_enter(make_service: ServiceFactory) -> None:
    """A crowd clicks Join the moment the announcement appears: every one of them enters, none is told to try again."""
    service = make_service()
    tid = (await service.tournaments.create(GUILD, CHANNEL, ANN, max_players=64, name="Rush")).id
    crowd = [User(1000 + i, f"J{i}") for i in range(60)]
    await asyncio.gather(*(service.tournaments.join(tid, person) for person in crowd))
    record = await service.tournaments.get(tid)
    assert len(record.entrants) == 61 and set(record.entrants) >= {UserId(str(p.id)) for p in crowd}
