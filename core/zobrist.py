"""Zobrist keys: one random 64-bit number per (colour, piece kind, bit), built once at import from a fixed seed."""

from __future__ import annotations

import random

_rng = random.Random(0x4B494E47)  # "KING": fixed, so hashes are the same in every process
_BITS = 40

BLACK_MAN: dict[int, int] = {1 << i: _rng.getrandbits(64) for i in range(_BITS)}
BLACK_KING: dict[int, int] = {1 << i: _rng.getrandbits(64) for i in range(_BITS)}
WHITE_MAN: dict[int, int] = {1 << i: _rng.getrandbits(64) for i in range(_BITS)}
WHITE_KING: dict[int, int] = {1 << i: _rng.getrandbits(64) for i in range(_BITS)}
WHITE_TO_MOVE: int = _rng.getrandbits(64)


def hash_position(black: int, white: int, kings: int, white_to_move: bool) -> int:
    """The Zobrist hash of a position, computed from scratch."""
    h = WHITE_TO_MOVE if white_to_move else 0
    for board, men, kings_table in ((black, BLACK_MAN, BLACK_KING), (white, WHITE_MAN, WHITE_KING)):
        while board:
            low = board & -board
            board ^= low
            h ^= kings_table[low] if low & kings else men[low]
    return h


ZobristTables = tuple[dict[int, int], dict[int, int], dict[int, int], dict[int, int]]
MOVER_TABLES: dict[bool, ZobristTables] = {
    True: (BLACK_MAN, BLACK_KING, WHITE_MAN, WHITE_KING),
    False: (WHITE_MAN, WHITE_KING, BLACK_MAN, BLACK_KING),
}
"""For a mover (``True`` for Black): its men's and kings' keys, then the opponent's men's and kings' keys."""
