"""Game service throughput on a real (embedded) Redis.

Measures:
  1. moves per second through :class:`GameService` with many games at once (human-vs-human, random legal moves);
  2. Redis commands per move (``INFO commandstats`` deltas: a plain move should be one EVALSHA);
  3. event-loop lag (p50/p99 of a 5 ms ticker) while AI-vs-AI exhibitions run their searches in a process pool.

Run: ``python benchmarks/service.py [--games 200] [--plies 20] [--exhibitions 8] [--think 1] [--workers N]``. The
exhibitions keep every AI worker of the real pool (:class:`bot.pool.AiPool`) busy for the whole lag measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from typing import Any

import redis.asyncio as aioredis

from ai.api import levels
from bot.pool import AiPool
from bot.redis_process import EmbeddedRedis
from bot.service import ChannelId, GameId, GameService, GameView, GuildId, User
from bot.settings import Settings
from bot.store import RedisGameStore

GUILD = GuildId("bench")


async def commandstats(client: aioredis.Redis) -> dict[str, int]:
    info: dict[str, Any] = await client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in info.items()}


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0) > 0}


async def start_games(service: GameService, n: int) -> list[tuple[GameView, User, User]]:
    games = []
    for i in range(n):
        a, b = User(f"a{i}", f"A{i}"), User(f"b{i}", f"B{i}")
        challenge = (await service.challenge(GUILD, ChannelId(f"ch{i}"), a, b, color="black")).challenge
        assert challenge is not None
        view = (await service.accept(challenge.id, GUILD, b)).game
        assert view is not None
        games.append((view, a, b))
    return games


async def bench_moves(service: GameService, client: aioredis.Redis, n_games: int, plies: int) -> None:
    games = await start_games(service, n_games)
    rng = random.Random(1)
    views = {view.id: view for view, _, _ in games}
    users = {view.id: (a, b) for view, a, b in games}

    async def one_move(game_id: GameId) -> int:
        view = views[game_id]
        if not view.game.is_active:
            return 0
        a, b = users[game_id]
        result = await service.move(game_id, GUILD, a if view.to_move.id == a.id else b, rng.choice(view.legal_moves))
        assert result.game is not None
        views[game_id] = result.game
        return 1

    before = await commandstats(client)
    started = time.perf_counter()
    moves = 0
    for _ in range(plies):
        moves += sum(await asyncio.gather(*(one_move(gid) for gid in views)))
    elapsed = time.perf_counter() - started
    used = delta(await commandstats(client), before)
    used.pop("info", None)
    finished = sum(1 for v in views.values() if not v.game.is_active)
    print(f"moves: {moves} in {elapsed:.2f} s over {n_games} concurrent games = {moves / elapsed:,.0f} moves/s")
    print(f"  ({finished} games ended during the run; endings add a rating read and a larger commit)")
    # commandstats also counts the commands a script runs; only these arrive from the client, one round trip each
    # (a MULTI ... EXEC read is one pipelined round trip, counted by its EXEC)
    trips = used.get("evalsha", 0) + used.get("eval", 0) + used.get("exec", 0)
    reads = used.get("exec", 0)
    print(
        f"redis round trips per move: {trips / moves:.3f} (EVALSHA {used.get('evalsha', 0) / moves:.3f}, "
        f"reads {reads / moves:.3f}); all commands incl. those inside the script: "
        + ", ".join(f"{k}={v}" for k, v in sorted(used.items()))
    )


async def bench_loop_lag(service: GameService, exhibitions: int, level: str, seconds: float, think_time: float) -> None:
    lags: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        period = 0.005
        while not stop.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(period)
            lags.append(max(0.0, time.perf_counter() - t0 - period) * 1000)

    tick = asyncio.create_task(ticker())
    ids = []
    for i in range(exhibitions):
        result = await service.exhibition(
            GUILD, ChannelId(f"ex{i}"), level, level, variant="american", think_time=think_time
        )
        assert result.game is not None
        ids.append(result.game.id)
    await asyncio.sleep(seconds)
    stop.set()
    await tick
    await service.close()
    plies = 0
    for gid in ids:
        plies += len((await service.state(gid)).game.moves)
    q = statistics.quantiles(lags, n=100)
    print(
        f"event-loop lag with {exhibitions} AI-vs-AI games ({level}, {think_time:g} s a move) for {seconds:.0f} s: "
        f"p50 {q[49]:.2f} ms, p99 {q[98]:.2f} ms, max {max(lags):.2f} ms ({len(lags)} ticks, {plies} AI plies)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--plies", type=int, default=20)
    parser.add_argument("--exhibitions", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to measure the loop lag")
    parser.add_argument("--think", type=float, default=1.0, help="AI seconds a move in the exhibitions (default 1)")
    parser.add_argument("--workers", type=int, help="AI worker processes (default: the bot's, cores - 1)")
    args = parser.parse_args()
    level = "medium" if "medium" in levels() else "easy"
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        pool_ = aioredis.BlockingConnectionPool.from_url(server.url, max_connections=64, timeout=30)
        client = aioredis.Redis(connection_pool=pool_)
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            exhibition_move_delay=0.0,
            rated_games_per_pair_per_day=100,
            exhibitions_per_guild=max(1, args.exhibitions),  # every exhibition runs in the one "bench" server
        )
        workers = args.workers or settings.ai_workers
        pool = AiPool(workers=workers, queue_limit=8 * workers)
        await pool.start()
        try:
            service = GameService(RedisGameStore(client), pool, settings)
            print(f"redis-server {server.binary} (appendonly, fsync everysec), {workers} AI worker processes")
            await bench_moves(service, client, args.games, args.plies)
            await bench_loop_lag(
                GameService(RedisGameStore(client), pool, settings),
                args.exhibitions,
                level,
                args.seconds,
                args.think,
            )
        finally:
            await pool.close()
            await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
