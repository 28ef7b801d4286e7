"""How far the opening book carries a level through the games of a match, and where the opponent takes it out.

    python benchmarks/book_reach.py games.pdn [more.pdn ...] [--level master] [--book FILE] [--from 4] [--to 8]
        [--time 0.5] [--jobs 2]

``games.pdn`` is what ``benchmarks/engines.py --pdn`` writes. Each game is replayed against the book (the shipped one
by default): the level's book moves a game and the ply of its first choice the book does not hold (from ply 3, after
an ACF ballot's moves). A *departure* is the opponent's move, at a book position of plies ``--from`` to ``--to``,
that is not the book's; it is *held* when the book still holds the level's next choice. With ``--time`` above 0, the
level's search (``master``'s, from an empty table: the result depends on nothing searched before) scores each
departure against its own best move: how far below its best the opponent's move is, how many are within
:data:`ai.book.REPLY_MARGIN` (the margin within which ``kingme book widen`` follows a second choice), and in how many
positions its best is the book's move.

This is how issue 25 found why the widened book reached so little further against GuiNN: most of its departures are
moves ``master`` scores close to its best, but not its second choice.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import book
from ai.player import Limits
from core import Board
from core.pdn import PdnGame, read_pdn


@dataclass(frozen=True)
class Reach:
    """One game against the book: the level's book moves, the ply of its first choice out of the book (None if the
    game never left it), and the opponent's departures (the position's FEN, its move, the book's move), each with
    whether the book held the level's next choice."""

    book_moves: int
    exit_ply: int | None
    departures: tuple[tuple[str, str, str, bool], ...]


def level_color(game: PdnGame, level: str) -> int | None:
    """0 if the level (its name opens the tag, ``master@REV`` included) played Black, 1 if White, else None."""
    for color, tag in enumerate(("Black", "White")):
        name = game.headers.get(tag, "")
        if name == level or name.startswith(f"{level}@"):
            return color
    return None


def reach(game: PdnGame, color: int, known: book.Book, first: int, last: int) -> Reach:
    """Replay ``game`` against ``known`` for the side ``color`` (0 Black); see the module's docstring."""
    board = Board()
    book_moves, exit_ply = 0, None
    departures: list[tuple[str, str, str, bool]] = []
    pending: tuple[str, str, str] | None = None
    for ply, move in enumerate(game.board.move_stack):
        text = move.text()
        choice = len(board.legal_moves) > 1
        if ply % 2 == color and ply >= book.DECK_PLIES and choice:
            held = bool(known.playable(board))
            if pending is not None:
                departures.append((*pending, held))
                pending = None
            if not held:
                exit_ply = ply
                break
            book_moves += 1
        elif ply % 2 != color and first <= ply <= last and choice:
            entries = known.positions.get(board.fen())
            if entries and entries[0].move != text:
                pending = (board.fen(), text, entries[0].move)
        board.push_text(text)
    return Reach(book_moves, exit_ply, tuple(departures))


def gap(task: tuple[str, str, float]) -> tuple[int, str]:
    """The level's best move of a position and how far below its score the given move scores (0 if it is the
    best), each searched for ``seconds`` from an empty table."""
    fen, move, seconds = task
    from ai.kernel import engine

    board, limits = Board(fen), Limits(time=seconds)
    best = engine.search(
        board, limits, random.Random(0), table_entries=book.BUILD_TABLE, endgames=True, network=True, fresh=True
    )
    if best.move == move:
        return 0, best.move
    its = engine.search(
        board, limits, random.Random(0), table_entries=book.BUILD_TABLE, endgames=True, network=True, fresh=True,
        moves=[move],
    )  # fmt: skip
    return int(best.score - its.score), best.move


def report(reaches: Sequence[Reach], gaps: Sequence[tuple[int, str]] | None = None) -> list[str]:
    """The report's lines: the book's reach, the departures held, and with ``gaps`` (one per departure, in order)
    how the level's search scores them."""
    if not reaches:
        return ["no game of the level"]
    exits = [r.exit_ply for r in reaches if r.exit_ply is not None]
    departures = [d for r in reaches for d in r.departures]
    lines = [
        f"{len(reaches)} games: {statistics.mean(r.book_moves for r in reaches):.1f} book moves a game; "
        f"first choice out of the book at ply {f'{statistics.median(exits):g}' if exits else 'never'} (the median) "
        f"in {len(exits)} games",
        f"departures: {len(departures)}, held by the book {sum(held for *_, held in departures)}",
    ]
    if gaps:
        below = [g for g, _ in gaps]
        within = sum(g <= book.REPLY_MARGIN for g in below)
        same = sum(best == d[2] for (_, best), d in zip(gaps, departures, strict=True))
        lines.append(
            f"the level's search: the opponent's move {statistics.median(below):g} below its best (the median), "
            f"within {book.REPLY_MARGIN} in {within} of {len(below)}; its best is the book's move in {same}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", nargs="+", type=Path, help="PDN files of benchmarks/engines.py")
    parser.add_argument("--level", default="master")
    parser.add_argument("--book", type=Path, help="the book (default: the shipped one)")
    parser.add_argument("--from", dest="first", type=int, default=book.BRANCH_FROM)
    parser.add_argument("--to", dest="last", type=int, default=book.BRANCH_TO)
    parser.add_argument("--time", type=float, default=0.0, help="seconds a search of a departure (default 0: none)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    try:
        known = book.Book.from_json(args.book.read_text(encoding="utf-8")) if args.book else book.shipped()
        games = [game for path in args.games for game in read_pdn(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError) as exc:
        print(f"book_reach: {exc}", file=sys.stderr)
        return 2
    reaches = []
    for game in games:
        color = level_color(game, args.level)
        if color is not None:
            reaches.append(reach(game, color, known, args.first, args.last))
    gaps = None
    if args.time > 0:
        tasks = [(fen, move, args.time) for r in reaches for fen, move, _, _ in r.departures]
        with ProcessPoolExecutor(max(1, args.jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
            gaps = list(pool.map(gap, tasks))
    print("\n".join(report(reaches, gaps)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
