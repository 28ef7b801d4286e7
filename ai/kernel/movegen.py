"""Compiled move generation, counting and make on int64 bitboards: ``core/movegen.py`` for the kernel.

A node is ``(me, opp, kings, black)`` as in ``core``. A move is one int64: the captured pieces' mask in the low 40 bits,
the start square's bit index at :data:`FROM_SHIFT` and the landing square's at :data:`TO_SHIFT`. Moves are written to
row 0 of a ``buf`` array from an offset the caller chooses (one block of :data:`MAX_MOVES` per ply), and the landing
squares of a capture (square indexes, 5 bits each) to row 1, so that a move can be written as ``core`` writes it.

Captures follow ``core``'s search order exactly (a depth-first search with a stack, directions short then long,
forward then backward), so where a king can take the same pieces in two orders the kernel keeps the path ``core`` keeps.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ai.kernel import tables as t
from ai.kernel.jit import lowest_bit, njit, popcount

Buffer = npt.NDArray[np.int64]

FROM_SHIFT = 40
TO_SHIFT = 46
CAPTURED = (1 << 40) - 1
PASS = 1 << 56
"""The pass of a blocked side where the variant passes; no other move has that bit."""
NO_MOVE = 0
"""No move: a real move always has a start and a landing square that differ or a capture."""
MAX_MOVES = 128
"""Room for one node's moves in a buffer (no position of the three variants comes near it)."""
STACK_DEPTH = 64


def new_buffer(plies: int, rows: int = 2) -> Buffer:
    """A move buffer for ``plies`` nodes: rows of moves, capture paths and (for the search) ordering scores."""
    return np.zeros((rows, plies * MAX_MOVES), dtype=np.int64)


def new_stack() -> Buffer:
    """Scratch space for the capture search."""
    return np.zeros((STACK_DEPTH, 4), dtype=np.int64)


@njit
def pack(frm: int, to: int, captured: int) -> int:
    """A move from bit index ``frm`` to bit index ``to`` taking the pieces of mask ``captured``."""
    return captured | (frm << FROM_SHIFT) | (to << TO_SHIFT)


