"""Endgame databases in the kernel: the index of a position in its material's table, and the probe the search calls.

A position is always indexed from the side to move, turned so that it moves towards higher bits (Black's way): a
position with White to move is rotated half a turn first (square ``n`` becomes ``33 - n``). Its *signature* is the
side to move's men and kings and the opponent's men and kings, ``(a, b, c, d)``; the table of a signature orders its
positions by a combinatorial index (squares are numbered 0 to 31, ghost bits left out):

- the mover's ``a`` men, a combination of the 28 squares 0–27 (a man never stands on its crowning row);
- the opponent's ``c`` men, a combination of the 28 squares 4–31 (an index where both sides' men share a square is
  unused: it costs some room and no arithmetic);
- the mover's ``b`` kings, a combination of the squares no man stands on; then the opponent's ``d`` kings, of the
  squares still free.

The index is ``((men * C(28, c) + their_men) * C(free, b) + kings) * C(free - b, d) + their_kings``, each combination
ranked in colex order. Every table is packed at 2 bits a position into one int64 array, the *database array*: word 0
holds the most pieces it covers, words 1 to :data:`ai.egdb.SIGNATURES` the offset (in positions) of each signature's
table or -1, and the values follow from word :data:`~ai.egdb.HEADER`, 32 positions a word (:mod:`ai.egdb` holds these
constants, the file and the loading, without numba). A value is :data:`DRAW`, :data:`WIN` or :data:`LOSS` for the side
to move, or :data:`UNUSED` for an index that is no position.
"""

from __future__ import annotations

from ai.egdb import BINOMIAL, DRAW, HEADER, LOSS, MAN_SQUARES, SQUARES, UNKNOWN, UNUSED, WIN, Array, signature_id
from ai.kernel.jit import lowest_bit, njit, popcount

__all__ = ["DRAW", "HEADER", "LOSS", "UNKNOWN", "UNUSED", "WIN", "Array"]

sig_id = njit(signature_id)


@njit
def compact(board: int) -> int:
    """A ghost-bit bitboard of the 8×8 board as a 32-bit mask of square indexes (square ``n`` at bit ``n - 1``)."""
    return (board & 0xFF) | ((board >> 9) & 0xFF) << 8 | ((board >> 18) & 0xFF) << 16 | ((board >> 27) & 0xFF) << 24


@njit
def expand(mask: int) -> int:
    """The inverse of :func:`compact`."""
    return (mask & 0xFF) | ((mask >> 8) & 0xFF) << 9 | ((mask >> 16) & 0xFF) << 18 | ((mask >> 24) & 0xFF) << 27


@njit
def rotate(mask: int) -> int:
    """A square mask turned half a turn: square index ``i`` becomes ``31 - i``."""
    result = 0
    while mask:
        i = lowest_bit(mask)
        mask &= mask - 1
        result |= 1 << (31 - i)
    return result


@njit
def _rank(mask: int, skip: int, base: int) -> int:
    """The colex rank of the squares of ``mask``, each numbered among the squares from ``base`` not in ``skip``."""
    rank = 0
    i = 1
    while mask:
        square = lowest_bit(mask)
        mask &= mask - 1
        rank += BINOMIAL[square - base - popcount(skip & ((1 << square) - 1)), i]
        i += 1
    return rank


@njit
def _unrank(rank: int, count: int, skip: int, base: int) -> int:
    """The mask of ``count`` squares whose :func:`_rank` is ``rank``."""
    mask = 0
    for i in range(count, 0, -1):
        p = i - 1
        while BINOMIAL[p + 1, i] <= rank:
            p += 1
        rank -= BINOMIAL[p, i]
        square = base - 1
        left = p
        while True:
            square += 1
            if not skip & (1 << square):
                if left == 0:
                    break
                left -= 1
        mask |= 1 << square
    return mask


@njit
def index_of(men: int, kings: int, their_men: int, their_kings: int) -> int:
    """The index of a position (square masks, the side to move moving up) in its signature's table."""
    a = popcount(men)
    b = popcount(kings)
    c = popcount(their_men)
    d = popcount(their_kings)
    all_men = men | their_men
    free = SQUARES - a - c
    i = _rank(men, 0, 0)
    i = i * BINOMIAL[MAN_SQUARES, c] + _rank(their_men, 0, SQUARES - MAN_SQUARES)
    i = i * BINOMIAL[free, b] + _rank(kings, all_men, 0)
    return int(i * BINOMIAL[free - b, d] + _rank(their_kings, all_men | kings, 0))


@njit
def position_at(index: int, a: int, b: int, c: int, d: int) -> tuple[int, int, int, int, bool]:
    """The square masks ``(men, kings, their men, their kings)`` at ``index`` of signature ``(a, b, c, d)``'s table,
    and whether the index is a position (no two men on one square)."""
    free = SQUARES - a - c
    size_d = BINOMIAL[free - b, d]
    size_b = BINOMIAL[free, b]
    size_c = BINOMIAL[MAN_SQUARES, c]
    r_d = index % size_d
    index //= size_d
    r_b = index % size_b
    index //= size_b
    r_c = index % size_c
    r_a = index // size_c
    men = _unrank(r_a, a, 0, 0)
    their_men = _unrank(r_c, c, 0, SQUARES - MAN_SQUARES)
    if men & their_men:
        return men, 0, their_men, 0, False
    all_men = men | their_men
    kings = _unrank(r_b, b, all_men, 0)
    their_kings = _unrank(r_d, d, all_men | kings, 0)
    return men, kings, their_men, their_kings, True


@njit
def value_at(db: Array, position: int) -> int:
    """The 2-bit value at ``position`` (a table's offset plus an index) of the database array."""
    return int((db[HEADER + (position >> 5)] >> ((position & 31) * 2)) & 3)


@njit
def oriented(me: int, opp: int, kings: int, black: bool) -> tuple[int, int, int, int]:
    """A position of ghost-bit bitboards (``black`` to move) as the square masks a table indexes: ``(men, kings, their
    men, their kings)``, turned so that the side to move moves up."""
    men = compact(me & ~kings)
    own_kings = compact(me & kings)
    their_men = compact(opp & ~kings)
    their_kings = compact(opp & kings)
    if not black:
        return rotate(men), rotate(own_kings), rotate(their_men), rotate(their_kings)
    return men, own_kings, their_men, their_kings


@njit
def probe(me: int, opp: int, kings: int, black: bool, db: Array) -> int:
    """The value of a position of English draughts (ghost-bit bitboards, as the search holds it) for the side to move,
    or :data:`UNKNOWN` if ``db`` has no table for its material."""
    men, own_kings, their_men, their_kings = oriented(me, opp, kings, black)
    a = popcount(men)
    b = popcount(own_kings)
    c = popcount(their_men)
    d = popcount(their_kings)
    if a + b + c + d > db[0]:  # db[0] is at most 6, so every count is below MAX_COUNT
        return UNKNOWN
    offset = db[1 + sig_id(a, b, c, d)]
    if offset < 0:
        return UNKNOWN
    return value_at(db, offset + index_of(men, own_kings, their_men, their_kings))
