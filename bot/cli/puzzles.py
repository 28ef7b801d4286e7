"""``kingme puzzles build`` and ``kingme puzzles show``: mine the puzzle set, and print one of its puzzles.

    kingme puzzles build [--games N] [--seed S] [--out PATH] [--from-games]
    kingme puzzles show ID

The build (:mod:`ai.puzzles.build`, ``docs/puzzles.md``) writes the shipped ``ai/data/puzzles.jsonl.gz`` unless
``--out`` says otherwise; its progress goes to stderr, its summary (count, time, size, each theme's share) to stdout.
``--from-games`` also mines the finished games of the Redis at ``REDIS_URL`` (English draughts only; the puzzles keep
no trace of the game or its players).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from bot.cli._command import CommandError, Commands, Parser, load_settings
from bot.cli.engine import numbered_board

DEFAULT_GAMES = 450
FROM_GAMES_LIMIT = 20_000
"""The most finished games ``--from-games`` reads."""


def register(commands: Commands) -> None:
    puzzles = commands.add("puzzles", _puzzles)
    actions = puzzles.add_subparsers(metavar="ACTION", required=True, parser_class=Parser)
    build = actions.add_parser("build", help="mine the puzzle set from self-play (and finished games)")
    build.set_defaults(handler=_build)
    build.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"self-play games (default {DEFAULT_GAMES})")
    build.add_argument("--seed", type=int, default=0, help="seeds the self-play games (default 0)")
    build.add_argument("--out", type=Path, help="the file to write (default: the set shipped in the package)")
    build.add_argument(
        "--from-games", action="store_true", help="also mine the finished games in the Redis at REDIS_URL"
    )
    show = actions.add_parser("show", help="print a puzzle of the shipped set: board, side to move, solution")
    show.set_defaults(handler=_show)
    show.add_argument("id", metavar="ID", help="the puzzle's id")


def _puzzles(args: argparse.Namespace) -> int:
    """mine the puzzle set, or print one of its puzzles (kingme puzzles build | show ID)"""
    raise CommandError("give an action: build or show")  # argparse asks for one first


def _report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _build(args: argparse.Namespace) -> int:
    """build the puzzle set (kingme puzzles build [--games N] [--seed S] [--out PATH] [--from-games])"""
    from ai import egdb
    from ai.kernel import warm_up
    from ai.puzzles import PUZZLES_FILE
    from ai.puzzles.build import build
    from ai.puzzles.record import write
    from ai.puzzles.sources import Game, games_of, self_play

    if args.games < 0:
        raise CommandError("--games must be 0 or more")
    stored = games_of(_finished_games()) if args.from_games else []
    if not stored and args.games == 0:
        raise CommandError("nothing to mine: give --games N (or --from-games with finished games in Redis)")
    if args.from_games:
        _report(f"{len(stored)} finished games of English draughts in Redis")
    path: Path = args.out if args.out is not None else PUZZLES_FILE
    # Proven against the databases shipped in the package, which every install has, so that the tests can check the
    # set anywhere (a larger database in the data folder would change the searches' verdicts).
    os.environ["EGDB_DIR"] = str(egdb.SHIPPED)
    warm_up()

    def games() -> Iterator[Game]:
        yield from stored
        for index in range(args.games):
            yield self_play(index, args.seed)

    started = time.perf_counter()
    built = build(games(), total=len(stored) + args.games, report=_report)
    try:
        size = write(built.puzzles, path)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from None
    print(built.summary())
    print(f"written to {path} ({size / 1e3:.0f} kB) in {time.perf_counter() - started:.0f} s in all")
    return 0


def _finished_games() -> list[tuple[str, str, tuple[str, ...]]]:
    """``(variant, start FEN, moves)`` of the finished games in the Redis at ``REDIS_URL``."""
    settings = load_settings()
    url = settings.redis_url.get_secret_value().strip() if settings.redis_url is not None else ""
    if not url:
        raise CommandError("--from-games reads the finished games of the Redis at REDIS_URL, which is not set")
    return asyncio.run(_read_finished(url))


async def _read_finished(url: str) -> list[tuple[str, str, tuple[str, ...]]]:
    from bot.runtime import StartupError, connect_redis, redact_url
    from bot.store import RedisGameStore

    try:
        client = await connect_redis(url, redact_url(url))
    except StartupError as exc:
        raise CommandError(str(exc)) from None
    try:
        store = RedisGameStore(client)
        games = await store.load_games(await store.finished_before(time.time(), FROM_GAMES_LIMIT))
    finally:
        await client.aclose()
    return [(game.variant, game.initial_fen, game.moves) for game in games]


def _show(args: argparse.Namespace) -> int:
    """print a puzzle of the shipped set"""
    from ai.puzzles import puzzle
    from core import Board

    found = puzzle(args.id)
    if found is None:
        raise CommandError(f"no puzzle {args.id!r} in the shipped set")
    board = Board(found.fen)
    task = "win" if found.result == "win" else "draw"
    print(f"Puzzle {found.id}, rated {found.rating}: {board.turn.label} to move and {task}")
    print(numbered_board(board))
    print(f"themes: {', '.join(found.themes)}")
    if found.margin is None:
        print("proof: the endgame databases (every other move loses the result)")
    else:
        print(
            f"proof: every other move scores at least {found.margin / 100:.2f} men worse "
            f"(a search of {found.nodes:,} nodes, depth {found.depth})"
        )
    print(f"solution: {' '.join(found.solution)}")
    return 0
