"""Bad requests get a typed error with a message for the player, and change nothing in the store."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis

import bot.service as api
import core
from bot.service import GameService, User
from core import RulesError

from .conftest import snapshot
from .test_games import ANN, BOB, CHANNEL, GUILD, start_human_game

EVE = User(303, "Eve")
AMBIGUOUS_FEN = "W:W13,18,19,21,22,24,27,28,29,30,31:B1,4,5,6,7,10,12,14,15,20"  # 18x2 goes via 9 or via 11


async def refused(
    client: aioredis.Redis,
    error: type[api.ServiceError | RulesError],
    match: str,
    call: Callable[[], Awaitable[object]],
) -> api.ServiceError | RulesError:
    """``call`` fails with ``error`` (a service error, or core's error for a move the rules refuse), its message short
    enough for a player, and the store unchanged."""
    before = await snapshot(client)
    with pytest.raises(error, match=match) as info:
        await call()
    assert await snapshot(client) == before
    assert str(info.value) and len(str(info.value)) < 200
    return info.value


async def test_bad_moves_in_a_game_between_people(service: GameService, redis_client: aioredis.Redis) -> None:
    view = await start_human_game(service)
    gid = view.id
    r = redis_client
    await refused(r, api.UnknownGameError, "no game", lambda: service.move("nope", GUILD, ANN, "11-15"))
    await refused(r, api.OtherGuildError, "another server", lambda: service.move(gid, "g2", ANN, "11-15"))
    await refused(r, api.NotYourTurnError, "Ann's turn", lambda: service.move(gid, GUILD, BOB, "22-18"))
    await refused(r, api.NotAPlayerError, "not playing", lambda: service.move(gid, GUILD, EVE, "11-15"))
    await refused(r, api.NotAPlayerError, "not playing", lambda: service.resign(gid, GUILD, EVE))
    await refused(r, api.NotAPlayerError, "not playing", lambda: service.offer_draw(gid, GUILD, EVE))
    await refused(r, api.NotAPlayerError, "not playing", lambda: service.takeback(gid, GUILD, EVE))
    await refused(r, api.IllegalMoveError, "not a move", lambda: service.move(gid, GUILD, ANN, "hello"))
    await refused(r, api.IllegalMoveError, "illegal", lambda: service.move(gid, GUILD, ANN, "11-18"))
    await refused(r, api.IllegalMoveError, "not on the board", lambda: service.move(gid, GUILD, ANN, "11-99"))
    await refused(r, api.IllegalMoveError, "no move number", lambda: service.move(gid, GUILD, ANN, 99))
    await refused(r, api.NoOfferError, "not offered", lambda: service.accept_draw(gid, GUILD, BOB))
    await refused(r, api.NoOfferError, "not asked", lambda: service.accept_takeback(gid, GUILD, BOB))
    await refused(r, api.NothingToTakeBackError, "no move", lambda: service.takeback(gid, GUILD, ANN))
    await refused(r, api.AlreadyPlayingError, "channel", lambda: service.challenge(GUILD, CHANNEL, EVE, BOB))
    await refused(r, api.AlreadyPlayingError, "already", lambda: service.challenge(GUILD, "c9", ANN, BOB))
    await service.resign(gid, GUILD, ANN)
    await refused(r, api.GameOverError, "over", lambda: service.move(gid, GUILD, BOB, "22-18"))


async def test_ambiguous_capture_lists_the_paths(service: GameService, redis_client: aioredis.Redis) -> None:
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="white", fen=AMBIGUOUS_FEN)
    assert start.game is not None
    gid = start.game.id
    error = await refused(
        redis_client, api.AmbiguousMoveError, "more than one", lambda: service.move(gid, GUILD, ANN, "18x2")
    )
    assert isinstance(error, api.AmbiguousMoveError)
    assert set(error.candidates) == {"18x9x2", "18x11x2"}
    result = await service.move(gid, GUILD, ANN, "18x9x2")
    assert result.game is not None and result.game.game.moves[0] == "18x9x2"


async def test_bad_challenges(service: GameService, redis_client: aioredis.Redis) -> None:
    r = redis_client
    await refused(r, api.SelfChallengeError, "yourself", lambda: service.challenge(GUILD, CHANNEL, ANN, ANN))
    await refused(
        r, api.InvalidRequestError, "variant", lambda: service.challenge(GUILD, CHANNEL, ANN, BOB, variant="x")
    )
    await refused(
        r, api.InvalidRequestError, "between", lambda: service.challenge(GUILD, CHANNEL, ANN, BOB, turn_time=5)
    )
    await refused(
        r, api.InvalidRequestError, "between", lambda: service.challenge(GUILD, CHANNEL, ANN, BOB, turn_time=8 * 86400)
    )
    result = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert result.challenge is not None
    cid = result.challenge.id
    await refused(r, api.UnknownChallengeError, "no such", lambda: service.accept("nope", GUILD, BOB))
    await refused(r, api.OtherGuildError, "another server", lambda: service.accept(cid, "g2", BOB))
    await refused(r, api.SelfChallengeError, "your own", lambda: service.accept(cid, GUILD, ANN))
    await refused(r, api.NotAPlayerError, "for Bob", lambda: service.accept(cid, GUILD, EVE))
    await refused(r, api.NotAPlayerError, "challenger", lambda: service.cancel(cid, GUILD, BOB))
    await refused(r, api.NotAPlayerError, "challenged", lambda: service.decline(cid, GUILD, EVE))
    declined = await service.decline(cid, GUILD, BOB)
    assert declined.challenge is not None
    await refused(r, api.UnknownChallengeError, "declined", lambda: service.accept(cid, GUILD, BOB))


async def test_bad_ai_games(service: GameService, redis_client: aioredis.Redis) -> None:
    r = redis_client
    await refused(
        r, api.InvalidRequestError, "unknown AI level", lambda: service.play_ai(GUILD, CHANNEL, ANN, "godlike")
    )
    await refused(r, api.InvalidRequestError, "FEN", lambda: service.play_ai(GUILD, CHANNEL, ANN, "easy", fen="xyz"))
    await refused(
        r, api.InvalidRequestError, "already over", lambda: service.play_ai(GUILD, CHANNEL, ANN, "easy", fen="B:W10:B")
    )
    await refused(
        r, api.InvalidRequestError, "think", lambda: service.play_ai(GUILD, CHANNEL, ANN, "easy", think_time=60)
    )
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy")
    assert start.game is not None
    gid = start.game.id
    await refused(r, api.InvalidRequestError, "draw", lambda: service.offer_draw(gid, GUILD, ANN))


def test_move_errors_are_the_rules_own() -> None:
    """The service re-uses core's move errors (a front end shows ``str(error)`` of them and of a api.ServiceError)."""
    assert api.IllegalMoveError is core.IllegalMoveError and api.AmbiguousMoveError is core.AmbiguousMoveError
    assert not issubclass(api.IllegalMoveError, api.ServiceError)
