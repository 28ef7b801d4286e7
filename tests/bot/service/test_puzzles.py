"""Puzzles in the service, on a real Redis: choosing, solving, failing, retrying, hints, the ratings and the streak,
a click sent twice, two attempts at once, votes and a person's own puzzles."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from dataclasses import replace

import pytest
import redis.asyncio as aioredis

from ai.api import GameInput
from ai.puzzles import Puzzle, load_puzzles, puzzle
from ai.review import GameReview, Judgement, MoveReview, PlayerReview
from bot.service import (
    ChannelId,
    DailyPuzzlePosted,
    GameService,
    GuildId,
    IllegalMoveError,
    InvalidRequestError,
    PositionChangedError,
    PuzzleStatus,
    Rating,
    RequestId,
    User,
    UserId,
    day_of,
)
from bot.store import RedisGameStore
from core import Board
from tests.bot.service.conftest import EventLog, ThreadChooser, ai_idle, make_settings, snapshot
from tests.support import Clock

ALICE, BOB = UserId("731947362819283746"), UserId("731947362819283747")


def wrong_first_move(p: Puzzle) -> str:
    """A legal first move that is not the solution's."""
    board = Board(p.fen)
    right = board.parse_move(p.solution[0])
    return next(m.text() for m in board.legal_moves if m != right)


def glicko(player: tuple[float, float, float], opponent: tuple[float, float], score: float) -> tuple[float, float]:
    """Glicko-2 for one game, written out from Glickman's paper (the volatility by the Illinois algorithm), apart from
    ``bot.service._ratings``: the new rating and deviation."""
    scale, tau = 173.7178, 0.5
    mu, phi, sigma = (player[0] - 1500) / scale, player[1] / scale, player[2]
    mu_j, phi_j = (opponent[0] - 1500) / scale, opponent[1] / scale
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g**2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    new_sigma = math.exp(big_a / 2)
    phi_star = math.sqrt(phi**2 + new_sigma**2)
    new_phi = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    new_mu = mu + new_phi**2 * g * (score - e)
    return new_mu * scale + 1500, new_phi * scale


async def solve(service: GameService, user: UserId) -> None:
    session = await service.puzzles.current(user)
    assert session is not None
    while session.active:
        expected = session.expected
        assert expected is not None
        session = await service.puzzles.move(user, expected, session.version)
    assert session.solved


