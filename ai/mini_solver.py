"""Perfect play for ``mini`` (6×6, men only): the game is solved, and ``master`` never leaves the best result.

Men only move forward and a blocked side passes, so no position can repeat and every game ends: the game is a finite
tree whose value (win, draw or loss for the side to move) an exact memoised alpha-beta finds. From the start it is a
draw (about 1.8 million positions, ten seconds of Python), so the values of every position within the first
:data:`BOOK_PLIES` plies are shipped in ``ai/data/mini_book.json`` (built by :func:`build_book`); later positions are
solved when they are reached, in well under a second. Among the moves that keep the best value, the one that leaves
the opponent the most losing replies is played.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ai.player import Limits, Player, SearchResult
from ai.rawgame import PASS_RAW, node_of, root_moves
from core import MINI, Board
from core.movegen import RawMove

BOOK_PLIES = 6
SOLVED_DEPTH = 99
"""The depth a solved answer reports: the value is exact, not the result of a depth-limited search."""
_MAX_MEMO = 3_000_000
_GEN = MINI.generator
_memo: dict[int, int] = {}
"""``key -> (lower + 1) * 3 + (upper + 1)``: bounds on a position's value from earlier searches."""


def key_of(me: int, opp: int, black: bool) -> int:
    """The memo and book key of a position: both bitboards and the side to move in one integer."""
    return me | opp << 20 | (1 << 40 if black else 0)


def _children(me: int, opp: int, black: bool) -> list[RawMove] | int:
    """The moves of a node, or its value when the game is over there."""
    if not me:
        return -1
    moves = _GEN.moves(me, opp, 0, black)
    if moves:
        return moves
    if opp and _GEN.count(opp, me, 0, not black):
        return [PASS_RAW]
    diff = me.bit_count() - opp.bit_count()
    return (diff > 0) - (diff < 0)


def solve(me: int, opp: int, black: bool, alpha: int = -1, beta: int = 1) -> int:
    """The value of a position for the side to move (1 win, 0 draw, -1 loss), exact when it lies inside
    ``(alpha, beta)``, else a bound on the side of the window it falls (fail-soft alpha-beta)."""
    key = key_of(me, opp, black)
    packed = _memo.get(key)
    if packed is not None:
        lo, hi = packed // 3 - 1, packed % 3 - 1
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        alpha, beta = max(alpha, lo), min(beta, hi)
    else:
        lo, hi = -1, 1
    moves = _children(me, opp, black)
    if isinstance(moves, int):
        _memo[key] = (moves + 1) * 4
        return moves
    alpha0, beta0 = alpha, beta
    best = -2
    for frm, to, captured, _ in moves:
        value = -solve(opp & ~captured, (me ^ frm) | to, not black, -beta, -alpha)
        if value > best:
            best = value
            if best >= beta:
                break
            alpha = max(alpha, best)
    if best <= alpha0:
        hi = min(hi, best)
    elif best >= beta0:
        lo = max(lo, best)
    else:
        lo = hi = best
    if len(_memo) >= _MAX_MEMO:
        _memo.clear()
    _memo[key] = (lo + 1) * 3 + hi + 1
    return best


@cache
def book() -> dict[int, int]:
    """The shipped values of the positions of the first :data:`BOOK_PLIES` plies (empty if the file is missing)."""
    try:
        text = resources.files("ai").joinpath("data/mini_book.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text)
    return {int(k, 16): int(v) for k, v in data["values"].items()}


def value(me: int, opp: int, black: bool) -> int:
    """The exact value of a position for the side to move, from the book or solved now."""
    known = book().get(key_of(me, opp, black))
    if known is not None:
        return known
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    return solve(me, opp, black)


def choose_solved(board: Board, rng: random.Random) -> SearchResult:
    """The move that keeps the best result, preferring the one that leaves the most losing replies."""
    roots = root_moves(board)
    if len(roots) == 1:
        only = roots[0][1].text()
        return SearchResult(only, 0.0, 0, (only,), 0, 0.0, source="solved")
    rng.shuffle(roots)
    me, opp, _kings, black = node_of(board)
    scored = []
    for raw, move in roots:
        frm, to, captured, _ = raw
        c_me, c_opp = opp & ~captured, (me ^ frm) | to
        scored.append((-value(c_me, c_opp, not black), raw, move, c_me, c_opp))
    best_value = max(s[0] for s in scored)
    best = [s for s in scored if s[0] == best_value]
    choice = best[0]
    if len(best) > 1:
        choice = max(best, key=lambda s: _losing_replies(s[3], s[4], not black))
    move_text = choice[2].text()
    return SearchResult(move_text, float(best_value), SOLVED_DEPTH, (move_text,), len(_memo), 0.0, source="solved")


@dataclass(frozen=True)
class SolvedOnMini:
    """``player`` on every variant but ``mini``, which is played perfectly by :func:`choose_solved` (``master``)."""

    player: Player

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        if board.variant is MINI:
            return choose_solved(board, rng)
        return self.player.choose(board, limits, rng)


def _losing_replies(me: int, opp: int, black: bool) -> int:
    """How many of the moves of the side to move lose."""
    moves = _children(me, opp, black)
    if isinstance(moves, int):
        return 0
    n = 0
    for frm, to, captured, _ in moves:
        c_me, c_opp = opp & ~captured, (me ^ frm) | to
        known = book().get(key_of(c_me, c_opp, not black))
        if (known if known is not None else solve(c_me, c_opp, not black, 0, 1)) >= 1:
            n += 1
    return n


def build_book(plies: int = BOOK_PLIES) -> dict[str, int]:
    """Solve every position within ``plies`` plies of the start: the data of ``ai/data/mini_book.json``."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    start = Board(variant=MINI)
    me, opp, _kings, black = node_of(start)
    layer = {(me, opp, black)}
    values: dict[str, int] = {}
    for ply in range(plies + 1):
        following: set[tuple[int, int, bool]] = set()
        for me, opp, black in layer:
            values[format(key_of(me, opp, black), "x")] = solve(me, opp, black)
            if ply < plies:
                moves = _children(me, opp, black)
                if not isinstance(moves, int):
                    for frm, to, captured, _ in moves:
                        following.add((opp & ~captured, (me ^ frm) | to, not black))
        layer = following
    return values


def main() -> None:
    """Write ``ai/data/mini_book.json`` (run as ``python -m ai.mini_solver``)."""
    from pathlib import Path

    values = build_book()
    path = Path(__file__).parent / "data" / "mini_book.json"
    path.write_text(json.dumps({"plies": BOOK_PLIES, "values": values}, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {len(values)} positions to {path}")


if __name__ == "__main__":
    main()
