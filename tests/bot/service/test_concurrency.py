"""Racing commands on one game: exactly one applies, the others get a clear error, and an AI answer for an old
version is dropped."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from bot.service import GameService, GameView, NotYourTurnError, PositionChangedError, ServiceError, User
from bot.store import NAMESPACE

from .conftest import ServiceFactory, SlowChooser, ai_idle
from .test_games import ANN, BOB, CHANNEL, GUILD, start_human_game


async def moves_stored(client: aioredis.Redis, game_id: str) -> list[bytes | str]:
    return list(await client.lrange(f"{NAMESPACE}:game:{game_id}:moves", 0, -1))


async def test_hundred_concurrent_moves_with_a_version_apply_once(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    view = await start_human_game(service)
    outcomes = await asyncio.gather(
        *(service.move(view.id, GUILD, ANN, "11-15", version=view.version) for _ in range(100)),
        return_exceptions=True,
    )
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    refused = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(applied) == 1
    assert len(refused) == 99 and all(isinstance(o, PositionChangedError) for o in refused)
    assert "position changed" in str(refused[0])
    assert await moves_stored(redis_client, view.id) == [b"11-15"]
    assert (await service.state(view.id)).version == view.version + 1


async def test_hundred_concurrent_moves_without_a_version_apply_once(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    view = await start_human_game(service)
    texts = ["11-15", "9-13", "10-14", "12-16"] * 25
    outcomes = await asyncio.gather(*(service.move(view.id, GUILD, ANN, t) for t in texts), return_exceptions=True)
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(applied) == 1
    assert all(isinstance(o, NotYourTurnError) for o in outcomes if isinstance(o, BaseException))
    assert len(await moves_stored(redis_client, view.id)) == 1


async def test_racing_moves_from_two_service_instances(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    one, two = make_service(), make_service()
    view = await start_human_game(one)
    for _ in range(5):
        outcomes = await asyncio.gather(
            one.move(view.id, GUILD, user_of(view), view.legal_moves[0]),
            two.move(view.id, GUILD, user_of(view), view.legal_moves[-1]),
            return_exceptions=True,
        )
        applied = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(applied) == 1, outcomes
        assert all(isinstance(o, PositionChangedError | NotYourTurnError) for o in outcomes if o not in applied)
        view = await one.state(view.id)
    assert len(await moves_stored(redis_client, view.id)) == 5


def user_of(view: GameView) -> User:
    return ANN if view.to_move.id == ANN.id else BOB


async def test_ai_answer_for_an_old_version_is_dropped(make_service: ServiceFactory) -> None:
    slow = SlowChooser()
    service = make_service(chooser_=slow)
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="white")
    assert start.game is not None
    await slow.asked.wait()
    await service.resign(start.game.id, GUILD, ANN)  # the game changes while the AI thinks
    slow.release.set()
    await ai_idle(service)
    final = await service.state(start.game.id)
    assert final.game.moves == () and final.game.termination == "resignation"


async def test_resign_and_timeout_race_end_the_game_once(make_service: ServiceFactory) -> None:
    service = make_service()
    view = await start_human_game(service)
    other = make_service()
    outcomes = await asyncio.gather(
        service.resign(view.id, GUILD, ANN), other.resign(view.id, GUILD, BOB), return_exceptions=True
    )
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(applied) == 1
    assert all(isinstance(o, ServiceError) for o in outcomes if isinstance(o, BaseException))
