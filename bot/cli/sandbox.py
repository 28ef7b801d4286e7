"""``kingme sandbox``: King Me in the browser with no Discord: the real bot on the local Discord emulator, with a page
that looks like a Discord channel on ``http://127.0.0.1:8080`` (``HTTP_PORT``). Plain ``kingme`` does the same when
no ``DISCORD_TOKEN`` is set."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.cli import CommandError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "sandbox",
        help="play in the browser with no Discord (the bot on a local Discord emulator)",
        description="Run the real bot against a local Discord emulator, with its AI workers and an embedded Redis in a "
        "temporary directory, and serve a page that looks and behaves like a Discord channel, with the local users "
        "alice, bob and carol. The page, the leaderboards and the game replays are on http://127.0.0.1:HTTP_PORT "
        "(8080 by default). DISCORD_TOKEN and REDIS_URL are ignored; everything is forgotten when it stops.",
    )
    p.add_argument("--port", type=int, default=None, help="the HTTP port (default: HTTP_PORT, else 8080)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    p.set_defaults(handler=_sandbox)


def _sandbox(args: argparse.Namespace) -> int:
    from bot.cli.run import load_settings

    settings = load_settings()
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise CommandError(f"--port must be between 0 and 65535, not {args.port}")
        settings = settings.model_copy(update={"http_port": args.port})
    return run(settings, open_browser=not args.no_browser)


def run(settings: Any, *, open_browser: bool = True) -> int:
    """Run the sandbox until Ctrl-C (what plain ``kingme`` calls when no token is set); returns the exit status."""
    import asyncio

    from bot.runtime import EXIT_FAILURE, EXIT_INTERRUPTED, StartupError, configure_logging
    from bot.sandbox import run_sandbox

    try:
        configure_logging(settings.log_level)
    except StartupError as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    try:
        return asyncio.run(run_sandbox(settings, open_browser=open_browser))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
