"""Every action once, even when Redis runs a write but its reply is lost: through a proxy that holds the reply back past
the client's timeout (the client then sends the write again), or drops the write for a while (it never runs).

Each request carries an idempotency key; the write records its outcome under the key in the same atomic step, so the
write sent again changes nothing, and the service reports what happened: applied once, or nothing changed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest
import redis.asyncio as aioredis

from bot.redis_process import EmbeddedRedis
from bot.service import (
    ChallengeCreated,
    ChannelId,
    CommitConflict,
    DrawOffered,
    Event,
    GameOver,
    GameService,
    GameStarted,
    GameView,
    GuildId,
    MovePlayed,
    Request,
    RequestId,
    Result,
    ServiceError,
    StoreUnavailableError,
    TakebackDone,
    User,
)
from bot.store import NAMESPACE, RedisGameStore, connect
from tests.proxy import LossyProxy, lossy_proxy

from .conftest import ServiceFactory, ai_idle, snapshot

ANN, BOB, CAT = User(101, "Ann"), User(202, "Bob"), User(303, "Cat")
GUILD, CHANNEL = GuildId("g1"), ChannelId("c1")
TIMEOUT = 0.3
"""The proxied client's command timeout (the product's is 5 s): a reply held back longer is lost to the client, which
sends the command again on a new connection."""
HELD = 1.0
KEY = RequestId("1234567890")


@dataclass
class Lossy:
    service: GameService
    proxy: LossyProxy
    direct: aioredis.Redis
    """A client around the proxy, to read what Redis holds."""


@pytest.fixture
async def lossy(
    redis_server_session: EmbeddedRedis, redis_client: aioredis.Redis, make_service: ServiceFactory
) -> AsyncIterator[Lossy]:
    async with lossy_proxy(redis_server_session.url) as proxy:
        client = connect(proxy.url, command_timeout=TIMEOUT)
        try:
            yield Lossy(make_service(client=client, ai_retry_after=60.0), proxy, redis_client)
        finally:
            await client.aclose()


async def records(client: aioredis.Redis) -> dict[bytes, Any]:
    """What Redis holds of King Me, without the requests' own records."""
    return {k: v for k, v in (await snapshot(client)).items() if not k.startswith(f"{NAMESPACE}:request:".encode())}


async def ai_game(service: GameService, user: User = ANN) -> GameView:
    """A game against the AI where ``user`` has played one move and the AI has answered."""
    started = (await service.play_ai(GUILD, ChannelId(f"ai-{user.id}"), user, "easy")).game
    assert started is not None
    await service.move(started.id, GUILD, user, started.legal_moves[0])
    await ai_idle(service)
    return await service.state(started.id)


async def human_game(service: GameService) -> GameView:
    challenge = (await service.challenge(GUILD, CHANNEL, ANN, BOB, color="black")).challenge
    assert challenge is not None
    view = (await service.accept(challenge.id, GUILD, BOB)).game
    assert view is not None
    return view


Act = Callable[[RequestId], Awaitable[Result]]
"""An action for a request key; prepared with the version its record will have once the action is done (once)."""


async def takeback(service: GameService) -> tuple[Act, int]:
    view = await ai_game(service)
    return lambda key: service.takeback(view.id, GUILD, ANN, request=key), view.version + 1


async def resign(service: GameService) -> tuple[Act, int]:
    view = await human_game(service)
    return lambda key: service.resign(view.id, GUILD, ANN, request=key), view.version + 1


async def draw(service: GameService) -> tuple[Act, int]:
    view = await human_game(service)
    return lambda key: service.offer_draw(view.id, GUILD, ANN, request=key), view.version + 1


async def move(service: GameService) -> tuple[Act, int]:
    view = await human_game(service)
    return lambda key: service.move(view.id, GUILD, ANN, "11-15", request=key), view.version + 1


async def play(service: GameService) -> tuple[Act, int]:
    await ai_game(service, CAT)  # so that the store's scripts are loaded and the held reply is the game's own write
    return lambda key: service.play_ai(GUILD, CHANNEL, ANN, "easy", request=key), 1


async def challenge(service: GameService) -> tuple[Act, int]:
    await human_game(service)
    return lambda key: service.challenge(GUILD, ChannelId("c2"), CAT, BOB, request=key), 1


CASES: dict[str, tuple[Callable[[GameService], Awaitable[tuple[Act, int]]], type[Event]]] = {
    "takeback": (takeback, TakebackDone),
    "resign": (resign, GameOver),
    "draw": (draw, DrawOffered),
    "move": (move, MovePlayed),
    "play": (play, GameStarted),
    "challenge": (challenge, ChallengeCreated),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_an_action_whose_reply_is_lost_is_applied_once_and_reported(lossy: Lossy, name: str) -> None:
    prepare, told = CASES[name]
    act, version = await prepare(lossy.service)
    lossy.proxy.hold_next_reply(b"EVALSHA", HELD)
    result = await act(KEY)
    assert lossy.proxy.held == 1, "the reply of the action's write was held back, and the client sent it again"
    assert [e for e in result.events if isinstance(e, told)], f"{name} is reported as done"
    record = result.game.game if result.game is not None else result.challenge
    assert record is not None
    assert record.version == version, "one write, not two"
    stored = await RedisGameStore(lossy.direct).load_challenge(record.id) if name == "challenge" else None
    assert stored is None or stored.version == version
    if name == "takeback":
        after = await lossy.service.state(record.id)  # type: ignore[arg-type]
        assert (after.game.moves, after.game.takebacks) == ((), 1), "one move (and the AI's answer) taken back once"
        assert getattr(result.events[0], "plies", None) == 2
    before = await records(lossy.direct)
    with pytest.raises(ServiceError):  # the same request once more changes nothing
        await act(KEY)
    assert await records(lossy.direct) == before


async def test_a_write_that_never_ran_is_reported_as_nothing_changed_and_cannot_land_later(lossy: Lossy) -> None:
    service = lossy.service
    view = await ai_game(service)
    before = await records(lossy.direct)
    lossy.proxy.drop_commands(b"EVALSHA", 3.0)  # longer than the client's retries: the service asks again after
    with pytest.raises(StoreUnavailableError, match="nothing was changed"):
        await service.takeback(view.id, GUILD, ANN, request=KEY)
    assert lossy.proxy.dropped >= 2
    assert await records(lossy.direct) == before, "nothing was taken back"
    late = RedisGameStore(lossy.direct)  # the write arriving after all, with its request: refused
    game = view.game
    with pytest.raises(CommitConflict) as refused:
        await late.save_game(game, replace(game, version=game.version + 1, moves=()), Request(KEY, "game:x:1"))
    assert refused.value.tag == "request"
    assert await records(lossy.direct) == before
