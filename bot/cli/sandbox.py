"""``kingme sandbox``: King Me in the browser with no Discord: the real bot on the local Discord emulator, with a page
that looks like a Discord channel on ``http://127.0.0.1:8080/?key=…`` (``HTTP_PORT``; the whole address is printed at
start). Plain ``kingme`` does the same when no ``DISCORD_TOKEN`` is set."""

from __future__ import annotations

import argparse
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli._command import CommandError, Commands, load_settings
from bot.cli._early import start_ai_early

if TYPE_CHECKING:
    from bot.settings import Settings

NO_BROWSER_HELP = "do not open the sandbox's page in a browser (its address is printed all the same)"


def register(commands: Commands) -> None:
    p = commands.add("sandbox", _sandbox)
    p.add_argument("--port", type=int, default=None, help="the HTTP port (default: HTTP_PORT, else 8080)")
    # SUPPRESS: `kingme --no-browser sandbox` keeps the main parser's value (bot.cli.build_parser adds it there)
    p.add_argument("--no-browser", action="store_true", default=argparse.SUPPRESS, help=NO_BROWSER_HELP)
    p.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep the games, the sandbox's Discord and its page's key in DIR across runs (default: a temporary one)",
    )


def _sandbox(args: argparse.Namespace) -> int:
    """play in the browser with no Discord (the bot on a local Discord emulator)

    Run the real bot against a local Discord emulator, with its AI workers and an embedded Redis in a temporary
    directory, and serve a page that looks and behaves like a Discord channel, with the local users alice, bob and
    carol. The page, the leaderboards and the game replays are on http://127.0.0.1:HTTP_PORT (8080 by default); the
    page's address, printed once it is ready, carries a key that its live socket asks for. DISCORD_TOKEN and REDIS_URL
    are ignored. Everything is forgotten when it stops, and the key is new at each start, unless --data DIR keeps the
    games, the channels and their messages, and the key, in DIR for the next run.
    """
    settings = load_settings()
    if args.port is not None:
        if not 0 <= args.port <= 65535:
            raise CommandError(f"--port must be between 0 and 65535, not {args.port}")
        settings = settings.model_copy(update={"http_port": args.port})
    return run_sandbox(settings, open_browser=not args.no_browser, data_dir=args.data)


def run_sandbox(settings: Settings, *, open_browser: bool = True, data_dir: Path | None = None) -> int:
    """Run the sandbox until Ctrl-C (what plain ``kingme`` calls when no token is set): print its address once the
    bot is ready, and whether its games outlive it, and, with ``open_browser``, open it. Returns the exit status."""
    start_ai_early(settings, data_dir)
    from bot.cli.serve import run
    from bot.sandbox_runtime import SandboxRuntime

    kept = "until you stop; use --data DIR to keep them" if data_dir is None else f"in {data_dir.resolve()}"

    def announce(address: str) -> None:
        print(f"King Me sandbox: open {address} in your browser (Ctrl-C stops it)", flush=True)
        print(f"Games are kept {kept}", flush=True)
        if open_browser:
            webbrowser.open(address)

    return run(lambda: SandboxRuntime(settings, announce=announce, data_dir=data_dir), settings.log_level)
