"""The ``kingme`` command line: one parser, with each group of subcommands in its own module.

Every subcommand module has ``register(commands)``, which adds its commands with :meth:`Commands.add`, each run by
a function of the parsed arguments that returns the exit status. Plain ``kingme`` runs the main job
(:func:`bot.cli.run.main_job`). Bad input ends in one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from bot.cli import ai_commands, endgames, engine, knowledge, puzzles, run, sandbox, train, worker
from bot.cli._command import USAGE_ERROR, CommandError, Commands, Parser
from core import RulesError

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a Unix tool exits with when the reader of its output went away (``kingme moves | head``)."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="kingme",
        description=(
            "King Me: checkers engine, AI and Discord bot. Plain `kingme`, with no command, runs the bot: on Discord "
            "when DISCORD_TOKEN is set, otherwise in a local sandbox (a page like a Discord channel, printed at start) "
            "with its own embedded Redis."
        ),
    )
    parser.set_defaults(handler=run.main_job)  # a subcommand's own handler replaces it
    parser.add_argument("--no-browser", action="store_true", help=f"with no token: {sandbox.NO_BROWSER_HELP}")
    commands = Commands(parser)
    for module in (engine, ai_commands, knowledge, puzzles, endgames, train, run, sandbox, worker):
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = int(args.handler(args))
        sys.stdout.flush()  # here, where a closed pipe is caught below, not at exit
        return status
    except (CommandError, RulesError) as exc:
        print(f"kingme: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader closed the pipe (``| head``): stop quietly, as Unix tools do. Output still buffered would fail
        # again when Python flushes it at exit, so stdout goes to /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
