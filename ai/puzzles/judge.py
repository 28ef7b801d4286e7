"""The verdict on one position: is there exactly one move that keeps the win (or the draw), and by how much?

Two ways to a verdict, and the cheap filter in front of them:

- **By the databases, exactly**, when the position has no more pieces than the endgame databases hold
  (:func:`exact_verdict`): the value of every legal move's position is probed; a won position with exactly one
  winning move, or a drawn one with exactly one move that does not lose, is a puzzle, its margin ``exact``.
- **By a deep search** otherwise (:func:`search_verdict`): two reproducible searches of :data:`VERIFY_NODES` nodes
  (:func:`ai.review.reproducible_search`: a fresh table, the databases probed below the root), one of every move
  (the best and its score), one of every move *but* the best (the root restricted to the others, so its score is the
  second best's). The best keeps a **win** if it scores at least :data:`WIN_AT` while the second best scores below
  it; it keeps a **draw** if it scores above ``-``:data:`DRAW_BAND` while the second best scores ``-WIN_AT`` or less;
  and in either case the gap must be at least :data:`MARGIN`. The gap, floored to ten and capped at
  :data:`MARGIN_CAP`, is the margin the puzzle states.
- **The filter** (:func:`promising`): the same pair of searches held to :data:`FILTER_NODES` nodes, passed by a gap
  of at least :data:`FILTER_GAP` when the best scores above :data:`FILTER_FLOOR` and the second best below
  :data:`FILTER_CEILING` (bounds found by mining a dozen games: no position outside them passed the deep search).
  Positions the databases reach skip it (their exact verdict costs less). It is what makes mining every position of
  every game affordable; it may let through what the deep search rejects, and it may miss a puzzle (no harm: there
  are more positions than puzzles needed).

A position whose side to move has a single legal move is never a puzzle.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from ai import egdb
from ai.kernel.egdb import DRAW, LOSS, UNKNOWN, WIN, probe
from ai.puzzles.record import MINED_WITH_PATTERNS
from ai.review import reproducible_search
from core import AMERICAN, Board, Color

WIN_AT = 150
"""A score (hundredths of a man) from which a position counts as won: a man and a half up, or a proven win."""
DRAW_BAND = 60
"""A position that scores above ``-DRAW_BAND`` (and below :data:`WIN_AT`) counts as holding the draw."""
MARGIN = 150
"""The least gap between the only move and the second best."""
MARGIN_CAP = 1000
"""Gaps beyond ten men (a won game against a level one) are stated as this."""
VERIFY_NODES = 300_000
"""Nodes of each verifying search: depth 14 to 20 in the middle game, about 0.1 s of one core."""
VERIFY_TABLE = 1 << 18
"""The verifying searches' table (8 MiB), emptied before each."""
FILTER_NODES = 3_000
"""Nodes of each of the filter's searches: depth 6 to 9, a millisecond."""
FILTER_TABLE = 1 << 14
FILTER_GAP = 100
FILTER_FLOOR = -100
"""The filter passes no position that scores this or less: too far gone for the deep search to call it held."""
FILTER_CEILING = 250
"""Nor one whose second best already scores this or more: the deep search finds that it wins too."""
SEED = 0
"""The order of equal root moves in every verifying search (any fixed seed makes the verdicts reproducible)."""


@dataclass(frozen=True)
class Verdict:
    """The only move of a position that keeps its result."""

    move: str
    result: str
    """``win`` or ``draw``."""
    margin: int | None
    """The gap to the second best (hundredths of a man), or None when the databases prove it."""
    line: tuple[str, ...] = ()
    """The search's principal variation from the move on (empty for a database verdict)."""
    depth: int = 0
    nodes: int = 0


def _database() -> egdb.Array | None:
    """The databases the kernel's searches probe (:func:`ai.egdb.loaded`), looked up once per folder."""
    return _database_in(egdb.folder())


@functools.cache
def _database_in(folder: Path) -> egdb.Array | None:
    return egdb.loaded()


