"""The kernel's rules equal ``core``'s: perft from the start, and move lists, perft 1-3 and Zobrist keys on random
positions of all three variants (kings, pending captures, multi-jumps, passes)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ai.kernel import engine
from core import CAPTURE_ALL, MINI, Board, Move, Variant, perft
from tests.ai.kernel.positions import sample

PUBLISHED = {10: 18391564, 11: 85242128}
"""Perft from the start beyond what ``core`` computes in a few seconds (docs/rules.md)."""
BOARDS = sample(seed=10, per_variant=420)


def test_perft_from_the_start_equals_core() -> None:
    board = Board()
    for depth in range(10):
        assert engine.perft(board, depth) == perft(board, depth), depth
    for depth, expected in PUBLISHED.items():
        assert engine.perft(board, depth) == expected, depth


@pytest.mark.parametrize(("variant", "depth"), [(CAPTURE_ALL, 8), (MINI, 10)])
def test_perft_of_the_other_variants_from_the_start_equals_core(variant: Variant, depth: int) -> None:
    board = Board(variant=variant)
    assert [engine.perft(board, d) for d in range(depth + 1)] == [perft(board, d) for d in range(depth + 1)]


def _count(test: Callable[[Board, Move], object]) -> int:
    """How many of the random positions have a legal move that passes ``test``."""
    return sum(any(test(b, m) for m in b.legal_moves) for b in BOARDS)


def test_the_random_positions_cover_the_hard_cases() -> None:
    assert len(BOARDS) >= 1000
    assert _count(lambda b, m: m.captures) >= 250
    assert _count(lambda b, m: len(m.captures) >= 2) >= 60
    assert _count(lambda b, m: len(m.captures) >= 3) >= 15
    assert _count(lambda b, m: m.captures and b.kings & b.variant.geometry.bit_of_square[m.start]) >= 100
    assert _count(lambda b, m: m.is_pass) >= 10
    assert sum(bool(b.kings) for b in BOARDS) >= 300


def test_legal_moves_equal_core_on_random_positions() -> None:
    for board in BOARDS:
        kernel = engine.legal_moves(board)
        assert sorted(kernel) == sorted(m.text() for m in board.legal_moves), board.fen()
        assert len(set(kernel)) == len(kernel), board.fen()


def test_perft_equals_core_on_random_positions() -> None:
    for board in BOARDS:
        for depth in (1, 2, 3):
            assert engine.perft(board, depth) == perft(board, depth), (board.variant.name, board.fen(), depth)


def test_keys_equal_core_on_random_positions() -> None:
    for board in BOARDS:
        assert engine.key(board) == board.hash, board.fen()
        for move in board.legal_moves:
            after = engine.key_after(board, move)
            board.push(move)
            assert after == board.hash, (board.fen(), move)
            board.pop()


def test_a_king_taking_the_same_pieces_either_way_round_is_one_move_with_core_s_path() -> None:
    board = Board("W:WK2,22,23,25,26,27,28,29,30,31,32:B1,4,5,6,7,8,12,13,14,15")
    assert engine.legal_moves(board) == [m.text() for m in board.legal_moves]
    assert [engine.perft(board, d) for d in (1, 2, 3)] == [1, 5, 29]


def test_a_man_crowned_by_a_capture_stops_there() -> None:
    board = Board("B:W26,27:B22")  # the new king on 31 could take 27 next, but crowning ends the move
    assert engine.legal_moves(board) == ["22x31"]