async def test_a_puzzle_is_chosen_near_the_rating_and_kept_until_done(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    tenth = sorted(abs(p.rating - 1500) for p in load_puzzles())[9]
    chosen = puzzle(session.puzzle_id)
    assert chosen is not None and abs(chosen.rating - 1500) <= tenth, "one of the ten nearest 1500"
    assert session.rated and session.active and session.version == 1
    assert (await service.puzzles.start(ALICE)).puzzle_id == session.puzzle_id  # one at a time: the same again


async def test_solving_moves_both_ratings_as_glicko2_says(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    p = puzzle(session.puzzle_id)
    assert p is not None
    await solve(service, ALICE)
    done = await service.puzzles.current(ALICE)
    assert done is not None and done.solved and done.streak == 1
    player = await service.puzzles.player(ALICE)
    want_r, want_rd = glicko((1500.0, 350.0, 0.06), (p.rating, 350.0), 1.0)
    assert player.rating.rating == pytest.approx(want_r, abs=1e-6)
    assert player.rating.rd == pytest.approx(want_rd, abs=1e-6)
    assert (player.rating.games, player.rating.wins, player.streak) == (1, 1, 1)
    assert done.rating_before == 1500.0 and done.rating_after == pytest.approx(want_r, abs=1e-6)
    rated = await service._store.load_puzzle_rating(p.id)
    want_pr, _ = glicko((float(p.rating), 350.0, 0.06), (1500.0, 350.0), 0.0)
    assert rated is not None and rated.rating == pytest.approx(want_pr, abs=1e-6) and rated.games == 1


async def test_a_wrong_move_fails_keeps_the_line_and_a_retry_is_not_rated(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    p = puzzle(session.puzzle_id)
    assert p is not None
    wrong = wrong_first_move(p)
    failed = await service.puzzles.move(ALICE, wrong, session.version)
    assert failed.status is PuzzleStatus.FAILED and failed.wrong == wrong and failed.solution == p.solution
    player = await service.puzzles.player(ALICE)
    want_r, _ = glicko((1500.0, 350.0, 0.06), (p.rating, 350.0), 0.0)
    assert player.rating.rating == pytest.approx(want_r, abs=1e-6) and player.streak == 0
    with pytest.raises(PositionChangedError):  # the old board's menus
        await service.puzzles.move(ALICE, p.solution[0], session.version)
    again = await service.puzzles.retry(ALICE)
    assert again.puzzle_id == p.id and again.active and not again.rated
    await solve(service, ALICE)
    assert (await service.puzzles.player(ALICE)).rating == player.rating  # a retry moves no rating


async def test_an_illegal_move_changes_nothing(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    with pytest.raises(IllegalMoveError):
        await service.puzzles.move(ALICE, "1-2", session.version)
    assert await service.puzzles.current(ALICE) == session


async def test_a_hint_shows_the_piece_and_counts_as_not_solved(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    hinted = await service.puzzles.hint(ALICE, session.version)
    assert hinted.hinted and hinted.hint_square() == int(session.solution[0].replace("x", "-").split("-")[0])
    await solve(service, ALICE)
    player = await service.puzzles.player(ALICE)
    assert player.rating.losses == 1 and player.streak == 0 and player.rating.rating < 1500


async def test_a_click_sent_twice_is_applied_once(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    p = puzzle(session.puzzle_id)
    assert p is not None
    key = RequestId("click-1")
    wrong = wrong_first_move(p)
    first = await service.puzzles.move(ALICE, wrong, session.version, request=key)
    store = service._store
    again = await store.save_puzzle_session(session, first, request=key)
    assert again.version == first.version
    player = await service.puzzles.player(ALICE)
    assert player.rating.games == 1


async def test_two_people_at_one_puzzle_are_both_rated(service: GameService) -> None:
    first = await service.puzzles.start(ALICE)
    p = puzzle(first.puzzle_id)
    assert p is not None
    second = await service.puzzles.start(BOB)
    if second.puzzle_id != p.id:  # the draw among the nearest: put Bob on Alice's puzzle
        store = service._store
        moved = replace(second, puzzle_id=p.id, fen=p.fen, solution=p.solution)
        second = await store.save_puzzle_session(second, moved)
    await asyncio.gather(
        service.puzzles.move(ALICE, wrong_first_move(p), first.version),
        service.puzzles.move(BOB, wrong_first_move(p), second.version),
    )
    rated = await service._store.load_puzzle_rating(p.id)
    assert rated is not None and rated.games == 2 and rated.wins == 2


async def test_votes_and_the_next_puzzle_is_another(service: GameService) -> None:
    session = await service.puzzles.start(ALICE)
    with pytest.raises(InvalidRequestError):
        await service.puzzles.vote(BOB, session.puzzle_id, True)
    await solve(service, ALICE)
    assert await service.puzzles.vote(ALICE, session.puzzle_id, True) == (1, 0)
    assert await service.puzzles.vote(ALICE, session.puzzle_id, False) == (0, 1)
    following = await service.puzzles.start(ALICE)
    assert following.puzzle_id != session.puzzle_id


async def test_own_puzzles(service: GameService) -> None:
    with pytest.raises(InvalidRequestError):
        await service.puzzles.start(ALICE, "mine")
    p = load_puzzles()[0]
    await service._store.add_own_puzzles(ALICE, {p.id: json.dumps(p.as_json())})
    session = await service.puzzles.start(ALICE, "mine")
    assert session.puzzle_id == p.id and not session.rated and session.source == "mine"
    await solve(service, ALICE)
    assert (await service.puzzles.player(ALICE)).rating == Rating()


class BlunderReviewer:
    """A reviewer that finds one blunder, Black's first move, with ``9-13`` better: what the review judges is
    :mod:`ai.review`'s (tested there); here, what becomes of a blunder."""

    async def review(self, game: GameInput) -> GameReview:
        blunder = MoveReview(1, game.moves[0], "black", Judgement.BLUNDER, 0.3, 0.5, 0.2, "9-13", ("9-13",), "draw")
        return GameReview(
            game.variant, 1000, (), (blunder,), PlayerReview("black", 50.0, blunders=1), PlayerReview("white", None)
        )


async def test_a_reviewed_blunder_becomes_the_players_own_puzzle(redis_client: aioredis.Redis, clock: Clock) -> None:
    service = GameService(
        RedisGameStore(redis_client), ThreadChooser(), make_settings(), clock=clock, reviewer=BlunderReviewer()
    )
    try:
        alice = User(ALICE, "Alice")
        started = await service.play_ai(GuildId("1"), ChannelId("2"), alice, "easy", color="black")
        assert started.game is not None
        game_id = started.game.id
        await service.move(game_id, GuildId("1"), alice, "11-15")
        await ai_idle(service)
        await service.resign(game_id, GuildId("1"), alice)
        with pytest.raises(InvalidRequestError):
            await service.puzzles.start(ALICE, "mine")
        await service.analyse(game_id, alice, GuildId("1"))
        session = await service.puzzles.start(ALICE, "mine")
        assert session.fen == Board().fen() and session.solution == ("9-13",) and not session.rated
        wrong = await service.puzzles.move(ALICE, "11-15", session.version)  # the blunder again
        assert wrong.status is PuzzleStatus.FAILED
        again = await service.puzzles.retry(ALICE)
        assert (await service.puzzles.move(ALICE, "9-13", again.version)).solved
        assert (await service.puzzles.player(ALICE)).rating == Rating()  # not rated
    finally:
        await service.close()


async def test_the_privacy_report_counts_puzzles_and_the_erasure_leaves_none(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    assert (await service.personal_data(ALICE)).empty
    await service.daily.configure(GuildId("7"), ChannelId("8"), 0)
    await service.sweep()  # the server's daily puzzle of the day
    daily = await service.puzzles.start_daily(ALICE, GuildId("7"), day_of(service.now()))
    await solve(service, ALICE)
    await service.puzzles.vote(ALICE, daily.puzzle_id, True)
    await service.puzzles.start(ALICE)
    assert (await service.daily.table(GuildId("7")))[0].user_id == ALICE
    assert (await service.personal_data(ALICE)).puzzles == 2
    await service.erase_personal_data(ALICE)
    assert (await service.personal_data(ALICE)).empty
    stored = await snapshot(redis_client)
    assert not [key for key in stored if ALICE.encode() in key], "no key is named after alice"
    assert ALICE not in repr(stored), "no value names alice"


async def test_two_processes_sweeping_at_once_post_the_daily_puzzle_once(
    make_service: Callable[..., GameService], events: EventLog
) -> None:
    first, second = make_service(), make_service()
    for guild in ("71", "72", "73"):
        await first.daily.configure(GuildId(guild), ChannelId("8"), 0)
    await asyncio.gather(first.sweep(), second.sweep(), first.sweep(), second.sweep())
    posted = [e for e in events.events if isinstance(e, DailyPuzzlePosted)]
    assert sorted(e.guild_id for e in posted) == ["71", "72", "73"], "each server's puzzle once"


async def test_a_pending_day_whose_puzzle_left_the_set_is_dropped_and_the_sweep_goes_on(
    make_service: Callable[..., GameService], events: EventLog, redis_client: aioredis.Redis
) -> None:
    service = make_service()
    store = RedisGameStore(redis_client)
    today = day_of(service.now())
    for guild in ("81", "82"):
        await service.daily.configure(GuildId(guild), ChannelId("8"), 0)
    assert await store.claim_daily(GuildId("81"), today, "gone-from-the-set", 0.05) == "gone-from-the-set"
    await asyncio.sleep(0.1)  # its process stopped; the lease is over
    await service.sweep()
    posted = [e for e in events.events if isinstance(e, DailyPuzzlePosted)]
    assert [e.guild_id for e in posted] == ["82"], "the other server's day is posted"
    assert not await store.daily_pending(GuildId("81"), today), "the lost day is not tried again"