def database_value(board: Board) -> int:
    """The databases' value of ``board`` for the side to move (``WIN``, ``LOSS``, ``DRAW`` of :mod:`ai.egdb`), the
    game's end by the rules included; :data:`ai.egdb.UNKNOWN` where the databases do not reach (or there are none)."""
    outcome = board.outcome()
    if outcome is not None:
        return DRAW if outcome.winner is None else WIN if outcome.winner is board.turn else LOSS
    db = _database() if board.variant is AMERICAN else None
    if db is None or (board.black | board.white).bit_count() > db[0]:
        return UNKNOWN
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    return int(probe(me, opp, board.kings, black, db))


def in_databases(board: Board) -> bool:
    """Whether the databases settle ``board`` (it has no more pieces than they hold)."""
    return database_value(board) != UNKNOWN


def exact_verdict(board: Board) -> Verdict | None:
    """The databases' verdict on ``board`` (which :func:`in_databases`), or None if it is no puzzle."""
    legal = board.legal_moves
    value = database_value(board)
    if len(legal) < 2 or value not in (WIN, DRAW):
        return None
    keeping = []
    for move in legal:
        board.push(move)
        after = database_value(board)
        board.pop()
        if after == UNKNOWN:
            return None
        if after == LOSS or (value == DRAW and after == DRAW):
            keeping.append(move.text())
    if len(keeping) != 1:
        return None
    return Verdict(keeping[0], "win" if value == WIN else "draw", None)


def _best_and_second(
    board: Board, nodes: int, table: int = VERIFY_TABLE
) -> tuple[str, tuple[str, ...], float, float, int]:
    """The best move, its line and score, the second best's score, and the shallower of the two depths."""
    best = reproducible_search(
        board, SEED, nodes=nodes, endgames=True, patterns=MINED_WITH_PATTERNS, table_entries=table
    )
    others = {m.text() for m in board.legal_moves} - {best.move}
    second = reproducible_search(
        board, SEED, nodes=nodes, endgames=True, patterns=MINED_WITH_PATTERNS, table_entries=table, moves=others
    )
    return best.move, best.pv, best.score, second.score, min(best.depth, second.depth)


def classify(best: float, second: float) -> str | None:
    """``win`` or ``draw`` when a move scoring ``best`` keeps that result and one scoring ``second`` loses it by
    :data:`MARGIN` or more; None otherwise."""
    if best - second < MARGIN:
        return None
    if best >= WIN_AT and second < WIN_AT:
        return "win"
    if -DRAW_BAND < best < WIN_AT and second <= -WIN_AT:
        return "draw"
    return None


def stated_margin(best: float, second: float) -> int:
    """The gap as a puzzle states it: floored to ten, at most :data:`MARGIN_CAP`."""
    return min(MARGIN_CAP, int(best - second) // 10 * 10)


def search_verdict(board: Board, nodes: int = VERIFY_NODES) -> Verdict | None:
    """The deep search's verdict on ``board``, or None if it is no puzzle."""
    if len(board.legal_moves) < 2:
        return None
    move, line, best, second, depth = _best_and_second(board, nodes)
    result = classify(best, second)
    if result is None:
        return None
    return Verdict(move, result, stated_margin(best, second), line, depth, nodes)


def verdict(board: Board, nodes: int = VERIFY_NODES) -> Verdict | None:
    """The databases' verdict where they reach, else the deep search's."""
    if in_databases(board):
        return exact_verdict(board)
    return search_verdict(board, nodes)


def promising(board: Board, nodes: int = FILTER_NODES) -> bool:
    """The cheap filter: a shallow pair of searches sees one move well ahead of the rest, in a position not lost."""
    if len(board.legal_moves) < 2:
        return False
    if in_databases(board):
        return True  # the exact verdict is cheaper than the filter
    _, _, best, second, _ = _best_and_second(board, nodes, FILTER_TABLE)
    return best - second >= FILTER_GAP and best > FILTER_FLOOR and second < FILTER_CEILING
