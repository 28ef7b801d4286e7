"""Retrograde analysis of English draughts endings, compiled: the tables of :mod:`ai.kernel.egdb`, solved.

Tables are solved in pairs: a signature ``(a, b, c, d)`` and its mirror ``(c, d, a, b)`` (the opponent's view after
a quiet move) reach each other by quiet moves, and everything else a move can reach has fewer pieces or fewer men (a
capture, a crowning), so it lies in a table solved before. For one pair:

1. *Classify* every position (in parallel): no move is a loss (the side to move is blocked); a move that takes the
   last piece or reaches a lost position of an earlier table is a win; a position whose moves all leave the pair
   takes its value from them at once. The others keep a count of their moves inside the pair, and a mark if one of
   their moves leaving the pair draws (such a position can never be lost).
2. *Propagate* backwards: when a position is settled, each position one quiet move before it (found by un-moving a
   piece of the side that just moved, kept only if that side had no capture there, since capturing is compulsory)
   becomes a win if the settled one is a loss, or counts one more move refuted if it is a win; a count that reaches
   zero makes a loss.
3. What is still open is a draw: neither side can force a result.

The value ignores the draw rules (repetition, 40 moves without progress), like every endgame database. :func:`build`
runs the three steps for every pair in :func:`ai.egdb.pairs`'s order.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba
import numpy as np
import numpy.typing as npt

from ai import egdb
from ai.kernel import movegen as mg
from ai.kernel import tables as t
from ai.kernel.egdb import DRAW, HEADER, LOSS, UNUSED, WIN, Array, compact, expand, index_of, position_at, probe, rotate
from ai.kernel.jit import njit, njit_parallel, popcount, prange
from core import AMERICAN

Codes = npt.NDArray[np.uint8]

OPEN, WON, LOST, DRAWN, NOT_A_POSITION = 0, 1, 2, 3, 4
"""A position's state while its pair is solved."""
SETTLED = 4
"""``WON + SETTLED`` and ``LOST + SETTLED``: settled, its predecessors not told yet."""
CAN_DRAW = 128
"""Added to a position's count of moves inside the pair when one of its moves leaving the pair draws."""
CHUNKS = 256


@njit
def _classify(
    index: int, a: int, b: int, c: int, d: int, k: t.Constants, db: Array, buf: mg.Buffer, stack: mg.Buffer
) -> tuple[int, int]:
    """The state of position ``index`` of signature ``(a, b, c, d)`` from its moves alone, and its count."""
    men, kings, their_men, their_kings, used = position_at(index, a, b, c, d)
    if not used:
        return NOT_A_POSITION, 0
    me = expand(men | kings)
    opp = expand(their_men | their_kings)
    all_kings = expand(kings | their_kings)
    n = mg.generate(me, opp, all_kings, True, k, buf, 0, stack)
    if n == 0:
        return LOST + SETTLED, 0
    inside = 0
    can_draw = False
    for j in range(n):
        c_me, c_opp, c_kings = mg.apply(me, opp, all_kings, True, buf[0, j], k)
        if not c_me:
            return WON + SETTLED, 0
        c_me_kings = c_me & c_kings
        c_opp_kings = c_opp & c_kings
        if (
            popcount(c_me ^ c_me_kings) == c
            and popcount(c_me_kings) == d
            and popcount(c_opp ^ c_opp_kings) == a
            and popcount(c_opp_kings) == b
        ):
            inside += 1
            continue
        value = probe(c_me, c_opp, c_kings, False, db)
        if value == LOSS:
            return WON + SETTLED, 0
        if value == DRAW:
            can_draw = True
    if inside == 0:
        return (DRAWN, 0) if can_draw else (LOST + SETTLED, 0)
    return OPEN, inside + (CAN_DRAW if can_draw else 0)


