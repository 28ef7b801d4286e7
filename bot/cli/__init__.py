"""The ``kingme`` command line: one parser, with each group of subcommands in its own module.

Every subcommand module has ``register(subparsers)``, which adds its parsers and sets ``handler`` to a function of the
parsed arguments returning the exit status. Bad input ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from core import RulesError

USAGE_ERROR = 2


class CommandError(Exception):
    """A problem with the command's input, shown as one line on stderr (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        """argparse's errors as one line and exit status 2."""
        print(f"kingme: {message}", file=sys.stderr)
        raise SystemExit(USAGE_ERROR)


def build_parser() -> argparse.ArgumentParser:
    from bot.cli import engine

    parser = _Parser(prog="kingme", description="King Me: checkers engine, AI and Discord bot.")
    parser.set_defaults(handler=None)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in (engine, *_optional_modules()):
        module.register(subparsers)
    return parser


def _optional_modules() -> list[object]:
    """Subcommand modules of the other packages' commands (AI, bot), present as they land."""
    import importlib

    modules = []
    for name in ("bot.cli.ai_commands", "bot.cli.train", "bot.cli.run", "bot.cli.sandbox"):
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return modules


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.handler is None:
        if args.command is None and hasattr(args, "default_handler"):
            return int(args.default_handler(args))
        parser.print_help()
        return 0
    try:
        return int(args.handler(args))
    except (CommandError, RulesError) as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
