"""Acknowledged moves survive a Redis restart and a crash (append-only file, ``appendfsync always``)."""

from __future__ import annotations

import random

import redis.asyncio as aioredis

from bot.redis_process import EmbeddedRedis
from bot.service import GameService
from bot.store import RedisGameStore

from .conftest import Clock, ThreadChooser, make_settings
from .test_games import ANN, BOB, GUILD, start_human_game, user_to_move


async def play(service: GameService, game_id: str, plies: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    view = await service.state(game_id)
    for _ in range(plies):
        if not view.game.is_active:
            break
        result = await service.move(game_id, GUILD, user_to_move(view), rng.choice(view.legal_moves))
        assert result.game is not None
        view = result.game
    return list(view.game.moves)


async def test_no_acknowledged_move_is_lost_over_restart_and_crash(redis_server: EmbeddedRedis) -> None:
    clock = Clock()
    client = aioredis.Redis.from_url(redis_server.url)
    service = GameService(RedisGameStore(client), ThreadChooser(), make_settings(), clock=clock)
    view = await start_human_game(service)
    acknowledged = await play(service, view.id, 12, seed=1)
    await client.aclose()

    redis_server.restart()  # a clean shutdown
    client = aioredis.Redis.from_url(redis_server.url)
    service = GameService(RedisGameStore(client), ThreadChooser(), make_settings(), clock=clock)
    assert list((await service.state(view.id)).game.moves) == acknowledged
    acknowledged = await play(service, view.id, 6, seed=2)
    await client.aclose()

    redis_server.kill()  # a crash: SIGKILL, no shutdown
    redis_server.start()
    client = aioredis.Redis.from_url(redis_server.url)
    service = GameService(RedisGameStore(client), ThreadChooser(), make_settings(), clock=clock)
    state = await service.state(view.id)
    assert list(state.game.moves) == acknowledged
    assert {v.id for v in await service.user_games(BOB.id)} == {view.id}
    assert {v.id for v in await service.user_games(ANN.id)} == {view.id}
    await client.aclose()
