"""Running a :class:`~bot.runtime.Runtime` as the ``kingme`` process: logging set up once, here; SIGINT and SIGTERM;
and the exit status, with a failure to start as one line on stderr, never a traceback."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from collections.abc import Callable
from typing import Final

import discord

from bot.cli._command import CommandError
from bot.runtime import Runtime, StartupError, one_line

log = logging.getLogger(__name__)

LOG_FORMAT: Final = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
EXIT_FAILURE: Final = 1


def configure_logging(level: str) -> None:
    """Logging for the whole process: one line a record on stderr. A level that is not one is a
    :class:`CommandError` (a bad setting)."""
    name = level.strip().upper()
    if name not in logging.getLevelNamesMapping():
        raise CommandError(f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, not {level!r}")
    logging.basicConfig(level=name, format=LOG_FORMAT, stream=sys.stderr, force=True)


def run(make_runtime: Callable[[], Runtime], log_level: str) -> int:
    """Set up logging, then run the runtime ``make_runtime`` builds (in the event loop) until SIGINT or SIGTERM, or
    until its Discord connection ends; returns the exit status."""
    configure_logging(log_level)

    async def build_and_serve() -> int:
        return await run_async(make_runtime())

    return asyncio.run(build_and_serve())


async def run_async(runtime: Runtime) -> int:
    """:func:`serve` ``runtime``, with a failure to start as one line on stderr; returns the exit status."""
    try:
        await serve(runtime)
    except StartupError as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    return 0


async def serve(runtime: Runtime, *, handle_signals: bool = True) -> None:
    """Start ``runtime``, run until SIGINT or SIGTERM (or the Discord connection ends), then stop it.

    A connection that ends with an error (say, an intent Discord refuses) raises :class:`StartupError`.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    installed: list[signal.Signals] = []

    def on_signal(signum: signal.Signals) -> None:
        log.info("%s: shutting down", signum.name)
        stop.set()
        for sig in installed:  # a second Ctrl-C gets the default behaviour
            loop.remove_signal_handler(sig)

    for sig in (signal.SIGINT, signal.SIGTERM) if handle_signals else ():
        loop.add_signal_handler(sig, on_signal, sig)
        installed.append(sig)
    try:
        async with runtime:
            await _until_stopped(runtime.connection, stop)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
    log.info("King Me stopped")


async def _until_stopped(connection: asyncio.Task[None], stop: asyncio.Event) -> None:
    """Wait for ``stop`` or for the Discord ``connection`` to end; raise :class:`StartupError` if it failed."""
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({connection, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if connection.done() and not connection.cancelled():
        exc = connection.exception()
        if exc is not None:
            raise StartupError(_discord_failure(exc)) from exc


def _discord_failure(exc: BaseException) -> str:
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return "Discord refused the connection: the bot asked for a privileged intent it is not allowed"
    if isinstance(exc, discord.ConnectionClosed):
        return f"the Discord gateway closed the connection (code {exc.code}): {one_line(exc.reason or '')}"
    return f"the Discord connection failed: {type(exc).__name__}: {one_line(str(exc))}"
