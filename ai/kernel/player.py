"""The kernel's player: ``master``'s search on the compiled kernel, behind the ``Player`` protocol of :mod:`ai.api`.

Importing this module does not import numba: the kernel is loaded on the first move (or by
:func:`ai.kernel.warm_up`, which a worker process calls when it starts so that no move waits for compilation).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ai.api import Limits, SearchResult
from core import Board

DEFAULT_TABLE_ENTRIES = 1 << 20
"""Transposition-table entries per variant and process (32 bytes each: 32 MiB)."""


@dataclass(frozen=True)
class KernelPlayer:
    """Iterative-deepening PVS on the compiled kernel with ``master``'s evaluation (all three variants)."""

    table_entries: int = DEFAULT_TABLE_ENTRIES
    """The size of the transposition table, rounded down to a power of two."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        from ai.kernel import engine

        return engine.search(board, limits, rng, table_entries=self.table_entries)
