"""The pure-Python search's transposition table: search results keyed by the Zobrist hash of the position.

An entry is ``(depth, flag, score, move, generation)``, its score stored relative to the node (:func:`ai.tt.to_tt`).
Replacement prefers the deeper result of the current search; the table is emptied when it grows past its size.
"""

from __future__ import annotations

from ai.tt import EXACT
from core.movegen import RawMove

Entry = tuple[int, int, int, RawMove | None, int]


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
