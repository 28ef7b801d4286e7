"""A transposition table for ``master``: search results keyed by the Zobrist hash of the position.

An entry is ``(depth, flag, score, move, generation)``. Mate scores are stored relative to the node (see
:func:`to_tt`/:func:`from_tt`) so that they stay right wherever the position turns up again. Replacement prefers the
deeper result of the current search; the table is emptied when it grows past its size.
"""

from __future__ import annotations

from core.movegen import RawMove

EXACT, LOWER, UPPER = 0, 1, 2
MATE = 1_000_000
MATE_BOUND = MATE - 10_000
"""Scores beyond this are won or lost games (``MATE - ply``)."""

Entry = tuple[int, int, int, RawMove | None, int]


def to_tt(score: int, ply: int) -> int:
    """A score found ``ply`` plies below the root, made relative to its node for storing."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def from_tt(score: int, ply: int) -> int:
    """A stored score, made relative to the root again."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


def mate_window(alpha: int, beta: int, ply: int) -> tuple[int, int]:
    """Mate-distance pruning: ``(alpha, beta)`` narrowed to the scores a node ``ply`` plies below the root can still
    reach (the node is cut off when the window closes, ``alpha >= beta``)."""
    return max(alpha, ply - MATE), min(beta, MATE - ply - 1)


class TranspositionTable:
    """A dict from hash to :data:`Entry`, bounded by ``max_entries``."""

    __slots__ = ("entries", "generation", "max_entries")

    def __init__(self, max_entries: int = 1 << 18) -> None:
        self.entries: dict[int, Entry] = {}
        self.max_entries = max_entries
        self.generation = 0

    def new_search(self) -> None:
        """Start a new search: older entries become replaceable; empty the table if it is full."""
        self.generation += 1
        if len(self.entries) >= self.max_entries:
            self.entries.clear()

    def get(self, key: int) -> Entry | None:
        return self.entries.get(key)

    def store(self, key: int, depth: int, flag: int, score: int, move: RawMove | None) -> None:
        old = self.entries.get(key)
        if old is None or old[0] <= depth or old[4] != self.generation or flag == EXACT:
            if old is not None and move is None:
                move = old[3]
            self.entries[key] = (depth, flag, score, move, self.generation)
