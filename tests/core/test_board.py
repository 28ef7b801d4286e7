"""Board behaviour: moves, notation, undo, hashing and the rules of each variant."""

from __future__ import annotations

import pytest

from core import (
    PASS,
    AmbiguousMoveError,
    Board,
    Color,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveTextError,
    InvalidSquareError,
    Move,
    RulesError,
    Termination,
    UnknownVariantError,
    get_variant,
)
from core.zobrist import hash_position
from tests.core.test_properties import random_game


def test_start_position_and_fen_round_trip() -> None:
    board = Board()
    assert board.fen() == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert board.turn is Color.BLACK
    assert sorted(m.text() for m in board.legal_moves) == sorted(
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    )
    assert Board(board.fen()).fen() == board.fen()


def test_fen_accepts_kings_ranges_and_either_list_order() -> None:
    board = Board("W:B1-3,K10:WK30,20")
    assert board.turn is Color.WHITE
    assert board.fen() == "W:W20,K30:B1,2,3,K10"
    piece = board.piece_at(10)
    assert piece is not None and piece.king and piece.color is Color.BLACK


@pytest.mark.parametrize(
    ("fen", "fragment"),
    [
        ("", "not a FEN"),
        ("X:W1:B2", "not a FEN"),
        ("B:W33:B1", "not on the board"),
        ("B:W1:B1", "twice"),
        ("B:W21:B30", "would have been crowned"),
        ("B:Wfoo:B1", "not a square"),
        ("B:W1,2,3,4,5,6,7,8,9,10,11,12,13:B30", "at most 12"),
    ],
)
def test_bad_fen_raises_a_helpful_typed_error(fen: str, fragment: str) -> None:
    with pytest.raises(InvalidFenError, match=fragment):
        Board(fen)


def test_mini_rejects_kings_in_fen() -> None:
    with pytest.raises(InvalidFenError, match="no kings"):
        Board("B:WK13:B1", "mini")


def test_unknown_variant() -> None:
    with pytest.raises(UnknownVariantError, match="american"):
        get_variant("chess")


def test_compulsory_capture_and_error_messages() -> None:
    board = Board("W:W22,24:B18")
    assert board.legal_moves == [Move((22, 15), (18,))]
    with pytest.raises(IllegalMoveError, match="capture is compulsory"):
        board.parse_move("24-20")
    with pytest.raises(InvalidMoveTextError):
        board.parse_move("hello")
    with pytest.raises(InvalidSquareError):
        board.parse_move("40-44")
    with pytest.raises(IllegalMoveError, match="legal moves: 11-15"):
        Board("B:W32:B11").parse_move("11-14")


def test_multi_jump_full_and_short_text() -> None:
    board = Board("B:W6,7,14,15:BK1")
    assert sorted(m.text() for m in board.legal_moves) == ["1x10x17", "1x10x19", "1x10x3"]
    move = board.parse_move("1x10x19")
    assert move == Move((1, 10, 19), (6, 15))
    assert board.parse_move("1x19") == move
    assert board.parse_move(" 1 x 10 x 19 ") == move


def test_ambiguous_short_capture_lists_candidates() -> None:
    board = Board("W:WK7:B18,12,11,10,19,26")
    assert sorted(m.text() for m in board.legal_moves) == ["7x14x23x30", "7x16x23x14x7", "7x16x23x30"]
    with pytest.raises(AmbiguousMoveError) as info:
        board.parse_move("7x30")
    assert set(info.value.candidates) == {"7x14x23x30", "7x16x23x30"}
    assert "7x14x23x30" in str(info.value)
    assert board.parse_move("7x16x30") == Move((7, 16, 23, 30), (11, 19, 26))


def test_crowning_ends_the_move() -> None:
    # Black man on 23 jumps 27 to land on 32 (crowning row); it could jump on over 28 as a king, but must stop.
    board = Board("B:W27,28,24:B23")
    moves = board.legal_moves
    assert [m.text() for m in moves] == ["23x32"]
    board.push(moves[0])
    piece = board.piece_at(32)
    assert piece is not None and piece.king


def test_push_pop_restore_everything() -> None:
    board = Board()
    snapshot = (board.fen(), board.hash, board.halfmove_clock, board.turn)
    board.push_text("11-15")
    board.push_text("23-19")
    assert board.pop() == Move((23, 19))
    assert board.pop() == Move((11, 15))
    assert (board.fen(), board.hash, board.halfmove_clock, board.turn) == snapshot
    assert board.move_stack == []


def test_no_pieces_loses() -> None:
    outcome = Board("B:W5:B").outcome()
    assert outcome is not None and outcome.termination is Termination.NO_PIECES and outcome.winner is Color.WHITE
    assert outcome.result() == "0-1"


def test_blocked_side_loses_in_american() -> None:
    board = Board("W:W29:B25,22")  # the white man on 29 has no step (25 taken) and no jump (22 taken)
    assert board.legal_moves == []
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES
    assert outcome.winner is Color.BLACK and outcome.result() == "1-0"


def test_capture_all_passes_and_draws_when_both_blocked() -> None:
    board = Board("W:W29:B25,22", "capture-all")
    assert board.legal_moves == [PASS]
    assert board.outcome() is None
    board.push(PASS)
    assert board.turn is Color.BLACK and board.halfmove_clock == 1
    assert board.pop() == PASS and board.turn is Color.WHITE
    # Neither side can move (two locked ranks each): a draw in capture-all, a loss for the side to move in American.
    locked = "B:W25,26,27,28,29,30,31,32:B17,18,19,20,21,22,23,24"
    draw = Board(locked, "capture-all")
    assert draw.legal_moves == []
    outcome = draw.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES and outcome.winner is None
    loss = Board(locked).outcome()
    assert loss is not None and loss.winner is Color.WHITE


