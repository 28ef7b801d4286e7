"""Distance to the end of the game in small endings, compiled: how many plies a won position needs against the
longest defence, and how many plies a lost position lasts against the quickest win.

The endgame databases (:mod:`ai.kernel.retro`) hold win, loss or draw only. Here their tables are solved again for
the distance, the databases' values taken as given, pair by pair in the databases' order (:func:`ai.egdb.pairs`): a
signature ``(a, b, c, d)`` and its mirror ``(c, d, a, b)`` reach each other by quiet moves, and every capture or
crowning leads to a table solved before.

1. *Start*: every won or lost position gets what its moves out of the pair promise (a capture of the last piece ends
   the game in one ply; a move into an earlier table adds one ply to that table's distance: the least over the moves
   into a lost position for a win, the most over every such move for a loss) and a lost position counts its moves
   inside the pair.
2. *Levels*: for n = 0, 1, … every position whose distance is n is settled, and each position one quiet move before it
   (found by un-moving a piece of the side that just moved, kept only if that side had no capture there) hears of it:
   a won one may now win in n + 1, a lost one counts one reply fewer and, with none left, lasts its longest.

A distance counts plies to the end of the game (the last piece taken, or the loser blocked) and ignores the draw rules,
like the databases; the winner's side of it is ``(plies + 1) // 2`` of its own moves. Draws get :data:`NO_DISTANCE`.
:func:`solve` does it for the tables of kings only (five pieces: 6.5 million positions, about 7 s on one core) or for
every table (four pieces: 6.6 million, about 5 s; five would be 150 million).
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
    """Where a position (ghost-bit bitboards, ``black`` to move) lies in the flat arrays, or -1 if its table was not
    solved."""
    men = compact(me & ~kings)
    own_kings = compact(me & kings)
    their_men = compact(opp & ~kings)
    their_kings = compact(opp & kings)
    if not black:
        men = rotate(men)
        own_kings = rotate(own_kings)
        their_men = rotate(their_men)
        their_kings = rotate(their_kings)
    a = popcount(men)
    b = popcount(own_kings)
    c = popcount(their_men)
    d = popcount(their_kings)
    if a + b == 0 or c + d == 0 or a + b + c + d > egdb.MAX_COUNT - 1:
        return -1
    offset = offsets[sig_id(a, b, c, d)]
    if offset < 0:
        return -1
    return int(offset + index_of(men, own_kings, their_men, their_kings))


@njit
def _size(a: int, b: int, c: int, d: int) -> int:
    free = egdb.SQUARES - a - c
    return int(
        egdb.BINOMIAL[egdb.MAN_SQUARES, a]
        * egdb.BINOMIAL[egdb.MAN_SQUARES, c]
        * egdb.BINOMIAL[free, b]
        * egdb.BINOMIAL[free - b, d]
    )


@njit
def _start(
    a: int,
    b: int,
    c: int,
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
    """Step 1 for the table ``(a, b, c, d)`` at ``offset`` in the flat arrays."""
    size = _size(a, b, c, d)
    base = db[1 + sig_id(a, b, c, d)]
    buf = np.zeros((2, mg.MAX_MOVES), dtype=np.int64)
    stack = np.zeros((mg.STACK_DEPTH, 4), dtype=np.int64)
    for i in range(size):
        g = offset + i
        men, kings, their_men, their_kings, used = position_at(i, a, b, c, d)
        value = value_at(db, base + i) if used else UNUSED
        values[g] = value
        dist[g] = NO_DISTANCE
        pending[g] = _OPEN
        counts[g] = 0
        longest[g] = 0
        if value != WIN and value != LOSS:
            continue
        me = expand(men | kings)
        opp = expand(their_men | their_kings)
        all_kings = expand(kings | their_kings)
        n = mg.generate(me, opp, all_kings, True, k, buf, 0, stack)
        best = _OPEN
        worst = 0
        inside = 0
        for j in range(n):
            c_me, c_opp, c_kings = mg.apply(me, opp, all_kings, True, buf[0, j], k)
            if not c_me:
                best = 1
                continue
            if (
                popcount(c_me & ~c_kings) == c
                and popcount(c_me & c_kings) == d
                and popcount(c_opp & ~c_kings) == a
                and popcount(c_opp & c_kings) == b
            ):
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
    sig: tuple[int, int, int, int],
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
    """Step 2 for position ``i`` of table ``sig``, settled at ``level``; its predecessors are in the mirror table at
    ``mirror_offset`` (as in :func:`ai.kernel.retro._tell_predecessors`)."""
    men, kings, their_men, their_kings, _ = position_at(i, sig[0], sig[1], sig[2], sig[3])
    won = values[offset + i] == WIN
    mover = expand(rotate(their_men) | rotate(their_kings))
    other = expand(rotate(men) | rotate(kings))
    all_kings = expand(rotate(kings) | rotate(their_kings))
    empty = k[t.VALID] & ~(mover | other)
    short = k[t.SHORT]
    long = k[t.LONG]
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
            g = mirror_offset + index_of(
                compact(before & ~before_kings),
                compact(before & before_kings),
                compact(other & ~before_kings),
                compact(other & before_kings),
            )
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
    sig: tuple[int, int, int, int],
    offset: int,
    mirror_offset: int,
    k: t.Constants,
    dist: Distances,
    values: Values,
    pending: Distances,
    counts: Distances,
    longest: Distances,
) -> int:
    """Step 2 for the pair of ``sig`` and its mirror; the longest distance found."""
    mirror = (sig[2], sig[3], sig[0], sig[1])
    size = _size(sig[0], sig[1], sig[2], sig[3])
    sides = 1 if mirror == sig else 2
    open_ = 0
    for side in range(sides):
        base = offset if side == 0 else mirror_offset
        for i in range(size):
            if values[base + i] in (WIN, LOSS):
                open_ += 1
    level = 0
    deepest = 0
    while open_ > 0 and level < _OPEN - 1:
        for side in range(sides):
            here, there = (offset, mirror_offset) if side == 0 else (mirror_offset, offset)
            table = sig if side == 0 else mirror
            for i in range(size):
                g = here + i
                if dist[g] == NO_DISTANCE and pending[g] == level:
                    dist[g] = level
                    deepest = level
                    open_ -= 1
                    _tell_predecessors(i, table, here, there, level, k, dist, values, pending, counts, longest)
        level += 1
    return deepest


def signatures(most: int, *, kings_only: bool) -> list[tuple[int, int, int, int]]:
    """The materials of 2 to ``most`` pieces (of kings only, or all), in the databases' order of solving: each after
    every material its captures and crownings reach."""
    return [sig for sig in egdb.signatures(most) if not kings_only or sig[0] == sig[2] == 0]


def solve(db: Array, most: int, *, kings_only: bool = True) -> tuple[Distances, Values, Array]:
    """The distance and the value of every position of up to ``most`` pieces (of kings only, or with men too), as flat
    arrays, with each table's offset in them by signature id (-1 for a table not solved)."""
    if most > int(db[0]):
        raise egdb.DatabaseError(f"the databases hold {int(db[0])} pieces, not {most}")
    k = t.of(AMERICAN)
    offsets = np.full(egdb.SIGNATURES, -1, dtype=np.int64)
    total = 0
    chosen = signatures(most, kings_only=kings_only)
    for sig in chosen:
        offsets[egdb.signature_id(*sig)] = total
        total += egdb.table_size(*sig)
    dist = np.full(total, NO_DISTANCE, dtype=np.int16)
    values = np.full(total, UNUSED, dtype=np.uint8)
    pending = np.zeros(total, dtype=np.int16)
    counts = np.zeros(total, dtype=np.int16)
    longest = np.zeros(total, dtype=np.int16)
    done: set[tuple[int, int, int, int]] = set()
    for sig in chosen:
        if sig in done:
            continue
        mirror = (sig[2], sig[3], sig[0], sig[1])
        done.update((sig, mirror))
        for side in {sig, mirror}:
            where = int(offsets[egdb.signature_id(*side)])
            _start(*side, where, db, k, dist, values, offsets, pending, counts, longest)
        where, there = int(offsets[egdb.signature_id(*sig)]), int(offsets[egdb.signature_id(*mirror)])
        _levels(sig, where, there, k, dist, values, pending, counts, longest)
    return dist, values, offsets


__all__ = ["DRAW", "LOSS", "NO_DISTANCE", "WIN", "locate", "signatures", "solve"]
