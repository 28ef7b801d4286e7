"""Bugs the fuzz of the front end found (tests/bot/fuzz), each pinned by the smallest request sequence that shows it."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from bot.service import GameService, UnknownChallengeError, UnknownGameError, User
from bot.store import NAMESPACE

from .conftest import ServiceFactory, ai_idle

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
