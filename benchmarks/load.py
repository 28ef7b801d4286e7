"""Load test: G games at once, played by clicks through the Discord emulator against K bot processes and W AI workers.

    python -m benchmarks.load [--games 8] [--mix 0.5] [--bots 1] [--workers 1] [--duration 60] [--moves 10]
                              [--level hard] [--think 0.05] [--pause 0.5] [--seed 1]
    python -m benchmarks.load --compare ...     the same load against K=1 and K=2 bot processes, side by side
    python -m benchmarks.load --find-max ...    G doubled from --games until p99 first response passes 0.5 s

Everything runs on this machine: a redis-server on a free TCP port, the Discord emulator in this process (K shards,
``--guilds`` servers spread over them), K ``kingme run`` processes (``SHARD_COUNT=K``, ``SHARD_IDS=i``,
``AI_BACKEND=queue``) and one ``kingme worker --processes W``. Each of the G game slots plays games one after the
other until ``--duration`` seconds have passed (at least one game each): a fraction ``--mix`` of them against the AI
(``--level``, ``--think`` seconds a move), the rest between two people, each game ``--moves`` moves of the people
long and then resigned (or to its end, if sooner). A person moves like one in Discord: choose a piece in the board's
first select menu, then its destination in the second, after ``--pause`` seconds on average (exponentially
distributed; 0 clicks at machine speed).

It prints:
  * interactions/s, and the first-response latency p50/p99 from the emulator's records (dispatch to first callback,
    the figure Discord holds to 3 s), with any interaction unanswered, answered twice or delivered off its shard;
  * the AI move latency p50/p99: from the bot's answer to the person's move until the AI's move is on the board;
  * moves lost or applied twice: every game's stored move list in Redis against what the driver clicked and saw;
  * CPU seconds per move in the bot processes and per AI move in the workers (psutil, over the measured run).

The rate limits are raised for the run (``RATE_*`` below): one emulated person clicks faster than the shipped limits
allow a person to, on purpose. Run it with ``nice`` on a machine that is otherwise idle, and read the load average it
prints first: on a shared machine the figures move with what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp
import psutil
import redis.asyncio as aioredis

from bot.emulator import Channel, DiscordEmulator, EmulatorEvent, Message, User, shard_of
from bot.redis_process import EmbeddedRedis
from bot.store import RedisGameStore

ROOT = Path(__file__).resolve().parents[1]
TARGET_P99 = 0.5
"""Seconds: the first-response p99 that ``--find-max`` holds the load under."""
STARTUP = 180.0
"""Seconds for the bot processes and the workers to start (the workers load the search kernel) on a loaded machine."""
STALL = 60.0
"""Seconds without an answer after which a game slot gives its game up and counts it as stalled."""
RATES = {"RATE_USER": "1000", "RATE_USER_BURST": "100000", "RATE_GUILD": "10000", "RATE_GUILD_BURST": "1000000"}
"""The load run's rate limits: large, so that the emulated people, who click at machine speed, are never refused."""
INHERITED = ("PATH", "HOME", "LANG", "TMPDIR", "NUMBA_CACHE_DIR")
"""The only variables the bot and worker processes inherit, so that no setting of the caller's leaks in."""
_TO_MOVE = re.compile(r"^<@(?P<id>\d+)>, your move")
_THREAD_LINK = re.compile(r"<#(?P<id>\d+)>")


@dataclass(frozen=True)
class Load:
    """What the driver plays."""

    games: int = 8
    mix: float = 0.5
    moves: int = 10
    duration: float = 60.0
    level: str = "hard"
    think: float = 0.05
    pause: float = 0.5
    seed: int = 1
    guilds: int = 4

    def describe(self) -> str:
        return (
            f"G={self.games} games at once ({self.mix:.0%} against the AI, {self.level} at {self.think:g} s a move), "
            f"{self.moves} moves of the people a game, {self.duration:g} s, pause {self.pause:g} s, "
            f"{self.guilds} servers, seed {self.seed}"
        )


