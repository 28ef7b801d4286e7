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
every table a database holds (four pieces: 6.6 million, about 5 s; the part of the six-piece tables that holds Second
Position, with every table of up to five pieces: 780 million, see ``docs/endgames.md``).
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
    expand,
    index_of,
    oriented,
    position_at,
    sig_id,
    value_at,
)
from ai.kernel.jit import njit, popcount
from ai.kernel.retro import MAX_PREDECESSORS, predecessors
from core import AMERICAN

Distances = npt.NDArray[np.int16]
Work = npt.NDArray[np.int16]
"""The solving's own rows, by position: :data:`PENDING`, :data:`COUNT`, :data:`LONGEST`."""
PENDING, COUNT, LONGEST = 0, 1, 2
"""The level a position settles at as far as is known yet; a lost position's replies not yet settled; the longest
defence found so far."""
Values = npt.NDArray[np.uint8]
NO_DISTANCE = -1
"""The distance of a draw, or of a position not solved."""
_OPEN = 32000


@njit
def locate(me: int, opp: int, kings: int, black: bool, offsets: Array) -> int:
    """Where a position (ghost-bit bitboards, ``black`` to move) lies in the flat arrays, or -1 if its table was not
    solved."""
    men, own_kings, their_men, their_kings = oriented(me, opp, kings, black)
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
    work: Work,
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
        work[PENDING, g] = _OPEN
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
            work[PENDING, g] = best
        else:
            work[COUNT, g] = inside
            work[LONGEST, g] = worst
            if inside == 0:
                work[PENDING, g] = worst


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
    work: Work,
    found: Array,
) -> None:
    """Step 2 for position ``i`` of table ``sig``, settled at ``level``; its predecessors are in the mirror table at
    ``mirror_offset``."""
    men, kings, their_men, their_kings, _ = position_at(i, sig[0], sig[1], sig[2], sig[3])
    won = values[offset + i] == WIN
    for j in range(predecessors(men, kings, their_men, their_kings, k, found)):
        g = mirror_offset + found[j]
        if dist[g] != NO_DISTANCE:
            continue
        if values[g] == WIN and not won:
            if level + 1 < work[PENDING, g]:
                work[PENDING, g] = level + 1
        elif values[g] == LOSS and won:
            work[COUNT, g] -= 1
            if level + 1 > work[LONGEST, g]:
                work[LONGEST, g] = level + 1
            if work[COUNT, g] == 0:
                work[PENDING, g] = work[LONGEST, g]


@njit
def _levels(
    sig: tuple[int, int, int, int],
    offset: int,
    mirror_offset: int,
    k: t.Constants,
    dist: Distances,
    values: Values,
    work: Work,
) -> int:
    """Step 2 for the pair of ``sig`` and its mirror; the longest distance found."""
    found = np.zeros(MAX_PREDECESSORS, dtype=np.int64)
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
                if dist[g] == NO_DISTANCE and work[PENDING, g] == level:
                    dist[g] = level
                    deepest = level
                    open_ -= 1
                    _tell_predecessors(i, table, here, there, level, k, dist, values, work, found)
        level += 1
    return deepest


def signatures(most: int, *, kings_only: bool) -> list[tuple[int, int, int, int]]:
    """The materials of 2 to ``most`` pieces (of kings only, or all), in the databases' order of solving: each after
    every material its captures and crownings reach."""
    return [sig for sig in egdb.signatures(most) if not kings_only or sig[0] == sig[2] == 0]


def held(db: Array, most: int, *, kings_only: bool) -> list[tuple[int, int, int, int]]:
    """The materials of :func:`signatures` whose tables ``db`` holds (all of them, or a part of its largest)."""
    return [sig for sig in signatures(most, kings_only=kings_only) if db[1 + egdb.signature_id(*sig)] >= 0]


def solve(db: Array, most: int, *, kings_only: bool = True) -> tuple[Distances, Values, Array]:
    """The distance and the value of every position of up to ``most`` pieces (of kings only, or with men too) in the
    tables ``db`` holds (all of them, or a part of its largest: :class:`ai.egdb.Only`), as flat arrays, with each
    table's offset in them by signature id (-1 for a table not solved)."""
    if most > int(db[0]):
        raise egdb.DatabaseError(f"the databases hold {int(db[0])} pieces, not {most}")
    k = t.of(AMERICAN)
    offsets = np.full(egdb.SIGNATURES, -1, dtype=np.int64)
    total = 0
    chosen = held(db, most, kings_only=kings_only)
    for sig in chosen:
        offsets[egdb.signature_id(*sig)] = total
        total += egdb.table_size(*sig)
    dist = np.full(total, NO_DISTANCE, dtype=np.int16)
    values = np.full(total, UNUSED, dtype=np.uint8)
    work = np.zeros((3, total), dtype=np.int16)
    done: set[tuple[int, int, int, int]] = set()
    for sig in chosen:
        if sig in done:
            continue
        mirror = (sig[2], sig[3], sig[0], sig[1])
        done.update((sig, mirror))
        for side in {sig, mirror}:
            where = int(offsets[egdb.signature_id(*side)])
            _start(*side, where, db, k, dist, values, offsets, work)
        where, there = int(offsets[egdb.signature_id(*sig)]), int(offsets[egdb.signature_id(*mirror)])
        _levels(sig, where, there, k, dist, values, work)
    return dist, values, offsets


__all__ = ["DRAW", "LOSS", "NO_DISTANCE", "WIN", "held", "locate", "signatures", "solve"]
