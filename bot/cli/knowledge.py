"""``kingme egdb`` and ``kingme book``: build the engine's knowledge, the endgame databases and the opening book."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli._command import CommandError, Commands, Parser, load_settings
from bot.cli.engine import add_position_argument, board_from_args

if TYPE_CHECKING:
    from ai import book, egdb


def register(commands: Commands) -> None:
    egdb = commands.add("egdb", _egdb_build)
    actions = egdb.add_subparsers(metavar="ACTION", required=True, parser_class=Parser)
    build = actions.add_parser("build", help="solve every ending of up to N pieces and write the database file")
    build.set_defaults(handler=_egdb_build)
    build.add_argument("--pieces", type=int, required=True, help="the most pieces on the board (5 or 6 to be useful)")
    build.add_argument("--out", type=Path, help="the folder to write it to (default: EGDB_DIR, else KINGME_DATA/egdb)")
    build.add_argument("--threads", type=int, default=2, help="threads for the parallel steps (default 2)")
    build.add_argument(
        "--sides",
        metavar="AvB",
        help="only the tables of N pieces with A and B pieces a side, e.g. 3v3 (those of fewer pieces are built whole)",
    )
    build.add_argument("--max-men", type=int, help="with --sides: at most this many men a side (e.g. 2)")
    probe = actions.add_parser("probe", help="a position's value in the installed database: win, loss or draw")
    probe.set_defaults(handler=_egdb_probe)
    add_position_argument(probe)

    book = commands.add("book", _book_build)
    actions = book.add_subparsers(metavar="ACTION", required=True, parser_class=Parser)
    build = actions.add_parser("build", help="search the ACF deck's openings and write the opening book")
    build.set_defaults(handler=_book_build)
    build.add_argument("--time", type=float, help="seconds a position (default 3)")
    build.add_argument("--out", type=Path, help="the file to write (default: the book shipped in the package)")
    lines = actions.add_parser(
        "lines", help="add to the opening book the lines the deck's openings lead to, searched by master"
    )
    lines.set_defaults(handler=_book_lines)
    lines.add_argument("--time", type=float, help="seconds a position (default 1; a reply to a deck opening: half)")
    lines.add_argument("--plies", type=int, help="how far from the start the lines go (default 20)")
    lines.add_argument("--jobs", type=int, default=2, help="processes searching at once (default 2)")
    lines.add_argument("--book", type=Path, help="the book to add to (default: the book shipped in the package)")
    lines.add_argument("--out", type=Path, help="the file to write (default: the book shipped in the package)")
    widen = actions.add_parser(
        "widen", help="add to the opening book the lines of the second choices along the lines it holds"
    )
    widen.set_defaults(handler=_book_widen)
    widen.add_argument("--time", type=float, help="seconds a position (default 1; a second choice: half)")
    widen.add_argument("--plies", type=int, help="how far from the start the lines go (default 16)")
    widen.add_argument("--from", dest="first", type=int, help="the first ply branched from (default 4)")
    widen.add_argument("--to", dest="last", type=int, help="the last ply branched from (default 8)")
    widen.add_argument("--jobs", type=int, default=2, help="processes searching at once (default 2)")
    widen.add_argument("--book", type=Path, help="the book to widen (default: the book shipped in the package)")
    widen.add_argument("--out", type=Path, help="the file to write (default: the book shipped in the package)")


def _use_settings() -> Path:
    """The endgame databases' folder by the settings (``EGDB_DIR``, else ``KINGME_DATA/egdb``), exported for
    :mod:`ai.egdb` as the bot exports it for its workers."""
    settings = load_settings()
    folder = settings.egdb_dir or settings.kingme_data / "egdb"
    os.environ["EGDB_DIR"] = str(folder)
    return folder


def _report(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _egdb_build(args: argparse.Namespace) -> int:
    """build the endgame databases (kingme egdb build --pieces N)"""
    from ai import egdb
    from ai.kernel import build_endgame_database

    if not egdb.MIN_PIECES <= args.pieces <= egdb.MAX_PIECES:
        raise CommandError(f"--pieces must be between {egdb.MIN_PIECES} and {egdb.MAX_PIECES}")
    if args.threads < 1:
        raise CommandError("--threads must be 1 or more")
    only = _only(args)
    path = (args.out if args.out is not None else _use_settings()) / egdb.file_name(args.pieces)
    db, stats = build_endgame_database(args.pieces, threads=args.threads, report=_report, only=only)
    started = time.perf_counter()
    try:
        size = egdb.save(db, path)
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from None
    men = "man" if only is not None and only.men == 1 else "men"
    part = "" if only is None else f" (of {args.pieces} pieces only {args.sides}, at most {only.men} {men} a side)"
    shared = ", memory-mapped: one copy for every process" if args.pieces >= egdb.MAPPED_FROM else ""
    print(
        f"{stats.positions:,} positions of up to {stats.pieces} pieces{part}: {stats.wins:,} wins, "
        f"{stats.losses:,} losses, {stats.draws:,} draws for the side to move; solved in {stats.seconds:.1f} s, "
        f"written in {time.perf_counter() - started:.1f} s to {path} ({size / 1e6:.2f} MB, "
        f"{db.nbytes / 1e6:.1f} MB in memory{shared})"
    )
    return 0


def _only(args: argparse.Namespace) -> egdb.Only | None:
    """The part of the largest tables that ``--sides`` and ``--max-men`` ask for, or None for them all."""
    from ai import egdb

    if args.sides is None:
        if args.max_men is not None:
            raise CommandError("--max-men goes with --sides")
        return None
    a, v, b = args.sides.partition("v")
    if not (v and a.isdecimal() and b.isdecimal() and int(a) >= 1 and int(b) >= 1 and int(a) + int(b) == args.pieces):
        raise CommandError("--sides is two counts of pieces that add up to --pieces, like 3v3 for 6 pieces")
    sides = (int(a), int(b))
    men = max(sides) if args.max_men is None else args.max_men
    if not 0 <= men <= max(sides):
        raise CommandError(f"--max-men is between 0 and {max(sides)}")
    return egdb.Only(sides, men)


def _egdb_probe(args: argparse.Namespace) -> int:
    """print a position's value in the installed endgame database"""
    from ai import egdb
    from ai.kernel.egdb import DRAW, LOSS, WIN, probe
    from core import AMERICAN, Color

    board = board_from_args(args.fen, AMERICAN.name)
    folder = _use_settings()
    db = egdb.loaded()
    if db is None:
        raise CommandError(f"no endgame database in {folder} or the package: run kingme egdb build --pieces 5")
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    if not me or not opp:
        raise CommandError("the game is over in that position")
    value = probe(me, opp, board.kings, black, db)
    names = {WIN: "win", LOSS: "loss", DRAW: "draw"}
    if value not in names:
        if (board.black | board.white).bit_count() <= int(db[0]):
            raise CommandError(f"the database holds a part of its {int(db[0])}-piece tables, not this material")
        raise CommandError(f"the database holds positions of up to {int(db[0])} pieces")
    print(f"{names[value]} for {board.turn.label}")
    return 0