@dataclass(frozen=True)
class Deployment:
    """What serves it: K bot processes (one shard each) and W worker processes."""

    bots: int = 1
    workers: int = 1
    profile: Path | None = None
    """Where each bot process writes its cProfile statistics (``bot<shard>.prof``), if anywhere."""


# -- the processes ---------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Child:
    """One process of the deployment (``python -m bot ...``), its console in ``home/console.log``."""

    def __init__(
        self, name: str, argv: Sequence[str], settings: dict[str, str], home: Path, profile: Path | None = None
    ) -> None:
        self.name = name
        home.mkdir(parents=True, exist_ok=True)
        self.console = home / "console.log"
        inherited = {key: value for key, value in os.environ.items() if key in INHERITED}
        env = inherited | settings | {"PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"}
        with self.console.open("ab") as console:
            self.process = subprocess.Popen(
                [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else []), "-m", "bot", *argv],
                cwd=home,  # no .env of the caller's
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=console,
            )

    def check(self) -> None:
        if self.process.poll() is not None:
            tail = self.console.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"{self.name} ended with status {self.process.returncode}:\n{tail}")

    def tracebacks(self) -> int:
        """How many tracebacks the process has written to its console."""
        return self.console.read_text(errors="replace").count("Traceback")

    def cpu_seconds(self) -> float:
        """User and system CPU seconds of the process and every process below it (ended children included)."""
        root = psutil.Process(self.process.pid)
        total = 0.0
        for process in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                times = process.cpu_times()
                total += times.user + times.system + times.children_user + times.children_system
        return total


def stop(children: Sequence[Child]) -> None:
    """SIGTERM every process at once, SIGKILL what is left of them (and below them) after 30 s, and reap them."""
    running = [psutil.Process(child.process.pid) for child in children if child.process.poll() is None]
    for process in running:
        process.terminate()
    _, alive = psutil.wait_procs(running, timeout=30)
    for process in alive:
        for left in [process, *process.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                left.kill()
    for child in children:
        child.process.wait()


@dataclass
class Cluster:
    """The world a load runs in: Redis, the emulator with its servers and people, the bots and the workers."""

    emulator: DiscordEmulator
    redis: aioredis.Redis
    bots: list[Child]
    bot_urls: list[str]
    """Each bot's /healthz and /metrics (its OPS_PORT)."""
    worker: Child
    channels: list[Channel]
    people: list[User]

    def check(self) -> None:
        for child in [*self.bots, self.worker]:
            child.check()

    async def ready(self, http: aiohttp.ClientSession, workers: int) -> bool:
        """Every bot connected to its shard and seeing every worker."""
        self.check()
        for url in self.bot_urls:
            try:
                async with http.get(f"{url}/healthz") as response:
                    health = await response.json()
            except (aiohttp.ClientError, ValueError):
                return False
            if health.get("gateway") != "ready" or health.get("ai", {}).get("live_workers", 0) < workers:
                return False
        return True


@contextlib.asynccontextmanager
async def cluster(deployment: Deployment, load: Load, people: int) -> AsyncIterator[Cluster]:
    """A started :class:`Cluster` with ``people`` emulated people, stopped (and its files removed) afterwards."""
    k = deployment.bots
    with (
        tempfile.TemporaryDirectory(prefix="kingme-load-") as tmp,
        EmbeddedRedis(Path(tmp) / "redis", transport="tcp") as server,
    ):
        home = Path(tmp)
        emulator = DiscordEmulator(shards=k, answer_timeout=STALL, heartbeat_interval=20.0)
        made = [emulator.add_user(f"p{index}") for index in range(people)]
        guilds = [emulator.add_guild(f"Load {i}", shard=(i % k, k)) for i in range(max(load.guilds, k))]
        channels = [emulator.add_channel("checkers", guild=guild) for guild in guilds]
        await emulator.start()
        redis = aioredis.Redis.from_url(server.url)
        children: list[Child] = []
        try:
            settings = {
                "DISCORD_TOKEN": emulator.token,
                "DISCORD_EMULATOR_URL": emulator.base_url,
                "REDIS_URL": server.url,
                "AI_BACKEND": "queue",
                "AI_THINK_TIME_MAX": str(load.think),
                "SHARD_COUNT": str(k),
                **RATES,
            }
            ports = [free_port() for _ in range(k)]
            for shard, port in enumerate(ports):
                own = {"SHARD_IDS": str(shard), "HTTP_PORT": "0", "OPS_PORT": str(port)}
                own["KINGME_DATA"] = str(home / f"bot{shard}")
                profile = deployment.profile / f"bot{shard}.prof" if deployment.profile else None
                children.append(Child(f"bot {shard}", ["run"], settings | own, home / f"bot{shard}", profile))
            worker_argv = ["worker", "--processes", str(deployment.workers)]
            children.append(Child("the workers", worker_argv, {"REDIS_URL": server.url}, home / "workers"))
            made_cluster = Cluster(
                emulator, redis, children[:-1], [f"http://127.0.0.1:{p}" for p in ports], children[-1], channels, made
            )
            deadline = time.monotonic() + STARTUP
            async with aiohttp.ClientSession() as http:
                while not await made_cluster.ready(http, deployment.workers):
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"the bots and the workers not ready within {STARTUP:g} s")
                    await asyncio.sleep(0.2)
            yield made_cluster
        finally:
            stop(children)
            await redis.aclose()
            await emulator.stop()


