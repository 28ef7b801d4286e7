"""A game's board is replayed once and kept (``GameState.board``): what it gives is the full replay, whoever changes
the board they were given changes nobody else's, and a position one move on is built from the one before."""

from __future__ import annotations

import random

import pytest

from bot.service import _models
from core import Board, Move

START = Board(None, "american").fen()


def random_game(seed: int, plies: int = 40) -> tuple[str, ...]:
    rng = random.Random(seed)
    board = Board(None, "american")
    moves = []
    while len(moves) < plies and board.outcome() is None:
        move = rng.choice(board.legal_moves)
        moves.append(move.text())
        board.push(move)
    return tuple(moves)


def full_replay(moves: tuple[str, ...]) -> Board:
    board = Board(START, "american")
    for text in moves:
        board.push(board.parse_move(text))
    return board


def test_a_kept_board_is_the_full_replay_and_each_caller_gets_its_own() -> None:
    for seed in range(5):
        moves = random_game(seed)
        for n in range(len(moves) + 1):
            board = _models.replayed(START, "american", moves[:n]).copy()
            expected = full_replay(moves[:n])
            assert board.fen() == expected.fen() and board.legal_moves == expected.legal_moves
            assert [m.text() for m in board.move_stack] == [m.text() for m in expected.move_stack]
        given = _models.replayed(START, "american", moves).copy()
        if given.legal_moves:
            given.push(given.legal_moves[0])  # the caller's copy moves on...
        again = _models.replayed(START, "american", moves).copy()
        assert again.fen() == full_replay(moves).fen(), "...the kept board does not"


def test_one_move_on_is_built_from_the_board_before(monkeypatch: pytest.MonkeyPatch) -> None:
    moves = random_game(7, plies=12)
    _models._BOARDS.clear()
    _models.replayed(START, "american", moves[:-1])
    parsed: list[str] = []
    original = Board.parse_move

    def counting(self: Board, text: str) -> Move:
        parsed.append(text)
        return original(self, text)

    monkeypatch.setattr(Board, "parse_move", counting)
    board = _models.replayed(START, "american", moves)
    monkeypatch.undo()
    assert parsed == [moves[-1]], "only the new move is parsed"
    assert board.fen() == full_replay(moves).fen()