def _book_build(args: argparse.Namespace) -> int:
    """build the opening book (kingme book build)"""
    from ai import book

    seconds = book.SEARCH_TIME if args.time is None else args.time
    if not seconds > 0:
        raise CommandError("--time must be a number of seconds above 0")
    started = time.perf_counter()
    built = book.build(seconds, report=_report)
    return _write_book(built, args.out, f"{len(built.positions)} positions", started, seconds)


def _write_book(built: book.Book, out: Path | None, what: str, started: float, seconds: float) -> int:
    """Write a built book to ``out`` (default: the book shipped in the package) and say what was written."""
    from ai import book

    path = out if out is not None else book.BOOK_FILE
    try:
        path.write_text(built.to_json(), encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {path}: {exc.strerror}") from None
    print(
        f"{what} in {time.perf_counter() - started:.0f} s ({seconds:g} s a search), written to {path} "
        f"({path.stat().st_size / 1e3:.0f} kB)"
    )
    return 0


def _book_lines(args: argparse.Namespace) -> int:
    """add the deck openings' lines to the opening book (kingme book lines)"""
    from ai import book

    seconds, plies, start = _line_settings(args, book.LINE_PLIES)
    started = time.perf_counter()
    built = book.extend(start, seconds, plies, jobs=args.jobs, report=_report)
    added = len(built.positions) - len(start.positions)
    return _write_book(built, args.out, f"{len(built.positions)} positions ({added:+d})", started, seconds)


def _book_widen(args: argparse.Namespace) -> int:
    """add the second choices' lines to the opening book (kingme book widen)"""
    from ai import book

    first = book.BRANCH_FROM if args.first is None else args.first
    last = book.BRANCH_TO if args.last is None else args.last
    if not book.DECK_PLIES < first <= last < 60:
        raise CommandError(f"--from and --to must be plies from {book.DECK_PLIES + 1} to 59, --from first")
    seconds, plies, start = _line_settings(args, book.BRANCH_PLIES)
    started = time.perf_counter()
    built = book.widen(start, seconds, plies, first=first, last=last, jobs=args.jobs, report=_report)
    added = len(built.positions) - len(start.positions)
    return _write_book(built, args.out, f"{len(built.positions)} positions ({added:+d})", started, seconds)


def _line_settings(args: argparse.Namespace, default_plies: int) -> tuple[float, int, book.Book]:
    """The settings ``kingme book lines`` and ``widen`` share, checked: seconds, plies and the book to add to."""
    from ai import book

    seconds = book.LINE_TIME if args.time is None else args.time
    plies = default_plies if args.plies is None else args.plies
    if not seconds > 0:
        raise CommandError("--time must be a number of seconds above 0")
    if not book.DECK_PLIES < plies <= 60:
        raise CommandError(f"--plies must be a number of plies from {book.DECK_PLIES + 1} to 60")
    if not 1 <= args.jobs <= 64:
        raise CommandError("--jobs must be from 1 to 64")
    source = args.book if args.book is not None else book.BOOK_FILE
    try:
        start = book.Book.from_json(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"cannot read {source}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError):
        raise CommandError(f"{source} is not a King Me opening book") from None
    return seconds, plies, start