@njit_parallel
def classify(codes: Codes, counts: Codes, a: int, b: int, c: int, d: int, k: t.Constants, db: Array) -> None:
    """Step 1 for every position of signature ``(a, b, c, d)``, in parallel."""
    n = codes.shape[0]
    for chunk in prange(CHUNKS):
        buf = np.zeros((2, mg.MAX_MOVES), dtype=np.int64)
        stack = np.zeros((mg.STACK_DEPTH, 4), dtype=np.int64)
        for i in range(chunk * n // CHUNKS, (chunk + 1) * n // CHUNKS):
            code, count = _classify(i, a, b, c, d, k, db, buf, stack)
            codes[i] = code
            counts[i] = count


MAX_PREDECESSORS = 4 * egdb.MAX_PIECES
"""The most positions one quiet move before a position: four directions for each piece of the side that moved."""


@njit
def predecessors(men: int, kings: int, their_men: int, their_kings: int, k: t.Constants, out: Array) -> int:
    """The positions one quiet move before a position (square masks, the side to move moving up): each found by
    un-moving a piece of the side that just moved, kept only if that side had no capture there (capturing is
    compulsory). Their indexes in the mirror signature's table go to ``out``; their number is returned."""
    # The side that just moved, turned to move up again, and its opponent (the side to move in the settled position).
    mover = expand(rotate(their_men) | rotate(their_kings))
    other = expand(rotate(men) | rotate(kings))
    all_kings = expand(rotate(kings) | rotate(their_kings))
    empty = k[t.VALID] & ~(mover | other)
    short = k[t.SHORT]
    long = k[t.LONG]
    n = 0
    pieces = mover
    while pieces:
        to = pieces & -pieces
        pieces ^= to
        king = (to & all_kings) != 0
        for direction in range(4):
            if direction >= 2 and not king:
                break  # a man only moved up, so it came from below
            shift = short if direction % 2 == 0 else long
            frm = to >> shift if direction < 2 else to << shift
            if not frm & empty:
                continue
            before = (mover ^ to) | frm
            before_kings = (all_kings ^ to) | frm if king else all_kings
            if mg.jumpers(before, other, before_kings, True, k):
                continue  # a capture was compulsory there: this quiet move was not legal
            out[n] = index_of(
                compact(before & ~before_kings),
                compact(before & before_kings),
                compact(other & ~before_kings),
                compact(other & before_kings),
            )
            n += 1
    return n


@njit
def _tell_predecessors(
    index: int,
    a: int,
    b: int,
    c: int,
    d: int,
    won: bool,
    codes: Codes,
    counts: Codes,
    k: t.Constants,
    found: Array,
) -> None:
    """Step 2 for position ``index`` of signature ``(a, b, c, d)``, just settled (``won`` or lost for its mover);
    ``codes`` and ``counts`` are the mirror signature's, where its predecessors are."""
    men, kings, their_men, their_kings, _ = position_at(index, a, b, c, d)
    for j in range(predecessors(men, kings, their_men, their_kings, k, found)):
        i = found[j]
        if codes[i] != OPEN:
            continue
        if not won:
            codes[i] = WON + SETTLED
        else:
            counts[i] -= 1
            if counts[i] == 0:
                codes[i] = LOST + SETTLED


@njit
def _settle(codes: Codes, a: int, b: int, c: int, d: int, mirror: Codes, mirror_counts: Codes, k: t.Constants) -> bool:
    """Tell the predecessors of every newly settled position of ``codes``; whether there was one."""
    any_settled = False
    found = np.zeros(MAX_PREDECESSORS, dtype=np.int64)
    for i in range(codes.shape[0]):
        code = codes[i]
        if code == WON + SETTLED or code == LOST + SETTLED:
            codes[i] = code - SETTLED
            any_settled = True
            _tell_predecessors(i, a, b, c, d, code == WON + SETTLED, mirror, mirror_counts, k, found)
    return any_settled


@njit
def propagate(
    codes: Codes, counts: Codes, mirror: Codes, mirror_counts: Codes, a: int, b: int, c: int, d: int, k: t.Constants
) -> None:
    """Steps 2 and 3 for the pair of signature ``(a, b, c, d)`` (``codes``) and its mirror (the same arrays when the
    signature is its own mirror)."""
    busy = True
    while busy:
        busy = _settle(codes, a, b, c, d, mirror, mirror_counts, k)
        busy = _settle(mirror, c, d, a, b, codes, counts, k) or busy
    for side in (codes, mirror):
        for i in range(side.shape[0]):
            if side[i] == OPEN:
                side[i] = DRAWN


@njit
def store(codes: Codes, db: Array, offset: int) -> None:
    """Pack a solved table into the database array from position ``offset`` on."""
    for i in range(codes.shape[0]):
        code = codes[i]
        value = WIN if code == WON else LOSS if code == LOST else DRAW if code == DRAWN else UNUSED
        position = offset + i
        word = HEADER + (position >> 5)
        shift = (position & 31) * 2
        db[word] = (db[word] & ~(3 << shift)) | (value << shift)


def build(
    pieces: int,
    *,
    threads: int | None = None,
    report: Callable[[str], None] | None = None,
    only: egdb.Only | None = None,
) -> tuple[Array, egdb.Stats]:
    """Solve every position of 2 to ``pieces`` pieces (those of ``pieces`` limited to ``only``) with ``threads``
    threads (default: numba's); the database array and what was found."""
    db, offsets = egdb.allocate(pieces, only)
    if threads is not None:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    started = time.perf_counter()
    k = t.of(AMERICAN)
    tally = np.zeros(8, dtype=np.int64)
    for sig, mirror in egdb.pairs(pieces, only):
        arrays = {}
        for side in {sig, mirror}:
            codes = np.zeros(egdb.table_size(*side), dtype=np.uint8)
            counts = np.zeros_like(codes)
            classify(codes, counts, *side, k, db)
            arrays[side] = (codes, counts)
        propagate(*arrays[sig], *arrays[mirror], *sig, k)
        for side, (codes, _) in arrays.items():
            store(codes, db, offsets[side])
            tally += np.bincount(codes, minlength=8)[:8]
        if report is not None:
            report(f"{sig} and {mirror} solved ({time.perf_counter() - started:.1f} s)")
    wins, losses, draws = int(tally[WON]), int(tally[LOST]), int(tally[DRAWN])
    return db, egdb.Stats(pieces, wins + losses + draws, wins, losses, draws, time.perf_counter() - started)
