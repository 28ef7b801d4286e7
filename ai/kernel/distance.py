"""Distance to the end of the game in endings of kings only, compiled: how many plies a won position needs against the
longest defence, and how many plies a lost position lasts against the quickest win.

The endgame databases (:mod:`ai.kernel.retro`) hold win, loss or draw only. Here the kings-only tables of up to five
pieces are solved again for their distance, the databases' values taken as given: a pair of signatures ``(0, b, 0, d)``
and ``(0, d, 0, b)`` reaches itself by quiet moves and every capture leads to a pair of fewer pieces, solved before.

1. *Start*: every won or lost position gets what its captures promise (a capture of the last piece ends the game in
   one ply; a capture into a smaller table adds one ply to that table's distance: the least over the captures into a
   lost position for a win, the most over every capture for a loss) and a lost position counts its quiet moves.
2. *Levels*: for n = 0, 1, … every position whose distance is n is settled, and each position one quiet move before it
   (found by un-moving a king of the side that just moved, kept only if that side had no capture there) hears of it: a
   won one may now win in n + 1, a lost one counts one reply fewer and, with none left, lasts its longest.

A distance counts plies to the end of the game (the last piece taken, or the loser blocked) and ignores the draw rules,
like the databases; the winner's side of it is ``(plies + 1) // 2`` of its own moves. Draws get :data:`NO_DISTANCE`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ai import egdb
from ai.kernel import movegen as mg
from ai.kernel import tables as t
from ai.kernel.egdb import (
    DRAW,
    LOSS,
    UNUSED,
    WIN,
    Array,
    compact,
    expand,
    index_of,
    position_at,
    rotate,
    sig_id,
    value_at,
)
from ai.kernel.jit import njit, popcount
from core import AMERICAN

Distances = npt.NDArray[np.int16]
Values = npt.NDArray[np.uint8]
NO_DISTANCE = -1
"""The distance of a draw, or of a position not solved."""
_OPEN = 32000


@njit
def locate(me: int, opp: int, kings: int, black: bool, offsets: Array) -> int:
    """Where a position (ghost-bit bitboards, ``black`` to move) lies in the flat distance array, or -1 if it is not
    a kings-only position of a solved table."""
    if (me | opp) & ~kings:
        return -1
    own = compact(me)
    theirs = compact(opp)
    if not black:
        own = rotate(own)
        theirs = rotate(theirs)
    b = popcount(own)
    d = popcount(theirs)
    if b == 0 or d == 0 or b + d > egdb.MAX_COUNT - 1:
        return -1
    offset = offsets[sig_id(0, b, 0, d)]
    if offset < 0:
        return -1
    return int(offset + index_of(0, own, 0, theirs))


@njit
def _start(
    b: int,
    d: int,
    offset: int,
    db: Array,
    k: t.Constants,
    dist: Distances,
    values: Values,
    offsets: Array,
    pending: Distances,
    counts: Distances,
    longest: Distances,
) -> None:
    """Step 1 for the table ``(0, b, 0, d)`` at ``offset`` in the flat arrays."""
    size = egdb.BINOMIAL[32, b] * egdb.BINOMIAL[32 - b, d]
    base = db[1 + sig_id(0, b, 0, d)]
    buf = np.zeros((2, mg.MAX_MOVES), dtype=np.int64)
    stack = np.zeros((mg.STACK_DEPTH, 4), dtype=np.int64)
    for i in range(size):
        g = offset + i
        _, kings, _, their_kings, _ = position_at(i, 0, b, 0, d)
        value = value_at(db, base + i)
        values[g] = value
        dist[g] = NO_DISTANCE
        pending[g] = _OPEN
        counts[g] = 0
        longest[g] = 0
        if value != WIN and value != LOSS:
            continue
        me = expand(kings)
        opp = expand(their_kings)
        n = mg.generate(me, opp, me | opp, True, k, buf, 0, stack)
        best = _OPEN
        worst = 0
        inside = 0
        for j in range(n):
            c_me, c_opp, c_kings = mg.apply(me, opp, me | opp, True, buf[0, j], k)
            if not c_me:
                best = 1
                continue
            if popcount(c_me) == d and popcount(c_opp) == b:
                inside += 1
                continue
            at = locate(c_me, c_opp, c_kings, False, offsets)
            if at < 0:
                continue  # not reached: every smaller table is solved first
            if values[at] == LOSS and dist[at] + 1 < best:
                best = dist[at] + 1
            if values[at] == WIN and dist[at] + 1 > worst:
                worst = dist[at] + 1
        if value == WIN:
            pending[g] = best
        else:
            counts[g] = inside
            longest[g] = worst
            if inside == 0:
                pending[g] = worst


@njit
def _tell_predecessors(
    i: int,
    b: int,
    d: int,
    offset: int,
    mirror_offset: int,
    level: int,
    k: t.Constants,
    dist: Distances,
    values: Values,
    pending: Distances,
    counts: Distances,
    longest: Distances,
) -> None:
    """Step 2 for position ``i`` of table ``(0, b, 0, d)``, settled at ``level``; its predecessors are in the mirror
    table at ``mirror_offset``."""
    _, kings, _, their_kings, _ = position_at(i, 0, b, 0, d)
    won = values[offset + i] == WIN
    mover = expand(rotate(their_kings))
    other = expand(rotate(kings))
    empty = k[t.VALID] & ~(mover | other)
    short = k[t.SHORT]
    long = k[t.LONG]
    pieces = mover
    while pieces:
        to = pieces & -pieces
        pieces ^= to
        for direction in range(4):
            shift = short if direction % 2 == 0 else long
            frm = to >> shift if direction < 2 else to << shift
            if not frm & empty:
                continue
            before = (mover ^ to) | frm
            if mg.jumpers(before, other, before | other, True, k):
                continue  # a capture was compulsory there: this quiet move was not legal
            g = mirror_offset + index_of(0, compact(before), 0, compact(other))
            if dist[g] != NO_DISTANCE:
                continue
            if values[g] == WIN and not won:
                if level + 1 < pending[g]:
                    pending[g] = level + 1
            elif values[g] == LOSS and won:
                counts[g] -= 1
                if level + 1 > longest[g]:
                    longest[g] = level + 1
                if counts[g] == 0:
                    pending[g] = longest[g]


@njit
def _levels(
    b: int,
    d: int,
    offset: int,
    mirror_offset: int,
    k: t.Constants,
    dist: Distances,
    values: Values,
    pending: Distances,
    counts: Distances,
    longest: Distances,
) -> int:
    """Step 2 for the pair ``(0, b, 0, d)`` and its mirror; the longest distance found."""
    size = egdb.BINOMIAL[32, b] * egdb.BINOMIAL[32 - b, d]
    tables = ((b, d, offset, mirror_offset), (d, b, mirror_offset, offset))
    last = 2 if b != d else 1
    open_ = 0
    for side in range(last):
        for i in range(size):
            v = values[tables[side][2] + i]
            if v in (WIN, LOSS):
                open_ += 1
    level = 0
    deepest = 0
    while open_ > 0 and level < _OPEN - 1:
        for side in range(last):
            sb, sd, so, mo = tables[side]
            for i in range(size):
                g = so + i
                if dist[g] == NO_DISTANCE and pending[g] == level:
                    dist[g] = level
                    deepest = level
                    open_ -= 1
                    _tell_predecessors(i, sb, sd, so, mo, level, k, dist, values, pending, counts, longest)
        level += 1
    return deepest


def kings_only_signatures(most: int) -> list[tuple[int, int]]:
    """The kings-only materials ``(kings, their kings)`` of 2 to ``most`` pieces, in an order where each comes after
    every material its captures reach."""
    return [(b, total - b) for total in range(2, most + 1) for b in range(1, total)]


def solve(db: Array, most: int = 5) -> tuple[Distances, Values, Array]:
    """The distance and the value of every kings-only position of up to ``most`` pieces, as flat arrays, with each
    table's offset in them by signature id (-1 for a table not solved)."""
    if most > int(db[0]):
        raise egdb.DatabaseError(f"the databases hold {int(db[0])} pieces, not {most}")
    k = t.of(AMERICAN)
    offsets = np.full(egdb.SIGNATURES, -1, dtype=np.int64)
    sizes = {}
    total = 0
    for b, d in kings_only_signatures(most):
        offsets[egdb.signature_id(0, b, 0, d)] = total
        sizes[b, d] = egdb.table_size(0, b, 0, d)
        total += sizes[b, d]
    dist = np.full(total, NO_DISTANCE, dtype=np.int16)
    values = np.full(total, UNUSED, dtype=np.uint8)
    pending = np.zeros(total, dtype=np.int16)
    counts = np.zeros(total, dtype=np.int16)
    longest = np.zeros(total, dtype=np.int16)
    for b, d in kings_only_signatures(most):
        if b > d:
            continue  # solved with its mirror
        pair = {(b, d), (d, b)}
        for sb, sd in pair:
            _start(sb, sd, int(offsets[egdb.signature_id(0, sb, 0, sd)]), db, k, dist, values, offsets, pending,
                   counts, longest)  # fmt: skip
        _levels(
            b,
            d,
            int(offsets[egdb.signature_id(0, b, 0, d)]),
            int(offsets[egdb.signature_id(0, d, 0, b)]),
            k,
            dist,
            values,
            pending,
            counts,
            longest,
        )
    return dist, values, offsets


__all__ = ["DRAW", "LOSS", "NO_DISTANCE", "WIN", "kings_only_signatures", "locate", "solve"]