# -- the driver ------------------------------------------------------------------------------------------------------


class Watch:
    """Wakes whoever waits on a message or a channel when the emulator changes it, and says when that was."""

    def __init__(self, emulator: DiscordEmulator) -> None:
        self._events: dict[int, asyncio.Event] = {}
        self._loop = asyncio.get_running_loop()
        self.changed_at: dict[int, float] = {}
        self.close = emulator.subscribe(self._on_event)

    def _on_event(self, event: EmulatorEvent) -> None:
        keys = [event.message.id, event.message.channel_id] if event.message is not None else []
        keys += [event.channel.id] if event.channel is not None else []
        now = self._loop.time()
        for key in keys:
            self.changed_at[key] = now
            if key in self._events:
                self._events[key].set()

    async def until(self, key: int, condition: Callable[[], bool], within: float = STALL) -> float:
        """Wait until ``condition()`` holds, re-checking it whenever message or channel ``key`` changes; returns when
        it last changed (the loop's clock, the emulator's too)."""
        event = self._events.setdefault(key, asyncio.Event())
        async with asyncio.timeout(within):
            while True:
                event.clear()
                if condition():
                    return self.changed_at.get(key, self._loop.time())
                await event.wait()


def control(message: Message, prefix: str) -> dict[str, Any] | None:
    return next((c for c in message.iter_components() if c.get("custom_id", "").startswith(prefix)), None)


def last_move(board: Message) -> str:
    """The move text of the board's "Last move" field (``⚫ 11-15 (c3-d4)``)."""
    shown = next(f["value"] for e in board.embeds for f in e.get("fields", []) if f["name"] == "Last move")
    return str(shown.split()[1])


@dataclass
class Played:
    """One game as the driver played and saw it: every move in order, and a move whose answer never came (it may or
    may not be stored: a person who sees no answer cannot tell either)."""

    game_id: str
    vs_ai: bool
    moves: list[str] = field(default_factory=list)
    ai_moves: int = 0
    unanswered: str | None = None


@dataclass
class Samples:
    """What the driver measured over one run."""

    games: list[Played] = field(default_factory=list)
    ai_latencies: list[float] = field(default_factory=list)
    stalled: int = 0
    menu_clicks: int = 0
    """Choices in the board's menus (a piece, then its move; one choice for a piece with one move)."""


