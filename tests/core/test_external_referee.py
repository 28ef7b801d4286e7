"""Move generation checked against pydraughts, an independent open-source draughts library, on random positions.

pydraughts counts a king's same-pieces-other-order captures twice (perft convention A); comparing sets of
(start, end, captured set) merges them, which is exactly King Me's convention B.
"""

from __future__ import annotations

import random

from draughts import Board as RefereeBoard

from core import Board
from tests.core.test_properties import random_game, random_placement


def referee_moves(fen: str) -> set[tuple[int, int, frozenset[int]]]:
    board = RefereeBoard(variant="english", fen=fen)
    return {(m.steps_move[0], m.steps_move[-1], frozenset(m.captures)) for m in board.legal_moves()}


def ours(board: Board) -> set[tuple[int, int, frozenset[int]]]:
    return {(m.start, m.end, frozenset(m.captures)) for m in board.legal_moves if m.path}


def test_agrees_with_pydraughts_on_random_positions() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(80):
        board = random_game("american", rng.randrange(10**9), rng.randrange(0, 150))
        for _ in range(min(len(board.move_stack), 8)):
            assert ours(board) == referee_moves(board.fen()), board.fen()
            checked += 1
            board.pop()
    for _ in range(1200):
        board = random_placement("american", rng)
        if not board.black or not board.white:
            continue
        assert ours(board) == referee_moves(board.fen()), board.fen()
        checked += 1
    assert checked > 1000
