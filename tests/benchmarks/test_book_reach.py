"""``benchmarks/book_reach.py``: a match's games replayed against a book, the level's book moves, where it left the
book, the opponent's departures and whether the book held them; a departure scored by the level's search."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai.book import Book, BookMove
from benchmarks import book_reach
from core import Board
from core.pdn import PdnGame, game_to_pdn

MOVES = ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14", "5-9")
"""A ballot (plies 0-2), then White 22-17 (ply 3), Black 9-13, White 17-14, Black's forced 10x17, White 21x14 (one of
two captures), Black 5-9, which leaves a man to 14x5."""


def fens() -> list[str]:
    board, out = Board(), []
    for text in MOVES:
        out.append(board.fen())
        board.push_text(text)
    return out


def a_book() -> Book:
    """The book departs from the game at ply 3 (24-20, not 22-17) and ply 7 (19x10, not 21x14); it holds Black's
    9-13 at ply 4 and White's 17-14 at ply 5, and nothing at ply 8."""
    at = fens()
    rows = {3: "24-20", 4: "9-13", 5: "17-14", 7: "19x10"}
    return Book({at[ply]: (BookMove(move, 0),) for ply, move in rows.items()})


def game(black: str = "master@abc123", white: str = "GuiNN") -> PdnGame:
    board = Board()
    for text in MOVES:
        board.push_text(text)
    return PdnGame({"Black": black, "White": white}, board, "0-1")


def test_a_game_is_replayed_against_the_book_with_its_departures_and_whether_they_were_held() -> None:
    assert book_reach.level_color(game(), "master") == 0
    assert book_reach.level_color(game("GuiNN", "master"), "master") == 1
    assert book_reach.level_color(game(), "hard") is None
    at = fens()
    reach = book_reach.reach(game(), 0, a_book(), 3, 8)
    assert reach.book_moves == 1 and reach.exit_ply == 8
    assert reach.departures == ((at[3], "22-17", "24-20", True), (at[7], "21x14", "19x10", False))
    later = book_reach.reach(game(), 0, a_book(), 4, 8)
    assert later.departures == ((at[7], "21x14", "19x10", False),)
    assert book_reach.report([reach, later]) == [
        "2 games: 1.0 book moves a game; first choice out of the book at ply 8 (the median) in 2 games",
        "departures: 3, held by the book 1",
    ]
    gaps = [(0, "22-17"), (45, "19x10"), (10, "24-20")]
    assert book_reach.report([reach, later], gaps)[2] == (
        "the level's search: the opponent's move 10 below its best (the median), within 20 in 2 of 3; "
        "its best is the book's move in 1"
    )


def test_a_move_that_leaves_a_man_is_scored_well_below_the_level_s_best() -> None:
    before = fens()[8]
    below, best = book_reach.gap((before, "5-9", 0.05))
    assert below >= 50 and best != "5-9"
    assert book_reach.gap((before, best, 0.05)) == (0, best)


def test_the_command_reads_the_games_and_the_book_and_refuses_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdn, known = tmp_path / "g.pdn", tmp_path / "book.json"
    pdn.write_text(game_to_pdn(game().board, game().headers, result="0-1") + "\n", encoding="utf-8")
    known.write_text(a_book().to_json(), encoding="utf-8")
    assert book_reach.main([str(pdn), "--book", str(known), "--from", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "departures: 2, held by the book 1"
    assert book_reach.main([str(tmp_path / "missing.pdn"), "--book", str(known)]) == 2
    assert "book_reach:" in capsys.readouterr().err