class Driver:
    """Plays the load's games by clicks, like people in Discord."""

    def __init__(self, world: Cluster, load: Load, watch: Watch) -> None:
        self.emulator = world.emulator
        self.world = world
        self.load = load
        self.watch = watch
        self.samples = Samples()

    async def run(self) -> Samples:
        stop_at = time.monotonic() + self.load.duration
        await asyncio.gather(*(self.slot(index, stop_at) for index in range(self.load.games)))
        return self.samples

    async def slot(self, index: int, stop_at: float) -> None:
        """Games one after the other in one slot, by two people of its own, until ``stop_at``."""
        rng = random.Random(self.load.seed * 100_003 + index)
        a, b = self.world.people[2 * index], self.world.people[2 * index + 1]
        channel = self.world.channels[index % len(self.world.channels)]
        while True:
            vs_ai = rng.random() < self.load.mix
            try:
                board = await (self.open_ai_game(a, channel) if vs_ai else self.open_challenge(a, b, channel))
                played = Played(game_id(board), vs_ai)
                self.samples.games.append(played)
                await self.play(rng, board, played)
            except TimeoutError:
                self.samples.stalled += 1
                return
            if time.monotonic() >= stop_at:
                return

    async def open_ai_game(self, person: User, channel: Channel) -> Message:
        options = {"level": self.load.level, "think": self.load.think, "colour": "black"}
        reply = await self.emulator.invoke(person, ["checkers", "play"], options, channel=channel)
        return await self.board_linked_from(reply.message)

    async def open_challenge(self, challenger: User, opponent: User, channel: Channel) -> Message:
        offer = (
            await self.emulator.invoke(challenger, ["checkers", "challenge"], {"opponent": opponent}, channel=channel)
        ).message
        accept = control(offer, "km:c:accept:")
        assert accept is not None, f"no Accept button on {offer.content!r}"
        await self.emulator.click(opponent, offer, accept["custom_id"])
        return await self.board_linked_from(offer)

    async def board_linked_from(self, notice: Message) -> Message:
        """The board in the game's thread that ``notice`` links to."""
        await self.watch.until(notice.id, lambda: _THREAD_LINK.search(notice.content) is not None)
        link = _THREAD_LINK.search(notice.content)
        assert link is not None
        thread = int(link["id"])
        await self.watch.until(thread, lambda: bool(self.emulator.messages(thread)))
        return self.emulator.messages(thread)[0]

    async def play(self, rng: random.Random, board: Message, played: Played) -> None:
        """Move until the people have made ``--moves`` moves or the game ends, then resign what is still going."""
        for _ in range(self.load.moves):
            if control(board, "km:p:") is None:
                return  # the game ended
            person = self.to_move(board)
            answered_at = await self.move(rng, person, board, played)
            if not played.vs_ai or board.content == "Game over.":
                continue
            shown = await self.watch.until(
                board.id, lambda: control(board, "km:p:") is not None or board.content == "Game over."
            )
            played.moves.append(last_move(board))
            played.ai_moves += 1
            self.samples.ai_latencies.append(shown - answered_at)
        if control(board, "km:p:") is not None:
            await self.resign(self.to_move(board), board)

    def to_move(self, board: Message) -> User:
        found = _TO_MOVE.match(board.content)
        assert found, f"nobody to move on {board.content!r}"
        return self.emulator.state.users[int(found["id"])]

    async def move(self, rng: random.Random, person: User, board: Message, played: Played) -> float:
        """Choose a piece, then one of its moves, each after a pause (a piece with one move plays it when chosen);
        returns when the bot answered the move."""
        piece = control(board, "km:p:")
        assert piece is not None
        await self.think(rng)
        option = rng.choice(piece["options"])
        if "," not in option["description"]:  # the piece's only move: choosing the piece plays it
            chosen = str(option["description"])
            handle = self.emulator.select(person, board, piece["custom_id"], [option["value"]])
            self.samples.menu_clicks += 1
        else:
            self.samples.menu_clicks += 2
            await self.emulator.select(person, board, piece["custom_id"], [option["value"]])
            choices = control(board, "km:m:")
            assert choices is not None, "no move menu after choosing a piece"
            chosen = str(rng.choice(choices["options"])["value"])
            await self.think(rng)
            handle = self.emulator.select(person, board, choices["custom_id"], [chosen])
        played.unanswered = chosen
        await handle
        played.unanswered = None
        played.moves.append(chosen)
        assert handle.record.responded_at is not None
        return handle.record.responded_at

    async def resign(self, person: User, board: Message) -> None:
        button = control(board, "km:b:resign:")
        assert button is not None
        asked = (await self.emulator.click(person, board, button["custom_id"])).message
        confirm = control(asked, "km:r:")
        assert confirm is not None, f"no confirmation on {asked.content!r}"
        await self.emulator.click(person, asked, confirm["custom_id"])
        await self.watch.until(board.id, lambda: board.content == "Game over.")

    async def think(self, rng: random.Random) -> None:
        if self.load.pause > 0:
            await asyncio.sleep(rng.expovariate(1 / self.load.pause))


