"""Perft from the start and from positions that catch common rule bugs (numbers: docs/rules.md, Perft)."""

from __future__ import annotations

import pytest

from core import Board, divide, perft

START_PERFT = [1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931]


@pytest.mark.parametrize("depth", range(len(START_PERFT)))
def test_perft_from_start(depth: int) -> None:
    assert perft(Board(), depth) == START_PERFT[depth]


def test_perft_nine_catches_crowning_that_jumps_on() -> None:
    # A man crowned during a capture must stop there; letting it jump on gives 3963629 instead.
    assert perft(Board(), 9) == 3963680


def test_duplicate_king_capture_is_one_move() -> None:
    board = Board("W:WK2,22,23,25,26,27,28,29,30,31,32:B1,4,5,6,7,8,12,13,14,15")
    assert [perft(board, d) for d in (1, 2, 3)] == [1, 5, 29]
    (move,) = board.legal_moves
    assert move.start == move.end == 2
    assert sorted(move.captures) == [6, 7, 14, 15]


def test_divide_sums_to_perft() -> None:
    board = Board()
    rows = divide(board, 4)
    assert len(rows) == 7
    assert sum(n for _, n in rows) == 1469
    assert dict(rows)["11-15"] > 0


def test_perft_leaves_board_unchanged() -> None:
    board = Board()
    board.push_text("11-15")
    before = (board.fen(), board.hash, len(board.move_stack))
    divide(board, 3)
    assert (board.fen(), board.hash, len(board.move_stack)) == before


def test_perft_of_other_variants_is_consistent_with_move_lists() -> None:
    for variant in ("mini", "capture-all"):
        board = Board(variant=variant)
        assert perft(board, 1) == len(board.legal_moves)
        total = 0
        for move in board.legal_moves:
            board.push(move)
            total += len(board.legal_moves)
            board.pop()
        assert perft(board, 2) == total
