"""The ``easy`` level: a uniformly random legal move."""

from __future__ import annotations

import random

from ai.player import Limits, SearchResult
from core import Board


class RandomPlayer:
    """Plays a uniformly random legal move."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        moves = board.legal_moves
        move = rng.choice(moves)
        return SearchResult(move=move.text(), pv=(move.text(),), nodes=len(moves))
