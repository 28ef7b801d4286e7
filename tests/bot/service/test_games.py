"""Whole games through the service on the real Redis: people, the AI, passes, draws, takebacks, rematches, export."""

from __future__ import annotations

import random

import pytest
import redis.asyncio as aioredis

from bot.service import (
    AiThinking,
    ChallengeAccepted,
    DrawOffered,
    GameKind,
    GameOver,
    GameService,
    GameStarted,
    GameView,
    MovePlayed,
    Passed,
    PositionChangedError,
    TakebackRequested,
    User,
)
from core import Board
from core.pdn import read_pdn

from .conftest import EventLog, ai_idle

ANN, BOB = User(101, "Ann"), User(202, "Bob")
GUILD, CHANNEL = "g1", "c1"
MINI_PASS_FEN = "B:W1,2,5:B8,16,18"  # after Black's 8-11 White has no move and passes


async def start_human_game(service: GameService, **options: object) -> GameView:
    result = await service.challenge(GUILD, CHANNEL, ANN, BOB, color="black", **options)  # type: ignore[arg-type]
    assert result.challenge is not None
    accepted = await service.accept(result.challenge.id, GUILD, BOB)
    assert accepted.game is not None
    assert [type(e) for e in accepted.events] == [ChallengeAccepted, GameStarted]
    return accepted.game


def user_to_move(view: GameView) -> User:
    return ANN if view.to_move.id == ANN.id else BOB


async def play_out(service: GameService, view: GameView, seed: int) -> GameView:
    """Both people play random legal moves (by text) until the game ends."""
    rng = random.Random(seed)
    while view.game.is_active:
        result = await service.move(view.id, GUILD, user_to_move(view), rng.choice(view.legal_moves))
        assert result.game is not None
        assert isinstance(result.events[0], MovePlayed)
        view = result.game
    return view


async def test_whole_human_game_records_result_history_pdn_and_ratings(service: GameService) -> None:
    view = await start_human_game(service)
    assert view.game.black.id == ANN.id and view.game.rated
    final = await play_out(service, view, seed=3)
    game = final.game
    assert game.result in ("1-0", "0-1", "1/2-1/2") and game.end_text
    stored = await service.state(game.id, GUILD)
    assert stored.game == game
    replay = Board(game.initial_fen, game.variant)
    for text in game.moves:
        replay.push_text(text)
    assert replay.outcome() is not None
    assert [g.id for g in await service.history(ANN.id)] == [game.id]
    assert [g.id for g in await service.history(BOB.id)] == [game.id]
    assert await service.user_games(ANN.id) == [] and await service.channel_games(GUILD, CHANNEL) == []
    pdn = await service.pdn(game.id, GUILD)
    assert f'[Result "{game.result}"]' in pdn and pdn.rstrip().endswith(game.result or "?")
    assert '[Black "Ann"]' in pdn
    (parsed,) = read_pdn(pdn)
    assert [m.text() for m in parsed.board.move_stack] == list(game.moves)
    assert {(c.user_id, c.scope) for c in game.rating_changes} == {
        (ANN.id, "global"),
        (BOB.id, "global"),
        (ANN.id, f"guild:{GUILD}"),
        (BOB.id, f"guild:{GUILD}"),
    }
    board = await service.leaderboard("american", GUILD)
    assert {e.user_id for e in board} == {ANN.id, BOB.id}
    assert all(e.provisional and e.games == 1 for e in board)
    stats = await service.stats(ANN.id, guild_id=GUILD)
    assert stats.rating.games == 1 and stats.rank in (1, 2) and stats.name == "Ann"


async def test_moves_by_index_with_version(service: GameService) -> None:
    view = await start_human_game(service)
    index = view.legal_moves.index("11-15")
    result = await service.move(view.id, GUILD, ANN, index, version=view.version)
    assert result.game is not None and result.game.game.moves == ("11-15",)
    with pytest.raises(PositionChangedError):
        await service.move(view.id, GUILD, BOB, 0, version=view.version)


async def test_whole_game_against_the_ai(service: GameService, events: EventLog) -> None:
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="white")
    assert start.game is not None and not start.game.game.rated
    assert [type(e) for e in start.events] == [GameStarted, AiThinking]
    await ai_idle(service)
    view = await service.state(start.game.id)
    assert len(view.game.moves) == 1 and view.to_move.id == ANN.id  # the AI (Black) has moved
    rng = random.Random(5)
    while view.game.is_active:
        result = await service.move(view.id, GUILD, ANN, rng.randrange(len(view.legal_moves)), version=view.version)
        if result.game is not None and result.game.game.is_active:
            assert isinstance(result.events[-1], AiThinking)
        await ai_idle(service)
        view = await service.state(view.id)
    assert any(isinstance(e, MovePlayed) and e.text.startswith("AI (easy)") for e in events.events)
    stats = await service.stats(ANN.id, guild_id=GUILD)
    assert stats.rating.games == 0  # not on the human ladder
    assert sum(stats.versus_bot["easy"]) == 1
    assert await service.leaderboard("american", GUILD) == []


