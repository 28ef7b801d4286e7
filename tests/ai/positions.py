"""Random positions for the evaluation's tests, and their columns as the trainers read them."""

from __future__ import annotations

import random

import numpy as np
import numpy.typing as npt

from core import Board, Color


def random_positions(
    count: int, seed: int | random.Random, most_plies: int = 90, variant: str = "american"
) -> list[Board]:
    """Positions from random games of up to ``most_plies`` plies where the game goes on: men and kings of both sides,
    both to move (``seed`` may be the generator itself)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board(variant=variant)
        for _ in range(rng.randrange(0, most_plies)):
            if board.outcome() is not None:
                break
            board.push(rng.choice(board.legal_moves))
        if board.outcome() is None:
            found.append(board)
    return found


Ints = npt.NDArray[np.int64]


def columns(boards: list[Board]) -> tuple[Ints, Ints, Ints, npt.NDArray[np.bool_]]:
    """Black's, White's and the kings' bitboards and whether Black is to move, one row a position."""
    return (
        np.array([b.black for b in boards], dtype=np.int64),
        np.array([b.white for b in boards], dtype=np.int64),
        np.array([b.kings for b in boards], dtype=np.int64),
        np.array([b.turn is Color.BLACK for b in boards]),
    )
