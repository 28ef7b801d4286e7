"""What every ``kingme`` subcommand shares: the parser and its one-line errors, the way a command is added, and the
settings as a command reads them."""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from bot.settings import Settings

USAGE_ERROR: Final = 2
"""The exit status of bad input: a bad argument, a bad setting, a position that is not a position."""

Handler = Callable[[argparse.Namespace], int]
"""Runs a subcommand with its parsed arguments; returns the exit status."""


class CommandError(Exception):
    """A problem with the command's input, shown as one line on stderr (exit status 2)."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """argparse's errors as one line and exit status 2."""
        print(f"kingme: {message}", file=sys.stderr)
        raise SystemExit(USAGE_ERROR)


class Commands:
    """The subcommands of ``parser``: each command module's ``register(commands)`` adds its own with :meth:`add`."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._subparsers = parser.add_subparsers(metavar="COMMAND", parser_class=Parser)

    def add(self, name: str, handler: Handler) -> argparse.ArgumentParser:
        """Add the subcommand ``name``, run by ``handler``, and return its parser for the arguments.

        The handler's docstring is the command's help: its first paragraph in ``kingme --help``, the rest (if any)
        in ``kingme NAME --help``.
        """
        summary, _, details = inspect.cleandoc(handler.__doc__ or "").partition("\n\n")
        parser = self._subparsers.add_parser(name, help=" ".join(summary.split()), description=details or None)
        parser.set_defaults(handler=handler)
        return parser


def add_variant_option(parser: argparse.ArgumentParser) -> None:
    """The ``--variant`` option that the engine and AI commands share."""
    parser.add_argument("--variant", default="american", help="american, capture-all or mini")


def load_settings() -> Settings:
    """The settings from the environment (and a .env file); a bad value is a one-line :class:`CommandError`."""
    from pydantic import ValidationError

    from bot.settings import Settings

    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = "_".join(str(part) for part in first["loc"]).upper()
        message = str(first["msg"]).removeprefix("Value error, ")  # pydantic's wording for a validator's ValueError
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        where = f"setting {name}" if name else "settings"  # a rule between settings names them itself
        raise CommandError(f"invalid {where}: {message}{more}") from None