@njit
def _movers(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> tuple[int, int, int]:
    """The empty squares, and the pieces of the side to move that move up (towards higher bits) and down."""
    back = me & kings
    return k[t.VALID] & ~(me | opp), (me if black else back), (back if black else me)


@njit
def jumpers(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> int:
    """The pieces of the side to move that have a jump."""
    s = k[t.SHORT]
    l = k[t.LONG]
    empty, up, down = _movers(me, opp, kings, black, k)
    result = 0
    if up:
        result |= (((((up << s) & opp) << s) & empty) >> (2 * s)) | (((((up << l) & opp) << l) & empty) >> (2 * l))
    if down:
        result |= (((((down >> s) & opp) >> s) & empty) << (2 * s)) | (((((down >> l) & opp) >> l) & empty) << (2 * l))
    return result


@njit
def step_count(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> int:
    """The number of non-capturing steps of the side to move (bulk-counted)."""
    s = k[t.SHORT]
    l = k[t.LONG]
    empty, up, down = _movers(me, opp, kings, black, k)
    return (
        popcount((up << s) & empty)
        + popcount((up << l) & empty)
        + popcount((down >> s) & empty)
        + popcount((down >> l) & empty)
    )


@njit
def _emit(buf: Buffer, n: int, frm: int, to: int, captured: int, path: int) -> int:
    buf[0, n] = pack(lowest_bit(frm), lowest_bit(to), captured)
    buf[1, n] = path
    return n + 1


@njit
def _unique(buf: Buffer, first: int, n: int) -> int:
    """Keep the first of the moves in ``first:n`` with the same start, end and captured set; the new end."""
    w = first
    for i in range(first, n):
        move = buf[0, i]
        seen = False
        for j in range(first, w):
            if buf[0, j] == move:
                seen = True
                break
        if not seen:
            buf[0, w] = move
            buf[1, w] = buf[1, i]
            w += 1
    return w


@njit
def captures(me: int, opp: int, kings: int, black: bool, k: t.Constants, buf: Buffer, at: int, stack: Buffer) -> int:
    """Write every capture from ``at`` on; return the end offset."""
    s = k[t.SHORT]
    l = k[t.LONG]
    empty = k[t.VALID] & ~(me | opp)
    crown = k[t.BLACK_CROWN] if black else k[t.WHITE_CROWN]
    multi = k[t.MULTI_JUMP] != 0
    group = k[t.GROUP]
    n = at
    sources = jumpers(me, opp, kings, black, k)
    while sources:
        frm = sources & -sources
        sources ^= frm
        king = (frm & kings) != 0
        # Directions 0..3 are +short, +long, -short, -long: a king uses all four, a man its two forward ones.
        first_dir = 0 if king or black else 2
        last_dir = 4 if king or not black else 2
        free = empty | frm
        first = n
        stack[0, 0] = frm
        stack[0, 1] = 0
        stack[0, 2] = 0
        stack[0, 3] = 0
        sp = 1
        while sp:
            sp -= 1
            pos = stack[sp, 0]
            taken = stack[sp, 1]
            path = stack[sp, 2]
            length = stack[sp, 3]
            found = False
            for d in range(first_dir, last_dir):
                shift = s if d % 2 == 0 else l
                if d < 2:
                    mid = pos << shift
                    land = mid << shift
                else:
                    mid = pos >> shift
                    land = mid >> shift
                if mid & opp and not mid & taken and land & free:
                    found = True
                    index = lowest_bit(land)
                    longer = path | ((index - index // group) << (5 * length))
                    if multi and (king or not land & crown):
                        stack[sp, 0] = land
                        stack[sp, 1] = taken | mid
                        stack[sp, 2] = longer
                        stack[sp, 3] = length + 1
                        sp += 1
                    else:
                        n = _emit(buf, n, frm, land, taken | mid, longer)
            if not found and taken:
                n = _emit(buf, n, frm, pos, taken, path)
        if king and n - first > 1:
            n = _unique(buf, first, n)
    return n


@njit
def steps(me: int, opp: int, kings: int, black: bool, k: t.Constants, buf: Buffer, at: int) -> int:
    """Write every non-capturing step from ``at`` on (call only without a capture); return the end offset."""
    empty, up, down = _movers(me, opp, kings, black, k)
    n = at
    for shift in (k[t.SHORT], k[t.LONG]):
        targets = (up << shift) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            index = lowest_bit(to)
            buf[0, n] = (index - shift) << FROM_SHIFT | index << TO_SHIFT
            n += 1
        targets = (down >> shift) & empty
        while targets:
            to = targets & -targets
            targets ^= to
            index = lowest_bit(to)
            buf[0, n] = (index + shift) << FROM_SHIFT | index << TO_SHIFT
            n += 1
    return n


@njit
def generate(me: int, opp: int, kings: int, black: bool, k: t.Constants, buf: Buffer, at: int, stack: Buffer) -> int:
    """Write every legal move (no pass) from ``at`` on: the captures if there are any, else the steps."""
    if jumpers(me, opp, kings, black, k):
        return captures(me, opp, kings, black, k, buf, at, stack)
    return steps(me, opp, kings, black, k, buf, at)


@njit
def count(me: int, opp: int, kings: int, black: bool, k: t.Constants, buf: Buffer, at: int, stack: Buffer) -> int:
    """The number of legal moves (no pass); captures are generated from ``at`` on, steps only counted."""
    if jumpers(me, opp, kings, black, k):
        return captures(me, opp, kings, black, k, buf, at, stack) - at
    return step_count(me, opp, kings, black, k)


@njit
def can_pass(me: int, opp: int, kings: int, black: bool, k: t.Constants, buf: Buffer, at: int, stack: Buffer) -> bool:
    """Whether a blocked side passes: the variant passes, both sides have pieces and the opponent can move."""
    return k[t.PASSES] != 0 and me != 0 and opp != 0 and count(opp, me, kings, not black, k, buf, at, stack) > 0


@njit
def apply(me: int, opp: int, kings: int, black: bool, move: int, k: t.Constants) -> tuple[int, int, int]:
    """The child node's ``(me, opp, kings)`` after ``move``, sides swapped (so ``me`` is the opponent's pieces)."""
    if move == PASS:
        return opp, me, kings
    frm = 1 << ((move >> FROM_SHIFT) & 63)
    to = 1 << ((move >> TO_SHIFT) & 63)
    taken = move & CAPTURED
    mover = (me ^ frm) | to
    if kings & frm:
        kings = ((kings ^ frm) | to) & ~taken
    else:
        kings = (kings & ~taken) | (to & (k[t.BLACK_CROWN] if black else k[t.WHITE_CROWN]))
    return opp & ~taken, mover, kings


@njit
def key_after(h: int, kings: int, black: bool, move: int, k: t.Constants) -> int:
    """The Zobrist key after ``move`` from a node with key ``h`` and kings ``kings`` (``core.Board.push``'s update)."""
    h ^= k[t.SIDE_KEY]
    if move == PASS:
        return h
    frm = (move >> FROM_SHIFT) & 63
    to = (move >> TO_SHIFT) & 63
    own = t.ZOBRIST + (0 if black else 128)
    other = t.ZOBRIST + (128 if black else 0)
    if kings & (1 << frm):
        h ^= k[own + 64 + frm] ^ k[own + 64 + to]
    elif (1 << to) & (k[t.BLACK_CROWN] if black else k[t.WHITE_CROWN]):
        h ^= k[own + frm] ^ k[own + 64 + to]
    else:
        h ^= k[own + frm] ^ k[own + to]
    taken = move & CAPTURED
    while taken:
        index = lowest_bit(taken)
        taken &= taken - 1
        h ^= k[other + (64 if kings & (1 << index) else 0) + index]
    return h


@njit
def clock_after(clock: int, kings: int, move: int) -> int:
    """The count of plies since the last capture or man move, after ``move`` (a pass counts as a ply)."""
    if move == PASS:
        return clock + 1
    if move & CAPTURED or not kings & (1 << ((move >> FROM_SHIFT) & 63)):
        return 0
    return clock + 1


@njit
def key_of(black_pieces: int, white_pieces: int, kings: int, white_to_move: bool, k: t.Constants) -> int:
    """The Zobrist key of a position from scratch (``core.zobrist.hash_position``)."""
    h = k[t.SIDE_KEY] if white_to_move else 0
    for row, board in ((0, black_pieces), (2, white_pieces)):
        while board:
            index = lowest_bit(board)
            board &= board - 1
            h ^= k[t.ZOBRIST + 64 * (row + (1 if kings & (1 << index) else 0)) + index]
    return h
