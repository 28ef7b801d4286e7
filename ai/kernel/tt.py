"""The kernel's transposition table: a preallocated int64 array of two-entry buckets, keyed by the Zobrist key.

An entry is four words: key, move, score and ``depth + 256 | flag << 10 | generation << 12`` (0 when empty). The
first entry of a bucket keeps the deeper result (or any result of the current search over an older one), the second
takes whatever the first refuses. Scores and the mate-score conversions are ``ai/tt.py``'s.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ai import tt as reference
from ai.kernel.jit import njit

Table = npt.NDArray[np.int64]

KEY, MOVE, SCORE, META = 0, 1, 2, 3


def new_table(entries: int) -> Table:
    """An empty table of at most ``entries`` entries (rounded down to a power of two, at least two)."""
    size = 2
    while size * 2 <= entries:
        size *= 2
    return np.zeros((size, 4), dtype=np.int64)


to_tt = njit(reference.to_tt)
"""A score found ``ply`` plies below the root, made relative to its node for storing (:func:`ai.tt.to_tt`)."""
from_tt = njit(reference.from_tt)
"""A stored score, made relative to the root again (:func:`ai.tt.from_tt`)."""
mate_window = njit(reference.mate_window)
"""Mate-distance pruning (:func:`ai.tt.mate_window`)."""


@njit
def probe(table: Table, key: int) -> int:
    """The row of ``key``'s entry, or -1."""
    row = (key & (table.shape[0] // 2 - 1)) * 2
    if table[row, KEY] == key and table[row, META]:
        return int(row)
    if table[row + 1, KEY] == key and table[row + 1, META]:
        return int(row + 1)
    return -1


@njit
def depth_of(table: Table, row: int) -> int:
    return int(table[row, META] & 1023) - 256


@njit
def flag_of(table: Table, row: int) -> int:
    return int(table[row, META] >> 10) & 3


@njit
def store(table: Table, key: int, depth: int, flag: int, score: int, move: int, generation: int) -> None:
    """Record a search result (``move`` may be 0; a known move of the same position is then kept)."""
    row = (key & (table.shape[0] // 2 - 1)) * 2
    meta = table[row, META]
    if not (table[row, KEY] == key or meta == 0 or (meta >> 12) != generation or (meta & 1023) - 256 <= depth):
        row += 1
    if move == 0 and table[row, KEY] == key:
        move = table[row, MOVE]
    table[row, KEY] = key
    table[row, MOVE] = move
    table[row, SCORE] = score
    table[row, META] = (depth + 256) | (flag << 10) | (generation << 12)
