"""Bugs the fuzz of the front end found (tests/bot/fuzz), each pinned by the smallest request sequence that shows it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from bot.service import (
    GameService,
    InvalidRequestError,
    PositionChangedError,
    UnknownChallengeError,
    UnknownGameError,
    User,
)
from bot.store import NAMESPACE, RedisGameStore
from tests.support import Clock

from .conftest import ServiceFactory, ThreadChooser, ai_idle, make_settings

ANN = User(101, "Ann")


async def test_a_takeback_to_the_start_empties_the_stored_moves(
    service: GameService, make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    """Taking back the only move of the game: the stored move list becomes empty (an ``LTRIM key 0 -1`` kept it
    whole, so another process, or this one after a restart, saw moves that were taken back)."""
    started = await service.play_ai("g1", "c1", ANN, "easy", color="black")
    assert started.game is not None
    game_id = started.game.id
    await service.move(game_id, "g1", ANN, "9-14")
    await ai_idle(service)
    taken = await service.takeback(game_id, "g1", ANN)
    assert taken.game is not None and taken.game.game.moves == ()
    assert await redis_client.lrange(f"{NAMESPACE}:game:{game_id}:moves", 0, -1) == []
    assert (await make_service().state(game_id)).game.moves == ()  # another process reads it from the store


async def test_recording_a_message_under_an_id_of_another_shape_names_no_record(service: GameService) -> None:
    """``set_board_message`` and ``set_challenge_message`` with text that is no id (a real one with ``:moves``
    after it named the game's move list, and HSET on it was a Redis WRONGTYPE error) answer "no such game"."""
    started = await service.play_ai("g1", "c1", ANN, "easy", color="black")
    challenge = (await service.challenge("g1", "c2", ANN, User(202, "Bob"))).challenge
    assert started.game is not None and challenge is not None
    await service.move(started.game.id, "g1", ANN, "9-14")  # the game's move list exists now
    for suffix in (":moves", ":result", ":review"):
        with pytest.raises(UnknownGameError):
            await service.set_board_message(started.game.id + suffix, "c1", 1)
        with pytest.raises(UnknownChallengeError):
            await service.set_challenge_message(challenge.id + suffix, "c2", 2)


class _ActsBeforeErasing(RedisGameStore):
    """The real store, where another request lands between an erasure's checks and its write (as from another
    process): ``meanwhile`` runs first."""

    def __init__(self, client: aioredis.Redis, meanwhile: Callable[[], Awaitable[object]]) -> None:
        super().__init__(client)
        self._meanwhile = meanwhile

    async def erase_user(self, *args: Any, **kwargs: Any) -> None:
        await self._meanwhile()
        await super().erase_user(*args, **kwargs)


@pytest.mark.parametrize("meanwhile", ["game", "challenge", "game over"])
async def test_an_erasure_never_unlists_a_game_or_challenge_that_began_meanwhile(
    service: GameService, redis_client: aioredis.Redis, chooser: ThreadChooser, clock: Clock, meanwhile: str
) -> None:
    """The erasure's checks (no game in progress, no pending challenge) and its write were apart, so a game begun
    meanwhile lost its place in the player's games (and a challenge its place in their challenges, a game that
    ended its place in their history, unanonymised): now the write is refused and everything stays listed."""
    bob = User(202, "Bob")
    if meanwhile == "game over":  # a game begun and ended meanwhile: listed in the history only

        async def act() -> object:
            started = await service.play_ai("g1", "c1", ANN, "easy", color="black")
            assert started.game is not None
            return await service.resign(started.game.id, "g1", ANN)
    elif meanwhile == "game":

        async def act() -> object:
            return await service.play_ai("g1", "c1", ANN, "easy", color="black")
    else:

        async def act() -> object:
            return await service.challenge("g1", "c1", ANN, bob)

    erasing = GameService(_ActsBeforeErasing(redis_client, act), chooser, make_settings(), clock=clock)
    try:
        with pytest.raises((InvalidRequestError, PositionChangedError)):
            await erasing.erase_personal_data(ANN.id)
    finally:
        await erasing.close()
    data = await service.personal_data(ANN.id)
    assert data.name == ANN.name, "nothing was erased"
    if meanwhile == "game":
        assert data.active_games == 1 and len(await service.user_games(ANN.id)) == 1
    elif meanwhile == "challenge":
        assert data.pending_challenges == 1 and len(await service.challenges_of(ANN.id)) == 1
    else:
        assert data.finished_games == 1