def game_id(board: Message) -> str:
    resign = control(board, "km:b:resign:")
    assert resign is not None, f"no Resign button on {board.content!r}"
    return str(resign["custom_id"].split(":")[3])


# -- the figures -----------------------------------------------------------------------------------------------------


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0 < q < 1) of ``values``; nan when there are none."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


@dataclass(frozen=True)
class Figures:
    """One measured run."""

    deployment: Deployment
    games_at_once: int
    seconds: float
    interactions: int
    first_response: list[float]
    unanswered: int
    answered_twice: int
    off_shard: int
    human_moves: int
    ai_moves: int
    ai_latencies: list[float]
    menu_clicks: int
    games: int
    stalled: int
    lost: int
    doubled: int
    tracebacks: int
    bot_cpu: float
    worker_cpu: float
    driver_cpu: float

    @property
    def moves(self) -> int:
        return self.human_moves + self.ai_moves

    @property
    def p99(self) -> float:
        return quantile(self.first_response, 0.99)

    def rows(self) -> list[tuple[str, str]]:
        ms = 1000
        per_move = self.bot_cpu / self.moves if self.moves else float("nan")
        per_ai = self.worker_cpu / self.ai_moves if self.ai_moves else float("nan")
        return [
            ("interactions/s", f"{self.interactions / self.seconds:.1f} ({self.interactions} in {self.seconds:.0f} s)"),
            (
                "first response p50 / p99 / max",
                f"{quantile(self.first_response, 0.5) * ms:.0f} / {self.p99 * ms:.0f} / "
                f"{max(self.first_response, default=float('nan')) * ms:.0f} ms",
            ),
            (
                "unanswered / answered twice / off shard",
                f"{self.unanswered} / {self.answered_twice} / {self.off_shard}",
            ),
            (
                "moves/s (people + AI)",
                f"{self.moves / self.seconds:.1f} ({self.human_moves} + {self.ai_moves} in {self.games} games)",
            ),
            ("menu choices for the people's moves", f"{self.menu_clicks} for {self.human_moves} moves"),
            (
                "AI move p50 / p99",
                f"{quantile(self.ai_latencies, 0.5) * ms:.0f} / {quantile(self.ai_latencies, 0.99) * ms:.0f} ms",
            ),
            ("moves lost / applied twice", f"{self.lost} / {self.doubled}"),
            ("games stalled", str(self.stalled)),
            ("tracebacks in the bots' and workers' consoles", str(self.tracebacks)),
            ("bot CPU s per move", f"{per_move:.4f} ({self.bot_cpu:.1f} s in all)"),
            ("worker CPU s per AI move", f"{per_ai:.4f} ({self.worker_cpu:.1f} s in all)"),
            ("bot CPU per move / worker CPU per AI move", f"{per_move / per_ai:.1%}" if per_ai > 0 else "-"),
            ("driver and emulator CPU s", f"{self.driver_cpu:.1f}"),
        ]


