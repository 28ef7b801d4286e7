"""The kernel's player: ``master``'s search on the compiled kernel, behind the ``Player`` protocol of :mod:`ai.api`.

Importing this module does not import numba: the kernel is loaded on the first move (or by
:func:`ai.kernel.warm_up`, which a worker process calls when it starts so that no move waits for compilation).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

from ai.player import Limits, SearchResult
from core import Board

DEFAULT_TABLE_ENTRIES = 1 << 20
"""Transposition-table entries per variant and process (32 bytes each: 32 MiB)."""


@dataclass(frozen=True)
class KernelPlayer:
    """Iterative-deepening PVS on the compiled kernel with ``master``'s evaluation (all three variants)."""

    table_entries: int = DEFAULT_TABLE_ENTRIES
    """The size of the transposition table, rounded down to a power of two. Players of different sizes keep separate
    tables in a process, so two levels that play each other there do not share what they learnt."""
    max_depth: int | None = None
    """A cap on the nominal depth whatever the limits say (``hard``); captures are still read to the end."""
    endgames: bool = False
    """Probe the endgame databases (:mod:`ai.egdb`) in the search, in English draughts when one is installed."""
    weights: tuple[int, ...] | None = None
    """The evaluation's weights in :data:`ai.features.FEATURES` order (default: ``master``'s, from
    ``ai/data/kernel_weights.json``); for tuning them (``benchmarks/tuning.py``)."""
    patterns: bool = True
    """Add the learned pattern evaluation (:mod:`ai.patterns`) in English draughts; false plays the features alone."""
    network: bool = False
    """Add the small network (:mod:`ai.kernel.network`) in English draughts (``master``; its weights are fitted on what
    the features and the patterns miss)."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        from ai.kernel import engine

        if self.max_depth is not None:
            limits = dataclasses.replace(limits, depth=min(limits.depth or self.max_depth, self.max_depth))
        return engine.search(
            board, limits, rng, table_entries=self.table_entries, endgames=self.endgames, weights=self.weights,
            patterns=self.patterns, network=self.network,
        )  # fmt: skip
