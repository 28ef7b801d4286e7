"""The opening book: the shipped file covers the start and every deck opening with legal moves, and ``master`` plays
from it, varying between moves that score alike."""

from __future__ import annotations

import random

from ai import book
from ai.api import GameInput, choose_move
from ai.ballots import acf_deck
from ai.book import Book, BookMove
from core import Board


def test_the_build_searches_the_deck_and_every_position_one_move_beyond_it() -> None:
    layers = book.opening_positions()
    assert [len(layer) for layer in layers[:3]] == [1, 7, 49]
    third = {board.fen() for board in layers[3]}
    assert {ballot.board().fen() for ballot in acf_deck()} <= third
    assert len(third) < 302  # the 302 three-ply sequences reach fewer positions, and only those after deck moves


def test_the_shipped_book_covers_the_start_and_every_deck_opening_with_legal_moves() -> None:
    shipped = book.shipped()
    assert book.BOOK_FILE.stat().st_size < 300_000
    start = Board()
    assert {m.move for m in shipped.moves(start)} == {m.text() for m in start.legal_moves}
    for ballot in acf_deck():
        board = ballot.board()
        moves = shipped.moves(board)
        assert moves, ballot.name
        assert {m.move for m in moves} <= {m.text() for m in board.legal_moves}
    for fen, moves in shipped.positions.items():
        board = Board(fen)
        assert {m.move for m in moves} <= {m.text() for m in board.legal_moves}, fen


def test_master_plays_from_the_book_and_varies_between_moves_that_score_alike() -> None:
    start = Board()
    moves = book.shipped().moves(start)
    best = max(m.score for m in moves)
    close = {m.move for m in moves if m.score >= best - book.MARGIN}
    played = set()
    for seed in range(12):
        result = choose_move("master", GameInput.from_board(start), None, seed)
        assert result.nodes == 0  # from the book, no search
        played.add(result.move)
    assert played <= close
    assert len(played) > 1 or len(close) == 1


def test_a_book_move_that_is_not_legal_is_never_played() -> None:
    start = Board()
    made_up = Book({start.fen(): (BookMove("1-5", 50), BookMove("11-15", 0))})
    assert made_up.choose(start, random.Random(0)) == BookMove("11-15", 0)
    assert made_up.choose(Board("B:W18:B14"), random.Random(0)) is None
    assert Book.from_json(made_up.to_json()) == made_up