async def verify(redis: aioredis.Redis, games: Sequence[Played]) -> tuple[int, int]:
    """(moves lost, moves applied twice): each game's stored moves against what the driver played and saw. A stored
    list must be exactly the driver's, plus at most the one move whose answer never came."""
    store = RedisGameStore(redis)
    lost = doubled = 0
    for played in games:
        stored = await store.load_game(played.game_id)
        moves = list(stored.moves) if stored is not None else []
        expected = played.moves
        if played.unanswered is not None and moves[len(expected) : len(expected) + 1] == [played.unanswered]:
            expected = [*expected, played.unanswered]
        lost += sum(1 for i, move in enumerate(expected) if i >= len(moves) or moves[i] != move)
        doubled += max(0, len(moves) - len(expected))
    return lost, doubled


async def measure(world: Cluster, load: Load, deployment: Deployment) -> Figures:
    """Run ``load`` once on ``world`` and measure it."""
    children = [*world.bots, world.worker]
    loop = asyncio.get_running_loop()
    me = psutil.Process()
    cpu_before = [child.cpu_seconds() for child in children]
    driver_before = sum(me.cpu_times()[:2])
    started = loop.time()
    watch = Watch(world.emulator)
    try:
        samples = await Driver(world, load, watch).run()
    finally:
        watch.close()
    ended = loop.time()
    cpu = [child.cpu_seconds() - before for child, before in zip(children, cpu_before, strict=True)]
    driver_cpu = sum(me.cpu_times()[:2]) - driver_before
    world.check()
    records = [r for r in world.emulator.state.interactions.values() if started <= r.dispatched_at <= ended]
    k = deployment.bots
    guild_of = {c.id: c.guild_id for c in world.emulator.state.channels.values() if c.guild_id is not None}
    off_shard = sum(1 for r in records if r.delivered_to != [(shard_of(guild_of[r.channel_id], k), k)])
    lost, doubled = await verify(world.redis, samples.games)
    ai_moves = sum(g.ai_moves for g in samples.games)
    human_moves = sum(len(g.moves) for g in samples.games) - ai_moves
    return Figures(
        deployment=deployment,
        games_at_once=load.games,
        seconds=ended - started,
        interactions=len(records),
        first_response=sorted(r.latency for r in records if r.latency is not None),
        unanswered=sum(1 for r in records if not r.answered),
        answered_twice=sum(1 for r in records if r.callbacks > 1),
        off_shard=off_shard,
        human_moves=human_moves,
        ai_moves=ai_moves,
        ai_latencies=samples.ai_latencies,
        menu_clicks=samples.menu_clicks,
        games=len(samples.games),
        stalled=samples.stalled,
        lost=lost,
        doubled=doubled,
        tracebacks=sum(child.tracebacks() for child in children),
        bot_cpu=sum(cpu[:-1]),
        worker_cpu=cpu[-1],
        driver_cpu=driver_cpu,
    )


# -- the command -----------------------------------------------------------------------------------------------------