async def test_blocked_side_passes_automatically_in_mini(service: GameService) -> None:
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="black", variant="mini", fen=MINI_PASS_FEN)
    assert start.game is not None
    result = await service.move(start.game.id, GUILD, ANN, "8-11")
    assert result.game is not None
    assert result.game.game.moves == ("8-11", "pass")
    assert [type(e) for e in result.events] == [MovePlayed, Passed]
    assert result.game.to_move.id == ANN.id  # White passed: Black moves again
    view = result.game
    rng = random.Random(1)
    while view.game.is_active:
        if view.to_move.id == ANN.id:
            await service.move(view.id, GUILD, ANN, rng.choice(view.legal_moves))
        await ai_idle(service)
        view = await service.state(view.id)
    assert view.game.termination is not None and "pass" in view.game.moves


async def test_exhibition_plays_itself_out(service: GameService, events: EventLog) -> None:
    start = await service.exhibition(GUILD, CHANNEL, "easy", "easy", variant="mini")
    assert start.game is not None and start.game.game.kind is GameKind.EXHIBITION
    await ai_idle(service)
    view = await service.state(start.game.id)
    assert not view.game.is_active and view.game.moves
    assert isinstance(events.events[-1], GameOver)


async def test_draw_offer_accept_and_decline(service: GameService) -> None:
    view = await start_human_game(service)
    offered = await service.offer_draw(view.id, GUILD, ANN)
    assert isinstance(offered.events[0], DrawOffered) and offered.game is not None
    declined = await service.decline_draw(view.id, GUILD, BOB)
    assert declined.game is not None and declined.game.game.draw_offer is None
    await service.offer_draw(view.id, GUILD, BOB)
    done = await service.accept_draw(view.id, GUILD, ANN)
    assert done.game is not None and done.game.game.result == "1/2-1/2"
    assert done.game.game.termination == "draw agreed"


async def test_takeback_between_people_needs_consent(service: GameService) -> None:
    view = await start_human_game(service)
    await service.move(view.id, GUILD, ANN, "11-15")
    asked = await service.takeback(view.id, GUILD, ANN)
    assert isinstance(asked.events[0], TakebackRequested)
    assert asked.game is not None and asked.game.game.moves == ("11-15",)
    done = await service.accept_takeback(view.id, GUILD, BOB)
    assert done.game is not None and done.game.game.moves == () and done.game.to_move.id == ANN.id
    assert done.game.game.rated


async def test_takeback_against_the_ai_is_immediate(service: GameService) -> None:
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="black")
    assert start.game is not None
    await service.move(start.game.id, GUILD, ANN, "11-15")
    await ai_idle(service)
    assert len((await service.state(start.game.id)).game.moves) == 2
    result = await service.takeback(start.game.id, GUILD, ANN)
    assert result.game is not None and result.game.game.moves == () and result.game.game.takebacks == 1
    assert not result.game.game.rated


async def test_rematch_swaps_colours(service: GameService) -> None:
    view = await start_human_game(service)
    await service.resign(view.id, GUILD, BOB)
    again = await service.rematch(view.id, GUILD, BOB)
    assert again.challenge is not None and again.challenge.color == "black"  # Bob had White
    assert again.challenge.opponent is not None and again.challenge.opponent.id == ANN.id
    second = await service.accept(again.challenge.id, GUILD, ANN)
    assert second.game is not None and second.game.game.black.id == BOB.id
    assert second.game.game.rematch_of == view.id


async def test_games_survive_a_new_service_instance(
    make_service: object, redis_client: aioredis.Redis, events: EventLog
) -> None:
    from .conftest import SlowChooser

    slow = SlowChooser()
    first: GameService = make_service(chooser_=slow, one_game_per_channel=False)  # type: ignore[operator]
    human = await start_human_game(first)
    await first.move(human.id, GUILD, ANN, "11-15")
    ai_game = await first.play_ai(GUILD, "c2", BOB, "easy", color="white")  # the AI (Black) is to move
    assert ai_game.game is not None
    await slow.asked.wait()
    await first.close()  # the process goes away while the AI thinks

    second: GameService = make_service(one_game_per_channel=False)  # type: ignore[operator]
    assert (await second.state(human.id)).game.moves == ("11-15",)
    assert {v.id for v in await second.user_games(BOB.id)} == {human.id, ai_game.game.id}
    assert await second.start() == 1  # resumes the AI's turn
    await ai_idle(second)
    resumed = await second.state(ai_game.game.id)
    assert len(resumed.game.moves) == 1 and resumed.to_move.id == BOB.id
    result = await second.move(human.id, GUILD, BOB, "22-18")
    assert result.game is not None and result.game.game.moves == ("11-15", "22-18")
