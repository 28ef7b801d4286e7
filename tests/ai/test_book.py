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
    assert book.BOOK_FILE.stat().st_size < 600_000
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


def test_opening_theory_is_the_book_s_playable_moves_and_the_deck_s_next_moves() -> None:
    after = Board()
    after.push_text("11-15")
    playable = {m.move for m in book.shipped().playable(after)}
    deck = {b.moves[1] for b in acf_deck() if b.moves[0] == "11-15"}
    theory = book.opening_theory(after)
    assert playable and deck and theory == playable | deck
    assert "23-19" in deck  # the deck's most common reply, whatever the book's own searches score it
    deep = Board()
    for text in ("11-15", "23-19", "8-11", "22-17", "9-13"):
        deep.push_text(text)
    deep_theory = book.opening_theory(deep)
    assert deep_theory == {m.move for m in book.shipped().playable(deep)}  # past the deck's 3 moves
    assert {m.text() for m in deep.legal_moves} - deep_theory  # and not every legal move is theory
    same_position = Board(after.fen())  # no history from the start: the deck cannot be followed
    assert book.opening_theory(same_position) == playable


def test_a_deck_opening_starts_lines_from_the_book_s_move_and_the_best_replies_within_the_margin() -> None:
    opening = acf_deck()[0].board()
    own = book.shipped().playable(opening)[0].move
    others = [m.text() for m in opening.legal_moves if m.text() != own]
    close = [(others[0], 30), (others[1], 30 - book.REPLY_MARGIN), (own, 0)]
    assert book._lines_of(book.shipped(), opening.fen(), close) == [
        (opening.fen(), (own,)),
        (opening.fen(), (others[0],)),
        (opening.fen(), (others[1],)),
    ]
    far = [(others[0], 30), (others[1], 29 - book.REPLY_MARGIN), (own, 0)]
    assert [moves for _, moves in book._lines_of(book.shipped(), opening.fen(), far)] == [(own,), (others[0],)]
    assert book._lines_of(book.shipped(), opening.fen(), []) == []


def test_extend_plays_lines_out_from_a_deck_opening_and_keeps_each_searched_position() -> None:
    opening = acf_deck()[0].board()
    start = book.shipped()
    plies = 9
    grown = book.extend(start, 0.02, plies, jobs=2, openings=[opening])
    first = {board.fen() for layer in book.opening_positions() for board in layer}
    assert {fen: grown.positions[fen] for fen in first if fen in grown.positions} == {
        fen: start.positions[fen] for fen in first if fen in start.positions
    }
    changed = {fen for fen, moves in grown.positions.items() if start.positions.get(fen) != moves}
    assert changed
    reached: set[str] = set()
    followed = []
    for move in opening.legal_moves:  # every line starts with a reply to the opening and follows the book
        board = opening.copy(stack=False)
        board.push(move)
        ply, on_line = book.DECK_PLIES + 1, []
        while ply < plies and board.legal_moves:
            entries = grown.moves(board)
            if entries:
                assert len(entries) == 1 and entries[0].move in {m.text() for m in board.legal_moves}
                on_line.append(board.fen())
                board.push_text(entries[0].move)
            elif len(board.legal_moves) == 1:  # a forced move is played, not kept
                board.push(board.legal_moves[0])
            else:
                break
            ply += 1
        if on_line:
            followed.append(move.text())
        reached.update(on_line)
    assert changed <= reached  # nothing added off the lines, nor beyond their plies
    own = start.playable(opening)[0].move
    assert own in followed and 1 <= len(followed) <= book.MAX_REPLIES + 1


def test_the_walk_reaches_the_book_s_positions_from_an_opening_ply_by_ply() -> None:
    opening = acf_deck()[0].board()
    start = book.shipped()
    reached = book._walk(start, [opening])
    assert reached[opening.fen()] == book.DECK_PLIES
    assert len(reached) > 10 and all(fen in start.positions for fen in reached)
    children: dict[str, set[str]] = {}
    for fen in reached:  # the positions one move on, past forced moves
        board = Board(fen)
        for move in board.legal_moves:
            child = board.copy(stack=False)
            child.push(move)
            while len(child.legal_moves) == 1 and child.fen() not in start.positions:
                child.push(child.legal_moves[0])
            children.setdefault(child.fen(), set()).add(fen)
    for fen, ply in reached.items():
        if fen != opening.fen():
            assert any(reached[parent] < ply for parent in children[fen])


def test_a_line_stops_at_a_position_it_is_told_is_known() -> None:
    opening = acf_deck()[0].board()
    line = (opening.fen(), (opening.legal_moves[0].text(),))
    played = book._play_line((line, 0.02, 12, book.DECK_PLIES))
    assert len(played) >= 3
    book._know(frozenset({played[0][0]}))  # its first searched position (the moves before it are forced, or none)
    try:
        stopped = book._play_line((line, 0.02, 12, book.DECK_PLIES))
    finally:
        book._know(frozenset())
    assert stopped == []


def test_widen_adds_lines_from_second_choices_and_keeps_every_entry_of_the_book() -> None:
    opening = acf_deck()[0].board()
    start = book.shipped()
    first, last, plies = 4, 6, 10
    grown = book.widen(start, 0.05, plies, first=first, last=last, jobs=2, openings=[opening])
    assert all(grown.positions[fen] == moves for fen, moves in start.positions.items())
    added = set(grown.positions) - set(start.positions)
    assert added
    reached = book._walk(grown, [opening])
    assert added <= set(reached)  # every new position hangs from the book's lines
    assert all(first + 1 <= reached[fen] < plies for fen in added)
    for fen in added:
        board = Board(fen)
        assert len(grown.positions[fen]) == 1 and grown.positions[fen][0].move in {m.text() for m in board.legal_moves}
    old = book._walk(start, [opening])
    branched = {fen for fen, ply in old.items() if first <= ply <= last}
    nearest = min(reached[fen] for fen in added)
    for fen in (f for f in added if reached[f] == nearest):  # a line starts from a move that is not the book's
        assert any(
            _onward(parent, move.text(), grown) == fen
            for parent in branched
            for move in Board(parent).legal_moves
            if move.text() != start.positions[parent][0].move
        )


def _onward(fen: str, move: str, known: Book) -> str:
    """The position after ``move`` and the forced moves that follow it outside ``known``."""
    board = Board(fen)
    board.push_text(move)
    while len(board.legal_moves) == 1 and board.fen() not in known.positions:
        board.push(board.legal_moves[0])
    return board.fen()
