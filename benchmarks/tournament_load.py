"""Load run of a tournament: a P-player arena in one server, played by clicks by :mod:`benchmarks.load`'s people.

    python -m benchmarks.tournament_load [--players 64] [--minutes 5] [--bots 1] [--workers 1] [--moves 10]
                                         [--pause 0.5] [--seed 1] [--cancel-after SECONDS] [--profile DIR]

The world is :func:`benchmarks.load.cluster`'s (a redis-server on TCP, the Discord emulator in this process, K
``kingme run`` processes and one ``kingme worker``). The first person creates the arena (``/tournament create
format:arena match:single``), the P-1 others click its announcement's Join button all at once, the creator starts it.
Every game the arena opens is played in its thread as :class:`benchmarks.load.Driver` plays one: the person to move
chooses a piece and its move in the board's menus after ``--pause`` seconds on average, ``--moves`` moves of each
game, then the one to move resigns. The arena pairs players again as their games end, until its ``--minutes`` are
over and its last game ends (or, with ``--cancel-after``, until the creator cancels it: a short run for the smoke
test).

It prints the joins' first-response latency, the first-response latency of every interaction of the run (p50, p99,
max; Discord holds the bot to 3 s), unanswered and doubly answered interactions, the games and moves played, the
moves lost or applied twice (Redis against what the people played), how long a player waited from the end of a game
to the board of its next one (p50, p99), whether the podium was posted once, the tracebacks in the consoles and the
bots' CPU seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from benchmarks.load import (
    Cluster,
    Deployment,
    Driver,
    Load,
    Played,
    Watch,
    cluster,
    control,
    game_id,
    quantile,
    verify,
)
from bot.emulator import Message
from bot.service import GameState, TournamentId, TournamentRecord, TournamentStatus
from bot.store import RedisGameStore

NAME = "Load Arena"


@dataclass(frozen=True)
class Arena:
    """What the run plays."""

    players: int = 64
    minutes: int = 5
    moves: int = 10
    pause: float = 0.5
    seed: int = 1
    cancel_after: float | None = None

    def describe(self) -> str:
        end = f"cancelled after {self.cancel_after:g} s" if self.cancel_after else f"{self.minutes} minutes"
        return (
            f"arena of P={self.players} players in one server, {end}, {self.moves} moves of each player a game, "
            f"pause {self.pause:g} s, seed {self.seed}"
        )


@dataclass
class Run:
    """What the driver saw."""

    joins: list[float] = field(default_factory=list)
    games: list[Played] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    """Seconds from the end of a player's game to the board of its next game."""
    ended_at: dict[int, float] = field(default_factory=dict)
    """When each person's last game ended (the loop's clock), until its next board is seen."""
    stalled: int = 0
    refused: list[str] = field(default_factory=list)
    """What the joins the tournament refused were told."""