def table(columns: Sequence[tuple[str, Figures]]) -> str:
    """Figures side by side, one column each, as a Markdown table."""
    lines = ["| | " + " | ".join(name for name, _ in columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for cells in zip(*(figures.rows() for _, figures in columns), strict=True):
        lines.append(f"| {cells[0][0]} | " + " | ".join(value for _, value in cells) + " |")
    return "\n".join(lines)


def summary(figures: Figures) -> str:
    """The last line a caller (the smoke test) reads."""
    return (
        f"verified against Redis: {figures.moves} moves in {figures.games} games: "
        f"{figures.lost} lost, {figures.doubled} applied twice"
    )


async def run_one(load: Load, deployment: Deployment) -> Figures:
    """Start a cluster for ``deployment``, run ``load`` on it once, and stop it."""
    async with cluster(deployment, load, 2 * load.games) as world:
        return await measure(world, load, deployment)


def holds(figures: Figures) -> bool:
    """Whether a run kept its p99 first response under :data:`TARGET_P99` with every game and every move intact."""
    return figures.p99 < TARGET_P99 and figures.lost == figures.doubled == figures.stalled == 0


async def find_max(load: Load, deployment: Deployment, limit: int) -> tuple[int | None, list[Figures]]:
    """The largest G that :func:`holds`, and every run made to find it, on one cluster: G doubles from ``load.games``
    until a run fails, then the gap between the last G that held and the first that failed is halved until it is at
    most an eighth of the former."""
    good: int | None = None
    bad: int | None = None
    tried: dict[int, Figures] = {}
    async with cluster(deployment, load, 2 * limit) as world:
        games: int | None = min(load.games, limit)
        while games is not None and games not in tried:
            figures = tried[games] = await measure(world, replace(load, games=games), deployment)
            print(f"G={games}: p99 first response {figures.p99 * 1000:.0f} ms, {figures.lost} lost", flush=True)
            if holds(figures):
                good = games
            else:
                bad = games
            if bad is None:
                games = min(2 * games, limit) if games < limit else None
            elif good is None or bad - good <= max(1, good // 8):
                games = None
            else:
                games = (good + bad) // 2
    return good, [tried[games] for games in sorted(tried)]


def header(load: Load) -> str:
    one, five, fifteen = os.getloadavg()
    return (
        f"{load.describe()}\nmachine: {os.cpu_count()} cores, load average {one:.2f} {five:.2f} {fifteen:.2f} "
        f"(1, 5, 15 min) before the run"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", "-G", type=int, default=Load.games, help="games at once (G)")
    parser.add_argument("--mix", type=float, default=Load.mix, help="fraction of games against the AI (0 to 1)")
    parser.add_argument("--bots", "-K", type=int, default=Deployment.bots, help="bot processes, one shard each (K)")
    parser.add_argument("--workers", "-W", type=int, default=Deployment.workers, help="AI worker processes (W)")
    parser.add_argument("--duration", type=float, default=Load.duration, help="seconds each slot starts games for")
    parser.add_argument("--moves", type=int, default=Load.moves, help="moves of the people in each game")
    parser.add_argument("--level", default=Load.level, help="the AI's level")
    parser.add_argument("--think", type=float, default=Load.think, help="the AI's seconds a move")
    parser.add_argument("--pause", type=float, default=Load.pause, help="a person's mean seconds before a click")
    parser.add_argument("--guilds", type=int, default=Load.guilds, help="servers the games are spread over")
    parser.add_argument("--seed", type=int, default=Load.seed)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--compare", action="store_true", help="the same load with K=1 and K=2, side by side")
    mode.add_argument("--find-max", action="store_true", help="double G until p99 first response passes 0.5 s")
    parser.add_argument("--max-games", type=int, default=256, help="the largest G --find-max tries")
    parser.add_argument("--profile", type=Path, help="write each bot process's cProfile statistics in this folder")
    args = parser.parse_args(argv)
    if not 0 <= args.mix <= 1 or min(args.games, args.bots, args.workers, args.moves) < 1 or args.think <= 0:
        parser.error(
            "--mix lies between 0 and 1, --think above 0; --games, --bots, --workers and --moves are 1 or more"
        )
    load = Load(
        args.games, args.mix, args.moves, args.duration, args.level, args.think, args.pause, args.seed, args.guilds
    )
    deployment = Deployment(args.bots, args.workers, args.profile.resolve() if args.profile else None)
    if deployment.profile:
        deployment.profile.mkdir(parents=True, exist_ok=True)
    print(header(load), flush=True)
    if args.compare:
        columns = [
            (f"K={k}, W={args.workers}", asyncio.run(run_one(load, replace(deployment, bots=k)))) for k in (1, 2)
        ]
    elif args.find_max:
        best, runs = asyncio.run(find_max(load, deployment, args.max_games))
        columns = [(f"G={figures.games_at_once}", figures) for figures in runs]
        print(f"the largest load held under p99 {TARGET_P99 * 1000:.0f} ms: G={best}")
    else:
        columns = [(f"K={args.bots}, W={args.workers}", asyncio.run(run_one(load, deployment)))]
    print(table(columns))
    for _, figures in columns:
        print(summary(figures))
    return 0 if all(f.lost == f.doubled == 0 for _, f in columns) else 1


if __name__ == "__main__":
    sys.exit(main())
