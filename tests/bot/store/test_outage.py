"""Redis killed (SIGKILL) in the middle of a game and started again on the same data: with the default append-only
policy (``REDIS_APPENDFSYNC=everysec``) no acknowledged move is lost; while it is down a command gets the storage
message, ``/healthz`` and the public pages answer 503; when it is back everything resumes by itself (the client
reconnects, the sweeper starts again the AI turn whose move could not be saved). Killed from outside, King Me starts
its redis-server again by itself and ``/healthz`` reports the outage and the recovery; killed through the test's own
handle (``server.kill()``, its owner's doing) it stays down until the test starts it. The whole bot runs: the real
discord.py client on the emulator, the embedded redis-server, the web server over real HTTP."""

from __future__ import annotations

import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis

from bot.emulator import DiscordEmulator
from bot.redis_process import find_redis_server
from bot.runtime import Runtime
from bot.service import GameId, GameService, GameView, StoreUnavailableError, UserId
from tests.bot.test_runtime import make_settings
from tests.support import eventually, tasks_named

STARTUP_TIMEOUT = 60.0
STORAGE = "King Me cannot reach its storage; try again in a moment."
SUPERVISOR = "bot.redis_process._supervisor"


async def status_of(session: aiohttp.ClientSession, url: str) -> tuple[int, dict[str, Any] | str, str | None]:
    async with session.get(url) as response:
        body = await response.json() if response.content_type == "application/json" else await response.text()
        return response.status, body, response.headers.get("Retry-After")


async def moved(service: GameService, game_id: GameId, plies: int) -> bool:
    return len((await service.state(game_id)).game.moves) == plies


async def play(emulator: DiscordEmulator, view: GameView) -> str:
    """alice's ``/checkers move`` with the first legal move; returns the ephemeral answer."""
    reply = await emulator.invoke(emulator.user("alice"), ["checkers", "move"], {"move": view.legal_moves[0]})
    assert reply.message.ephemeral
    return str(reply.message.content)


async def three_moves_in(
    emulator: DiscordEmulator, service: GameService, think: float
) -> tuple[GameId, tuple[str, ...]]:
    """alice's game against ``steady`` (``think`` seconds a move), once her second move is acknowledged and while the AI
    thinks its answer: the game's id and its three moves."""
    mine = UserId(str(emulator.user("alice").id))
    await emulator.invoke(emulator.user("alice"), ["checkers", "play"], {"level": "steady", "think": think})
    await eventually(lambda: service.user_games(mine), what="the game opened in its thread")
    [view] = await service.user_games(mine)
    assert (await play(emulator, view)).startswith("You played")
    await eventually(lambda: moved(service, view.id, 2), 30, "the AI's first answer")
    assert (await play(emulator, await service.state(view.id))).startswith("You played")
    acknowledged = (await service.state(view.id)).game.moves
    assert len(acknowledged) == 3
    return view.id, acknowledged


async def test_redis_killed_and_restarted_during_a_game(emulator: DiscordEmulator, tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, discord_token=emulator.token, use_threads=True, sweep_interval=0.2, ai_retry_after=1.0
    )
    assert settings.redis_appendfsync == "everysec", "the test runs with the default durability"
    async with Runtime(settings, bot_options={"guild_ready_timeout": 0.05}) as runtime:
        await eventually(lambda: runtime.bot is not None and runtime.bot.is_ready(), STARTUP_TIMEOUT, "a ready bot")
        service, server = runtime.service, runtime.embedded
        assert service is not None and server is not None
        async with aioredis.Redis.from_url(server.url) as probe:
            assert await probe.config_get("appendfsync") == {"appendfsync": "everysec"}
        game_id, acknowledged = await three_moves_in(emulator, service, think=2.0)

        server.kill()  # SIGKILL while the AI thinks (2 s): its move cannot be saved
        assert not server.running

        async with aiohttp.ClientSession() as session:
            answer = await emulator.invoke(emulator.user("alice"), ["checkers", "move"], {"move": "9-13"})
            assert answer.message.ephemeral and answer.message.content == STORAGE
            status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
            assert status == 503 and isinstance(health, dict)
            assert (health["status"], health["redis"]) == ("unavailable", "down")
            for page in (f"/games/{game_id}", "/leaderboard/global/american.json"):
                status, text, retry_after = await status_of(session, runtime.web_url + page)
                assert (status, retry_after) == (503, "5") and STORAGE in str(text), (page, text)
            await eventually(
                lambda: service.ai_turns_in_flight == 0, 30, "the AI's turn given up", lambda: tasks_named("ai-")
            )
            with pytest.raises(StoreUnavailableError):
                await service.state(game_id)

            server.start()  # same data directory, same socket

            status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
            assert status == 200 and isinstance(health, dict) and health["redis"] == "ok", "Redis is back at once"

        game = (await service.state(game_id)).game
        assert game.moves[:3] == acknowledged, "no acknowledged move was lost"
        await eventually(lambda: moved(service, game_id, 4), 30, "the AI's turn started again by the sweeper")
        assert (await play(emulator, await service.state(game_id))).startswith("You played")
        await eventually(lambda: moved(service, game_id, 6), 30, "the game going on")


