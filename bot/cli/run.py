"""``kingme run``: the Discord bot with its game service, AI pool, Redis and HTTP side; and plain ``kingme``, which
does the same when a token is set and runs the local sandbox otherwise."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

from bot.cli._command import USAGE_ERROR, Commands, load_settings
from bot.cli._early import start_ai_early

if TYPE_CHECKING:
    from bot.runtime import Runtime
    from bot.settings import Settings

log = logging.getLogger(__name__)

NO_TOKEN_HINT = (
    "kingme: DISCORD_TOKEN is not set: set it to your bot's token to run on Discord "
    "(see docs/deploy.md), or use `kingme sandbox` to play locally"
)


def register(commands: Commands) -> None:
    commands.add("run", _run)


def _run(args: argparse.Namespace) -> int:
    """run the Discord bot (needs DISCORD_TOKEN)

    Run the bot on Discord with the settings from the environment or a .env file (docs/deploy.md lists them): Redis
    (REDIS_URL, or an embedded redis-server with its data under KINGME_DATA), the AI worker processes, the public
    pages on HTTP_PORT, and /healthz and /metrics on OPS_PORT (on the loopback only, unless OPS_HOST says otherwise).
    Stops cleanly on SIGINT or SIGTERM.
    """
    settings = load_settings()
    if not _has_token(settings):
        print(NO_TOKEN_HINT, file=sys.stderr)
        return USAGE_ERROR
    return run_bot(settings)


def main_job(args: argparse.Namespace) -> int:
    """``kingme`` alone: run the bot on Discord when a token is set, else the local sandbox in the browser."""
    settings = load_settings()
    if _has_token(settings):
        return run_bot(settings)
    from bot.cli.sandbox import run_sandbox

    return run_sandbox(settings, open_browser=not args.no_browser)


def run_bot(settings: Settings) -> int:
    """Run the bot on Discord until SIGINT or SIGTERM; returns the exit status."""
    start_ai_early(settings, settings.kingme_data)
    from bot.cli.serve import run
    from bot.runtime import Runtime

    def bot() -> Runtime:
        log.info("starting King Me: %s", settings.summary())
        return Runtime(settings)

    return run(bot, settings.log_level)


def _has_token(settings: Settings) -> bool:
    token = settings.discord_token
    return token is not None and bool(token.get_secret_value().strip())