def test_capture_all_is_won_only_by_taking_everything() -> None:
    board = Board("B:W5:B", "capture-all")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_PIECES and outcome.winner is Color.WHITE


def test_mini_has_no_kings_and_counts_pieces_when_blocked() -> None:
    board = Board(variant="mini")
    assert sorted(m.text() for m in board.legal_moves) == ["4-7", "5-7", "5-8", "6-8", "6-9"]
    last = Board("B:W13:B16,17", "mini")  # black men on the last row are not crowned and cannot move
    piece = last.piece_at(16)
    assert piece is not None and not piece.king
    assert last.legal_moves == [PASS]
    stuck = Board("B:W2:B16,17", "mini")  # neither side can move: more pieces wins
    outcome = stuck.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES
    assert outcome.winner is Color.BLACK
    even = Board("B:W2:B16", "mini")
    outcome = even.outcome()
    assert outcome is not None and outcome.winner is None


def test_mini_single_jumps_only() -> None:
    # After 1x8 a second jump over 11 to 13 would be open, but mini has single jumps only.
    board = Board("B:W5,11:B1", "mini")
    assert board.legal_moves == [Move((1, 8), (5,))]


def test_mini_passes_when_only_one_side_is_blocked() -> None:
    board = Board("B:W13:B16", "mini")  # black man on the last row; white can still move
    assert board.legal_moves == [PASS]
    assert board.parse_move("pass") == PASS
    board.push(PASS)
    assert board.turn is Color.WHITE
    with pytest.raises(IllegalMoveError):
        board.parse_move("pass")


def test_threefold_repetition_and_move_limit() -> None:
    board = Board("B:WK32:BK1")
    for _ in range(2):
        for text in ("1-5", "32-27", "5-1", "27-32"):
            board.push_text(text)
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION and outcome.winner is None
    board = Board("B:WK32,K31:BK1,K2")
    cycle = ["1-5", "32-28", "5-9", "28-24", "9-5", "24-28", "5-1", "28-32"]
    played = 0
    while board.outcome() is None:
        board.push_text(cycle[played % len(cycle)])
        played += 1
        assert played <= 80
    outcome = board.outcome()
    assert outcome is not None and outcome.termination in (Termination.REPETITION, Termination.MOVE_LIMIT)


def test_move_limit_draw_after_eighty_quiet_king_plies() -> None:
    board = Board("B:WK32:BK1")
    board.halfmove_clock = 79  # as if 79 quiet king plies had been played
    board.push_text("1-5")
    outcome = board.outcome()
    assert outcome is not None and outcome.termination is Termination.MOVE_LIMIT


def test_man_move_and_capture_reset_the_clock() -> None:
    board = Board("B:WK32,20:BK1,9")
    board.push_text("1-5")
    assert board.halfmove_clock == 1
    board.push_text("32-27")
    board.push_text("9-13")
    assert board.halfmove_clock == 0


def test_hash_matches_recomputation() -> None:
    board = Board()
    for text in ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"):
        board.push_text(text)
        assert board.hash == hash_position(board.black, board.white, board.kings, board.turn is Color.WHITE)


def test_every_error_is_a_value_error() -> None:
    for error in (InvalidFenError, InvalidMoveTextError, InvalidSquareError, IllegalMoveError, AmbiguousMoveError):
        assert issubclass(error, RulesError) and issubclass(error, ValueError)


def test_algebraic_names_of_the_squares() -> None:
    eight, six = get_variant("american").geometry, get_variant("mini").geometry
    assert [eight.square_name(n) for n in (1, 4, 11, 15, 29, 32)] == ["b8", "h8", "f6", "e5", "a1", "g1"]
    assert [six.square_name(n) for n in (1, 3, 18)] == ["b6", "f6", "e1"]
    for geometry in (eight, six):  # a name reads back as its square; light squares and letters off the board do not
        assert all(geometry.square_named(geometry.square_name(n)) == n for n in range(1, geometry.squares + 1))
    assert eight.square_named("e4") is None and eight.square_named("i1") is None and eight.square_named("a9") is None


@pytest.mark.parametrize("variant", ["american", "capture-all", "mini"])
def test_algebraic_and_numeric_text_play_the_same_move(variant: str) -> None:
    board = random_game(variant, 30, 7)
    for move in board.legal_moves:
        assert board.parse_move(board.algebraic(move)) == move == board.parse_move(move.text())
        assert board.parse_move(board.algebraic(move).upper()) == move


def test_algebraic_multi_jump_short_form_and_errors() -> None:
    board = Board("B:W6,7,14,15:BK1")
    move = board.parse_move("1x10x19")
    assert board.algebraic(move) == "b8xd6xf4"
    assert board.parse_move("b8xf4") == move == board.parse_move(" B8 x D6 x F4 ")  # the short form too
    ambiguous = Board("W:WK7:B18,12,11,10,19,26")
    with pytest.raises(AmbiguousMoveError) as info:
        ambiguous.parse_move(ambiguous.algebraic(Move((7, 30), ())))
    assert set(info.value.candidates) == {"e7xc5xe3xc1", "e7xg5xe3xc1"}  # listed in the notation typed
    with pytest.raises(InvalidSquareError, match="e4 is not a dark square"):
        Board().parse_move("e4-f5")
    with pytest.raises(IllegalMoveError, match="b6-a5, d6-c5, f6-e5"):  # answered in the notation the player used
        Board().parse_move("a1-b2")
    assert Board().parse_move("f6-e5").text() == "11-15"