class ArenaDriver:
    """Creates, fills and starts the arena, then plays every game it opens until it is over."""

    def __init__(self, world: Cluster, arena: Arena, watch: Watch) -> None:
        self.world = world
        self.arena = arena
        self.watch = watch
        self.emulator = world.emulator
        self.channel = world.channels[0]
        self.store = RedisGameStore(world.redis)
        load = Load(games=arena.players // 2, mix=0.0, moves=arena.moves, pause=arena.pause, seed=arena.seed)
        self.games = Driver(world, load, watch)
        self.run = Run()
        self._loop = asyncio.get_running_loop()

    async def open(self) -> tuple[TournamentId, Message]:
        creator, *others = self.world.people[: self.arena.players]
        options = {
            "name": NAME,
            "format": "arena",
            "minutes": self.arena.minutes,
            "match": "single",
            "max_players": self.arena.players,
        }
        reply = await self.emulator.invoke(creator, ["tournament", "create"], options, channel=self.channel)
        announcement = reply.message
        join = control(announcement, "km:t:join:")
        assert join is not None, f"no Join button on {announcement.content!r}"
        handles = [self.emulator.click(person, announcement, join["custom_id"]) for person in others]
        replies = await asyncio.gather(*handles)
        self.run.joins = [h.record.latency for h in handles if h.record.latency is not None]
        state = self.emulator.state

        def told() -> list[str]:
            """What each joiner was told, privately (the click itself updates the announcement)."""
            answers = []
            for reply in replies:
                mine = [state.messages[i] for i in reply.interaction.message_ids if i in state.messages]
                answers += [m.content for m in mine if m.ephemeral][:1]
            return answers

        with contextlib.suppress(TimeoutError):
            await self.watch.until(self.channel.id, lambda: len(told()) == len(replies), within=10)
        answers = told()
        self.run.refused = [a for a in answers if not a.startswith("You entered")]
        self.run.refused += [""] * (len(replies) - len(answers))  # no answer at all
        started = (await self.emulator.invoke(creator, ["tournament", "start"], channel=self.channel)).message
        assert started.content.startswith(f"{NAME} has started"), started.content
        return TournamentId(join["custom_id"].split(":")[3]), announcement

    async def play_all(self, tournament: TournamentId) -> TournamentRecord:
        """Play each game the arena opens, until it is over (or cancelled after ``--cancel-after`` seconds)."""
        seen: set[str] = set()
        tasks: list[asyncio.Task[None]] = []
        cancel_at = time.monotonic() + self.arena.cancel_after if self.arena.cancel_after else None
        while True:
            record = await self.store.load_tournament(tournament)
            assert record is not None
            if record.status is not TournamentStatus.RUNNING:
                break
            if cancel_at is not None and time.monotonic() >= cancel_at:
                creator = self.world.people[0]
                await self.emulator.invoke(creator, ["tournament", "cancel"], channel=self.channel)
                cancel_at = None
            for board in record.games:
                if board.game_id not in seen:
                    seen.add(board.game_id)
                    tasks.append(asyncio.create_task(self.play_one(board.game_id)))
            await asyncio.sleep(0.25)
        await asyncio.gather(*tasks)
        return record

    async def play_one(self, game_id_: str) -> None:
        game = await self.store.load_game(game_id_)
        assert game is not None
        rng = random.Random(f"{self.arena.seed}:{game_id_}")
        try:
            board = await self.board_of(game)
            now = self._loop.time()
            for player in (game.black, game.white):
                ended = self.run.ended_at.pop(int(player.id), None)
                if ended is not None:
                    self.run.waits.append(now - ended)
            played = Played(game_id(board), vs_ai=False)
            self.run.games.append(played)
            for _ in range(2 * self.arena.moves):
                if control(board, "km:p:") is None:
                    break  # the game ended (or the tournament was cancelled and the game with it)
                await self.games.move(rng, self.games.to_move(board), board, played)
            if control(board, "km:p:") is not None:
                await self.games.resign(self.games.to_move(board), board)
        except TimeoutError:
            self.run.stalled += 1
            return
        ended = self._loop.time()
        for player in (game.black, game.white):
            self.run.ended_at[int(player.id)] = ended

    async def board_of(self, game: GameState) -> Message:
        thread = int(game.channel_id)

        def board() -> Message | None:
            return next((m for m in self.emulator.messages(thread) if control(m, "km:b:resign:")), None)

        await self.watch.until(thread, lambda: board() is not None)
        found = board()
        assert found is not None
        return found


@dataclass(frozen=True)
class Figures:
    arena: Arena
    seconds: float
    joins: list[float]
    refused: list[str]
    first_response: list[float]
    unanswered: int
    answered_twice: int
    games: int
    moves: int
    lost: int
    doubled: int
    stalled: int
    waits: list[float]
    podiums: int
    players_scored: int
    tracebacks: int
    bot_cpu: float

    def rows(self) -> list[tuple[str, str]]:
        ms = 1000

        def spread(values: Sequence[float]) -> str:
            if not values:
                return "-"
            return (
                f"{quantile(values, 0.5) * ms:.0f} / {quantile(values, 0.99) * ms:.0f} / {max(values) * ms:.0f} ms"
            )

        return [
            ("joins, first response p50 / p99 / max", f"{spread(self.joins)} ({len(self.joins)} joins at once)"),
            ("joins refused", f"{len(self.refused)}" + (f" ({self.refused[0]!r}…)" if self.refused else "")),
            ("interactions", f"{len(self.first_response)} in {self.seconds:.0f} s"),
            ("first response p50 / p99 / max", spread(self.first_response)),
            ("unanswered / answered twice", f"{self.unanswered} / {self.answered_twice}"),
            ("games / moves", f"{self.games} / {self.moves}"),
            ("moves lost / applied twice / games stalled", f"{self.lost} / {self.doubled} / {self.stalled}"),
            ("a game's end to the next board p50 / p99 / max", spread(self.waits)),
            ("players with a score / podium posts", f"{self.players_scored} / {self.podiums}"),
            ("tracebacks in the consoles", str(self.tracebacks)),
            ("bot CPU s per move", f"{self.bot_cpu / max(self.moves, 1):.4f} ({self.bot_cpu:.1f} s in all)"),
        ]


async def measure(arena: Arena, deployment: Deployment) -> Figures:
    load = Load(games=arena.players // 2, mix=0.0, guilds=1)
    async with cluster(deployment, load, arena.players) as world:
        loop = asyncio.get_running_loop()
        cpu_before = [bot.cpu_seconds() for bot in world.bots]
        started = loop.time()
        watch = Watch(world.emulator)
        try:
            driver = ArenaDriver(world, arena, watch)
            tournament, _ = await driver.open()
            record = await driver.play_all(tournament)
        finally:
            watch.close()
        with contextlib.suppress(TimeoutError):  # the podium follows the last game's end
            await watch.until(driver.channel.id, lambda: _podiums(driver) > 0, within=15)
        ended = loop.time()
        bot_cpu = sum(bot.cpu_seconds() - before for bot, before in zip(world.bots, cpu_before, strict=True))
        world.check()
        records = [r for r in world.emulator.state.interactions.values() if started <= r.dispatched_at <= ended]
        run = driver.run
        lost, doubled = await verify(world.redis, run.games)
        scored = sum(1 for row in record.model.players if any(record.model.matches_of(row.id)))
        return Figures(
            arena=arena,
            seconds=ended - started,
            joins=sorted(run.joins),
            refused=run.refused,
            first_response=sorted(r.latency for r in records if r.latency is not None),
            unanswered=sum(1 for r in records if not r.answered),
            answered_twice=sum(1 for r in records if r.callbacks > 1),
            games=len(run.games),
            moves=sum(len(g.moves) for g in run.games),
            lost=lost,
            doubled=doubled,
            stalled=run.stalled,
            waits=sorted(run.waits),
            podiums=_podiums(driver),
            players_scored=scored,
            tracebacks=sum(child.tracebacks() for child in [*world.bots, world.worker]),
            bot_cpu=bot_cpu,
        )


def _podiums(driver: ArenaDriver) -> int:
    return sum(1 for m in driver.emulator.messages(driver.channel) if m.content.startswith(f"🏁 **{NAME}** is over"))


def header(arena: Arena, deployment: Deployment) -> str:
    one, five, fifteen = os.getloadavg()
    return (
        f"{arena.describe()}; K={deployment.bots} bot processes\nmachine: {os.cpu_count()} cores, load average "
        f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min) before the run"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tournament_load", description=__doc__.splitlines()[0])
    parser.add_argument("--players", "-P", type=int, default=Arena.players, help="players in the arena (2 to 256)")
    parser.add_argument("--minutes", type=int, default=Arena.minutes, help="the arena's length (5 to 240)")
    parser.add_argument("--moves", type=int, default=Arena.moves, help="moves of each player a game")
    parser.add_argument("--pause", type=float, default=Arena.pause, help="a person's mean seconds before a click")
    parser.add_argument("--seed", type=int, default=Arena.seed)
    parser.add_argument("--cancel-after", type=float, help="the creator cancels the arena after these seconds")
    parser.add_argument("--bots", "-K", type=int, default=Deployment.bots, help="bot processes, one shard each")
    parser.add_argument("--workers", "-W", type=int, default=Deployment.workers, help="AI worker processes")
    parser.add_argument("--profile", type=Path, help="write each bot process's cProfile statistics in this folder")
    args = parser.parse_args(argv)
    arena = Arena(args.players, args.minutes, args.moves, args.pause, args.seed, args.cancel_after)
    deployment = Deployment(bots=args.bots, workers=args.workers, profile=args.profile)
    print(header(arena, deployment), flush=True)
    me = psutil.Process()
    figures = asyncio.run(measure(arena, deployment))
    width = max(len(name) for name, _ in figures.rows())
    for name, value in figures.rows():
        print(f"{name:<{width}}  {value}")
    print(f"driver CPU s: {sum(me.cpu_times()[:2]):.1f}")
    print(
        f"verified against Redis: {figures.moves} moves in {figures.games} games: {figures.lost} lost, "
        f"{figures.doubled} applied twice; {figures.podiums} podium post(s)"
    )
    failures = (figures.lost, figures.doubled, figures.stalled, figures.tracebacks, len(figures.refused))
    return 0 if not any(failures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
