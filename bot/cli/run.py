"""``kingme run``: the Discord bot with its game service, AI pool, Redis and HTTP side. Plain ``kingme`` does the same
when a token is set."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.cli import USAGE_ERROR, CommandError

NO_TOKEN_HINT = (
    "kingme: DISCORD_TOKEN is not set: set it to your bot's token to run on Discord "
    "(see docs/deploy.md), or use `kingme sandbox` to play locally"
)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the Discord bot (needs DISCORD_TOKEN)",
        description="Run the bot on Discord with the settings from the environment or a .env file (docs/deploy.md "
        "lists them): Redis (REDIS_URL, or an embedded redis-server with its data under KINGME_DATA), the AI worker "
        "processes, and /healthz and /metrics on HTTP_PORT. Stops cleanly on SIGINT or SIGTERM.",
    )
    p.set_defaults(handler=_run)
    # Plain `kingme` (no command) runs the main job. The subparsers action's container is the top-level parser's
    # argument group, which shares that parser's defaults.
    subparsers.container.set_defaults(default_handler=_default)


def load_settings() -> Any:
    """The settings from the environment; a bad value is a one-line :class:`CommandError`."""
    from pydantic import ValidationError

    from bot.settings import Settings

    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "_".join(str(part) for part in first["loc"]).upper() or "settings"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise CommandError(f"invalid setting {name}: {first['msg']}{more}") from None


def _has_token(settings: Any) -> bool:
    token = settings.discord_token
    return token is not None and bool(token.get_secret_value().strip())


def _run(args: argparse.Namespace) -> int:
    settings = load_settings()
    if not _has_token(settings):
        print(NO_TOKEN_HINT, file=sys.stderr)
        return USAGE_ERROR
    from bot.runtime import run

    return run(settings)


def _default(args: argparse.Namespace) -> int:
    """``kingme`` alone: run the bot on Discord when a token is set, else the local sandbox in the browser."""
    settings = load_settings()
    if _has_token(settings):
        from bot.runtime import run

        return run(settings)
    from bot.cli.sandbox import run as run_sandbox

    return run_sandbox(settings)