async def test_redis_killed_mid_game_is_started_again_by_king_me(
    emulator: DiscordEmulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The same crash with nobody at hand: King Me sees its redis-server die, starts it again on the same data at the
    same socket, and the game plays on within seconds; the outage is logged once, and ``/healthz`` counts it."""
    caplog.set_level(logging.INFO, SUPERVISOR)
    settings = make_settings(tmp_path, discord_token=emulator.token, use_threads=True, ai_retry_after=1.0)
    async with Runtime(settings, bot_options={"guild_ready_timeout": 0.05}) as runtime:
        await eventually(lambda: runtime.bot is not None and runtime.bot.is_ready(), STARTUP_TIMEOUT, "a ready bot")
        service, server = runtime.service, runtime.embedded
        assert service is not None and server is not None
        game_id, acknowledged = await three_moves_in(emulator, service, think=1.0)

        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)  # from outside, while the AI thinks: no one calls server.start()
        killed = time.monotonic()

        await eventually(lambda: moved(service, game_id, 4), 15, "the AI's answer, saved in the restarted Redis")
        assert (await play(emulator, await service.state(game_id))).startswith("You played")
        assert time.monotonic() - killed < 15, "played on within seconds"
        assert server.pid not in (None, pid) and server.url.startswith("unix://")
        assert (await service.state(game_id)).game.moves[:3] == acknowledged, "no acknowledged move was lost"

        async with aiohttp.ClientSession() as session:
            status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
        assert status == 200 and isinstance(health, dict) and health["redis"] == "ok"
        assert health["redis_server"]["state"] == "running" and health["redis_server"]["restarts"] == 1
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == SUPERVISOR]
    assert [level for level, _ in logged] == [logging.WARNING, logging.INFO], logged
    assert "killed by SIGKILL" in logged[0][1] and "is back" in logged[1][1]
    assert not server.running, "stopped with King Me, and not started again"


async def test_healthz_reports_the_outage_of_its_redis_server_and_the_recovery(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    """A redis-server that cannot start again at once (here a wrapper refuses while a file exists): ``/healthz`` says
    503, Redis down, its server being started again; once it can start, 200 and one restart counted."""
    refuse = tmp_path / "refuse"
    binary = tmp_path / "redis-server"
    binary.write_text(f'#!/bin/sh\n[ -e "{refuse}" ] && exit 1\nexec "{find_redis_server()}" "$@"\n')
    binary.chmod(0o755)
    settings = make_settings(tmp_path, discord_token=emulator.token, use_threads=True)
    runtime = Runtime(settings, redis_binary=binary, bot_options={"guild_ready_timeout": 0.05})
    async with runtime, aiohttp.ClientSession() as session:
        await eventually(lambda: runtime.bot is not None and runtime.bot.is_ready(), STARTUP_TIMEOUT, "a ready bot")
        server = runtime.embedded
        assert server is not None and server.pid is not None
        status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
        assert status == 200 and isinstance(health, dict)
        assert health["redis_server"] == {"state": "running", "restarts": 0}

        refuse.touch()
        os.kill(server.pid, signal.SIGKILL)

        async def restarting() -> bool:
            _, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
            return isinstance(health, dict) and health["redis_server"].get("attempts", 0) >= 2

        await eventually(restarting, 5, "a failed start, and another under way or waiting")
        status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
        assert status == 503 and isinstance(health, dict)
        assert (health["status"], health["redis"], health["redis_server"]["state"]) == (
            "unavailable",
            "down",
            "restarting",
        )
        assert health["redis_server"]["down_seconds"] >= 0

        refuse.unlink()

        async def recovered() -> bool:
            _, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
            return isinstance(health, dict) and health["redis_server"]["restarts"] == 1

        await eventually(recovered, 10, "the redis-server back")
        status, health, _ = await status_of(session, f"{runtime.ops_url}/healthz")
        assert status == 200 and isinstance(health, dict) and health["redis"] == "ok"
        assert health["redis_server"]["state"] == "running"
        assert health["redis_server"]["last_outage_seconds"] > 0
