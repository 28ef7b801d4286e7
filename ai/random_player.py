"""The ``easy`` level: a uniformly random legal move (seed 002, "Easy": a random choice among all legal moves)."""

from __future__ import annotations

import random

from ai.api import Limits, SearchResult
from core import Board


class RandomPlayer:
    """Plays a uniformly random legal move."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        moves = board.legal_moves
        move = rng.choice(moves)
        return SearchResult(move=move.text(), pv=(move.text(),), nodes=len(moves))
