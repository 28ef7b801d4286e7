"""Property tests over random play, the independent referee, and fuzzed input."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import PASS, Board, Color, RulesError, game_to_pdn, get_variant, read_pdn
from core.zobrist import hash_position
from tests.core import referee

VARIANTS = ("american", "capture-all", "mini")


def random_game(variant: str, seed: int, plies: int) -> Board:
    rng = random.Random(seed)
    board = Board(variant=variant)
    for _ in range(plies):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    return board


def random_placement(variant: str, rng: random.Random) -> Board:
    """A random legal-looking position with kings, built square by square (valid FEN by construction)."""
    v = get_variant(variant)
    g = v.geometry
    squares = list(range(1, g.squares + 1))
    rng.shuffle(squares)
    black: list[str] = []
    white: list[str] = []
    limit = g.start_rows * g.per_row
    for n in squares[: rng.randint(2, 2 * limit)]:
        side = black if rng.random() < 0.5 else white
        if len(side) >= limit:
            continue
        crown_row = g.squares_of(g.white_home if side is black else g.black_home)
        king = v.kings and (n in crown_row or rng.random() < 0.3)
        side.append(("K" if king else "") + str(n))
    turn = rng.choice("BW")
    return Board(f"{turn}:W{','.join(white)}:B{','.join(black)}", variant)


def check_against_referee(board: Board) -> None:
    v = board.variant
    expected = referee.legal_moves(board.fen(), v.geometry.size, kings=v.kings, multi_jump=v.multi_jump)
    ours = {(m.start, m.end, frozenset(m.captures)) for m in board.legal_moves if m.path}
    assert ours == expected, board.fen()


def test_move_generation_agrees_with_referee_on_thousands_of_positions() -> None:
    rng = random.Random(20261122)
    checked = 0
    for variant in VARIANTS:
        for _game in range(60):
            board = random_game(variant, rng.randrange(10**9), rng.randrange(0, 120))
            while True:
                check_against_referee(board)
                checked += 1
                if not board.move_stack or rng.random() < 0.8:
                    break
                board.pop()
        for _ in range(700):
            check_against_referee(random_placement(variant, rng))
            checked += 1
    assert checked >= 2300


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32), st.integers(1, 150))
def test_random_play_invariants(variant: str, seed: int, plies: int) -> None:
    rng = random.Random(seed)
    board = Board(variant=variant)
    crown_rows = {
        Color.BLACK: set(board.variant.geometry.squares_of(board.variant.geometry.white_home)),
        Color.WHITE: set(board.variant.geometry.squares_of(board.variant.geometry.black_home)),
    }
    for _ in range(plies):
        if board.outcome() is not None:
            break
        moves = board.legal_moves
        assert moves
        # every listed move prints and parses back to itself
        for move in moves:
            assert board.parse_move(move.text()) == move
        # FEN round-trips
        assert Board(board.fen(), variant).fen() == board.fen()
        move = rng.choice(moves)
        piece = board.piece_at(move.start) if move != PASS else None
        before = (board.fen(), board.hash, board.halfmove_clock, board.turn, list(board.move_stack))
        board.push(move)
        assert board.hash == hash_position(board.black, board.white, board.kings, board.turn is Color.WHITE)
        if piece is not None and not piece.king and board.variant.kings:
            # a man crowned during a capture stops there
            crown = crown_rows[piece.color]
            assert all(square not in crown for square in move.path[:-1])
        board.pop()
        assert (board.fen(), board.hash, board.halfmove_clock, board.turn, list(board.move_stack)) == before
        board.push(move)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32), st.integers(0, 200))
def test_pdn_round_trip(variant: str, seed: int, plies: int) -> None:
    board = random_game(variant, seed, plies)
    text = game_to_pdn(board, {"Black": "Alice", "White": 'Bob "the builder"'})
    (game,) = read_pdn(text)
    assert game.board.variant is board.variant
    assert game.board.move_stack == board.move_stack
    assert game.board.fen() == board.fen()
    assert game.headers["White"] == 'Bob "the builder"'
    outcome = board.outcome()
    assert game.result == (outcome.result() if outcome else "*")


def test_pdn_from_a_set_up_position_carries_fen() -> None:
    board = Board("W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29")
    board.push(board.legal_moves[0])
    text = game_to_pdn(board)
    assert '[SetUp "1"]' in text and '[FEN "W:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29"]' in text
    assert "1..." in text
    assert read_pdn(text)[0].board.fen() == board.fen()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.sampled_from(VARIANTS))
def test_fuzzed_fen_only_raises_typed_errors(text: str, variant: str) -> None:
    try:
        board = Board(text, variant)
    except RulesError:
        return
    again = Board(board.fen(), variant)  # whatever was accepted reads back as the same position
    assert again.fen() == board.fen() and again.hash == board.hash


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=30),
        st.from_regex(r"\A\s*\d{1,3}\s*([-x:]\s*\d{1,3}\s*){1,4}\Z"),
    ),
    st.sampled_from(VARIANTS),
    st.integers(0, 60),
)
def test_fuzzed_move_text_only_raises_typed_errors(text: str, variant: str, plies: int) -> None:
    board = random_game(variant, plies, plies)
    before = board.fen()
    try:
        move = board.parse_move(text)
    except RulesError:
        assert board.fen() == before
        return
    assert move in board.legal_moves


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_fuzzed_pdn_only_raises_typed_errors(text: str) -> None:
    try:
        games = read_pdn(text)
    except RulesError:
        return
    for game in games:  # each game read is its start position replayed move by move
        replay = Board(game.board.initial_fen, game.board.variant.name)
        for move in game.board.move_stack:
            replay.push_text(move.text())
        assert replay.fen() == game.board.fen()


HOSTILE_NAMES = ["a\u2028b", "c\u2029d", "e\x00f\rg\th\x1ci\x85j", '"quoted\\"', "</script><script>alert(1)</script>"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_name_never_breaks_a_pdn_tag(name: str) -> None:
    board = random_game("american", 3, 6)
    text = game_to_pdn(board, {"Black": name, "White": "bob"})
    black = next(line for line in text.split("\n") if line.startswith("[Black "))
    assert black.endswith('"]') and not any(c in black for c in "\u2028\u2029\x00\r\t\x1c\x85")
    [game] = read_pdn(text)
    assert game.board.fen() == board.fen() and game.headers["White"] == "bob"
    assert game.headers["Black"].replace(" ", "") == "".join(c for c in name if c.isprintable()).replace(" ", "")


def test_a_pdn_written_with_a_raw_line_separator_in_a_tag_still_reads() -> None:
    """Games stored before names were cleaned: a U+2028 inside a tag is not a line end when reading."""
    text = '[Event "King Me game"]\n[Black "al\u2028ice"]\n[White "bob"]\n[Result "*"]\n\n1. 11-15 *\n'
    [game] = read_pdn(text)
    assert game.headers["Black"] == "al\u2028ice" and [m.text() for m in game.board.move_stack] == ["11-15"]
