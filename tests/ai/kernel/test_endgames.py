"""The endgame databases inside the search: ``master`` wins a won ending against a perfect defender within the
40-move rule, and the database corrects the search where the search alone misjudges an ending; beyond the databases,
the drive converts a king up in a kings' ending."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai import egdb
from ai.api import Limits, get_level
from ai.kernel import KernelPlayer, build_endgame_database, engine, tables
from ai.kernel.egdb import HEADER, LOSS, WIN, probe
from ai.kernel.evaluation import drive
from ai.kernel.search import KNOWN_WIN, PROGRESS_BASE
from core import Board, Color, Move
from tests.ai.endgames import Position, solve


@pytest.fixture(scope="module")
def four() -> egdb.Array:
    return build_endgame_database(4)[0]


@pytest.fixture
def installed(four: egdb.Array, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The 4-piece database, built by the test, as the one the search finds."""
    egdb.save(four, tmp_path / egdb.file_name(4))
    monkeypatch.setenv("EGDB_DIR", str(tmp_path))
    yield


def _key(board: Board) -> Position:
    return board.black, board.white, board.kings, board.turn is Color.BLACK


def _fen(position: Position) -> str:
    black_pieces, white_pieces, kings, black = position
    g = Board().variant.geometry

    def items(pieces: int) -> str:
        return ",".join(("K" if g.bit_of_square[n] & kings else "") + str(n) for n in g.squares_of(pieces))

    return f"{'B' if black else 'W'}:W{items(white_pieces)}:B{items(black_pieces)}"


def _value(board: Board, db: egdb.Array) -> int:
    me, opp = (board.black, board.white) if board.turn is Color.BLACK else (board.white, board.black)
    return probe(me, opp, board.kings, board.turn is Color.BLACK, db)


@pytest.mark.usefixtures("installed")
def test_master_wins_two_kings_against_one_from_the_longest_win_against_a_perfect_defender() -> None:
    solved = solve(3)

    def two_kings_against_one(position: Position) -> bool:
        black_pieces, white_pieces, kings, black = position
        me, opp = (black_pieces, white_pieces) if black else (white_pieces, black_pieces)
        return me.bit_count() == 2 and opp.bit_count() == 1 and not (me | opp) & ~kings

    longest, start = max((plies, p) for p, plies in solved.wins.items() if two_kings_against_one(p))
    assert longest > 30  # the lone king starts far from the double corner it runs to
    board = Board(_fen(start))
    master = get_level("master").factory()
    winner = board.turn
    rng = random.Random(0)
    while board.outcome() is None:
        if board.turn is winner:
            board.push_text(master.choose(board, Limits(nodes=100_000), rng).move)
        else:
            # The defender plays the move that puts off the end longest, by the independent solver.
            def resistance(move: Move) -> int:
                board.push(move)
                plies = solved.wins.get(_key(board), 0)
                board.pop()
                return plies

            board.push(max(board.legal_moves, key=resistance))
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is winner
    assert len(board.move_stack) <= 80  # the 40-move rule never came near: no capture happened before the last
    assert len(board.move_stack) <= longest + 8  # and close to as quick as the defence allowed


@pytest.mark.usefixtures("installed")
def test_the_database_corrects_an_ending_the_search_alone_misjudges(four: egdb.Array) -> None:
    board = Board("B:W11,30:B1,K9")  # Black wins; a 10-ply search alone sees nothing better than equality
    assert _value(board, four) == WIN
    alone = KernelPlayer(table_entries=1 << 16).choose(board, Limits(depth=10), random.Random(0))
    assert alone.score < 50
    result = KernelPlayer(table_entries=1 << 16, endgames=True).choose(board, Limits(depth=10), random.Random(0))
    assert result.score > KNOWN_WIN - PROGRESS_BASE - 300
    board.push_text(result.move)
    assert _value(board, four) == LOSS  # the move keeps the win


def test_the_shipped_database_holds_the_same_tables_as_a_fresh_build(four: egdb.Array) -> None:
    shipped = egdb.find(egdb.SHIPPED)
    assert shipped is not None and shipped.name == egdb.file_name(5)
    db = egdb.read(shipped)
    assert (db[1:HEADER][four[1:HEADER] >= 0] == four[1:HEADER][four[1:HEADER] >= 0]).all()
    assert (db[HEADER : four.shape[0] - 1] == four[HEADER:-1]).all()  # the 4-piece tables come first in both


def _drive(fen: str) -> int:
    board = Board(fen)
    me, opp = (board.black, board.white) if board.turn is Color.BLACK else (board.white, board.black)
    return int(drive(me, opp, board.kings, tables.of(board.variant)))


def test_the_drive_pulls_the_stronger_side_s_kings_at_a_side_left_with_kings_and_at_most_a_man() -> None:
    assert _drive("W:W20,21,22,23,24,K30:B1,2,3,4,5") == 0  # the weaker side has men, 11 pieces: the features judge it
    assert _drive("W:W20,21,22,23,24,K30:BK1,K2,3,K4,K5") != 0  # at most one man left to it: a kings' ending after all
    assert _drive("W:W21,22,23,24,K30:B1,2,3,4") != 0  # 9 pieces: an ending
    assert _drive("B:WK1,K2,K6,K8,11:B5,K27,K31,K32") != 0  # 4 kings and a man against 3 and a man
    assert _drive("W:W21,22,K30:B1,2") != 0  # 5 pieces: the ending's plan
    near = _drive("W:WK14,K15,K22,K23:BK10,K11,K18")
    far = _drive("W:WK29,K30,K31,K32:BK1,K2,K3")
    assert near > far
    assert _drive("B:WK14,K15,K22,K23:BK10,K11,K18") == -near  # the same ending, the weaker side to move
    assert _drive("W:W21,22,K30:BK17,K18") > _drive("W:W21,22,K30:BK1,K2")  # a man up, hunting two kings
    assert _drive("W:W21,22,23:BK1,K2") == 0  # no king to hunt with
    assert _drive("W:WK14,K15,K22:B1,K10,K11") == 0  # no side is stronger


def test_master_converts_four_kings_against_three_within_the_40_move_rule() -> None:
    board = Board("W:WK1,K9,K18,K29:BK2,K19,K28")  # drawn by the 40-move rule before the drive
    engine.forget()  # an empty table: the game depends on nothing searched before
    master = get_level("master").factory()
    rng = random.Random(0)
    while board.outcome() is None:
        board.push_text(master.choose(board, Limits(nodes=200_000), rng).move)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Color.WHITE, (outcome, len(board.move_stack), board.fen())
