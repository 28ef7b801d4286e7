"""The :class:`Board`: a position with its history, legal moves, notation and game end."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from core import zobrist
from core.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveTextError,
    InvalidSquareError,
)
from core.move import PASS, Move
from core.movegen import RawMove
from core.outcome import Color, Outcome, Termination
from core.variants import DEFAULT_VARIANT, BlockedRule, Variant, get_variant


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece on a square."""

    color: Color
    king: bool

    def symbol(self) -> str:
        """``b``/``w`` for men and ``B``/``W`` for kings."""
        letter = "b" if self.color is Color.BLACK else "w"
        return letter.upper() if self.king else letter


_State = tuple[int, int, int, Color, int, int]
_MOVE_TEXT = re.compile(r"^\s*(\d+)\s*((?:[-x:]\s*\d+\s*)+)$", re.IGNORECASE)
_ALGEBRAIC_SQUARE = r"[a-j](?:10|[1-9])"
_ALGEBRAIC_TEXT = re.compile(rf"^\s*{_ALGEBRAIC_SQUARE}\s*(?:[-x:]\s*{_ALGEBRAIC_SQUARE}\s*)+$", re.IGNORECASE)
_FEN_ITEM = re.compile(r"^(K?)(\d+)(?:-(\d+))?$")


class Board:
    """A position of one variant, with the moves that led to it.

    ``push`` trusts its caller (use :meth:`is_legal` or :meth:`parse_move` first); ``pop`` restores the saved state in
    O(1). The Zobrist ``hash`` is updated incrementally and identifies the position and the side to move.
    """

    __slots__ = (
        "_hashes",
        "_moves_cache",
        "_stack",
        "black",
        "halfmove_clock",
        "hash",
        "initial_fen",
        "kings",
        "move_stack",
        "turn",
        "variant",
        "white",
    )

    def __init__(self, fen: str | None = None, variant: str | Variant = DEFAULT_VARIANT) -> None:
        self.variant = get_variant(variant)
        self.move_stack: list[Move] = []
        self._stack: list[_State] = []
        self._moves_cache: tuple[int, list[Move]] | None = None
        self.set_fen(fen if fen is not None else self.variant.start_fen)

    # -- position -----------------------------------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Set up the position from a FEN such as ``B:W21,22,K5:B1,2``, clearing the history."""
        black, white, kings, turn = _parse_fen(fen, self.variant)
        self.black, self.white, self.kings, self.turn = black, white, kings, turn
        self.halfmove_clock = 0
        self.hash = zobrist.hash_position(black, white, kings, turn is Color.WHITE)
        self._hashes = [self.hash]
        self.move_stack.clear()
        self._stack.clear()
        self._moves_cache = None
        self.initial_fen = self.fen()

    def fen(self) -> str:
        """The FEN of the position: side to move, then White's and Black's squares (``K`` marks a king)."""
        g = self.variant.geometry

        def items(board: int) -> str:
            return ",".join(("K" if g.bit_of_square[n] & self.kings else "") + str(n) for n in g.squares_of(board))

        side = "B" if self.turn is Color.BLACK else "W"
        return f"{side}:W{items(self.white)}:B{items(self.black)}"

    def piece_at(self, square: int) -> Piece | None:
        """The piece on a PDN square, or None."""
        mask = self._square_mask(square)
        if mask & self.black:
            return Piece(Color.BLACK, bool(mask & self.kings))
        if mask & self.white:
            return Piece(Color.WHITE, bool(mask & self.kings))
        return None

    def pieces(self, color: Color) -> int:
        """The bitboard of a side's pieces."""
        return self.black if color is Color.BLACK else self.white

    def count(self, color: Color, *, kings: bool | None = None) -> int:
        """How many pieces a side has (only kings, only men, or all with ``kings=None``)."""
        board = self.pieces(color)
        if kings is True:
            board &= self.kings
        elif kings is False:
            board &= ~self.kings
        return board.bit_count()

    def _square_mask(self, square: int) -> int:
        g = self.variant.geometry
        if not isinstance(square, int) or not 1 <= square <= g.squares:
            raise InvalidSquareError(
                "square {square} is not on the board: squares are 1 to {count}", square=square, count=g.squares
            )
        return g.bit_of_square[square]

    def copy(self, *, stack: bool = True) -> Board:
        """A copy; with ``stack=False`` it starts a new history at the current position."""
        board = Board.__new__(Board)
        board.variant = self.variant
        board.black, board.white, board.kings, board.turn = self.black, self.white, self.kings, self.turn
        board.halfmove_clock = self.halfmove_clock
        board.hash = self.hash
        board._moves_cache = self._moves_cache
        if stack:
            board.move_stack = list(self.move_stack)
            board._stack = list(self._stack)
            board._hashes = list(self._hashes)
            board.initial_fen = self.initial_fen
        else:
            board.move_stack = []
            board._stack = []
            board._hashes = [self.hash]
            board.halfmove_clock = 0
            board.initial_fen = self.fen()
        return board

    # -- moves ------------------------------------------------------------------------------------------------------

    def raw_moves(self) -> list[RawMove]:
        """The legal moves as raw bitboard moves (no pass)."""
        black = self.turn is Color.BLACK
        me, opp = (self.black, self.white) if black else (self.white, self.black)
        return self.variant.generator.moves(me, opp, self.kings, black)

    def _side_can_move(self, color: Color) -> bool:
        black = color is Color.BLACK
        me, opp = (self.black, self.white) if black else (self.white, self.black)
        return self.variant.generator.count(me, opp, self.kings, black) > 0

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move. Where the variant passes, a blocked side that still has pieces gets ``[PASS]``."""
        cache = self._moves_cache
        if cache is not None and cache[0] == self.hash:
            return list(cache[1])
        moves = [self._to_move(raw) for raw in self.raw_moves()]
        if (
            not moves
            and self.variant.passes
            and self.pieces(self.turn)
            and self.pieces(self.turn.opponent)
            and self._side_can_move(self.turn.opponent)
        ):
            moves = [PASS]
        self._moves_cache = (self.hash, moves)
        return list(moves)

    def _to_move(self, raw: RawMove) -> Move:
        frm, to, _, path = raw
        square_of_bit = self.variant.geometry.square_of_bit
        if path is None:
            return Move((square_of_bit[frm], square_of_bit[to]))
        squares = [square_of_bit[frm]]
        captures = []
        prev = frm
        for land in path:
            squares.append(square_of_bit[land])
            captures.append(square_of_bit[1 << ((prev.bit_length() + land.bit_length()) // 2 - 1)])
            prev = land
        return Move(tuple(squares), tuple(captures))

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is one of the legal moves."""
        return move in self.legal_moves

    def push(self, move: Move) -> None:
        """Play a legal move (not checked: see :meth:`is_legal`)."""
        self._stack.append((self.black, self.white, self.kings, self.turn, self.halfmove_clock, self.hash))
        self.move_stack.append(move)
        black = self.turn is Color.BLACK
        h = self.hash ^ zobrist.WHITE_TO_MOVE
        if move.path:
            g = self.variant.geometry
            bits = g.bit_of_square
            frm, to = bits[move.path[0]], bits[move.path[-1]]
            captured = 0
            for square in move.captures:
                captured |= bits[square]
            kings = self.kings
            own_man, own_king, opp_man, opp_king = zobrist.MOVER_TABLES[black]
            was_king = bool(kings & frm)
            h ^= own_king[frm] if was_king else own_man[frm]
            rest = captured
            while rest:
                low = rest & -rest
                rest ^= low
                h ^= opp_king[low] if kings & low else opp_man[low]
            me, opp = (self.black, self.white) if black else (self.white, self.black)
            me, opp, kings = self.variant.generator.apply(me, opp, kings, black, (frm, to, captured, None))
            h ^= own_king[to] if kings & to else own_man[to]
            if black:
                self.black, self.white = me, opp
            else:
                self.white, self.black = me, opp
            self.kings = kings
            self.halfmove_clock = 0 if captured or not was_king else self.halfmove_clock + 1
        else:
            self.halfmove_clock += 1
        self.turn = self.turn.opponent
        self.hash = h
        self._hashes.append(h)

    def pop(self) -> Move:
        """Undo the last move and return it."""
        self.black, self.white, self.kings, self.turn, self.halfmove_clock, self.hash = self._stack.pop()
        self._hashes.pop()
        return self.move_stack.pop()

    # -- notation ---------------------------------------------------------------------------------------------------

    def parse_move(self, text: str) -> Move:
        """The legal move that PDN text names: ``11-15``, ``15x24``, ``1x10x19`` or the short ``1x19``, or the same in
        algebraic notation (``f6-e5``, ``f6xd4xb6``: files from the left, rank 1 at White's side).

        Raises :class:`InvalidMoveTextError` for text that is not a move, :class:`InvalidSquareError` for a square off
        the board, :class:`IllegalMoveError` for a move the rules forbid, and :class:`AmbiguousMoveError` (listing the
        candidates) when short text fits more than one capture path.
        """
        if not isinstance(text, str):
            raise InvalidMoveTextError("a move is text such as 11-15 or 15x24")
        legal = self.legal_moves
        clean = text.strip()
        if clean.lower() in ("pass", "--", "0-0"):
            if legal == [PASS]:
                return PASS
            raise IllegalMoveError("you cannot pass: you have a legal move")
        write: Callable[[Move], str] = Move.text
        if len(clean) <= 200 and _MOVE_TEXT.match(clean):
            squares = [int(n) for n in re.findall(r"\d+", clean)]
            for n in squares:
                self._square_mask(n)
        elif len(clean) <= 200 and _ALGEBRAIC_TEXT.match(clean):
            squares = [self._named_square(name) for name in re.findall(_ALGEBRAIC_SQUARE, clean, re.IGNORECASE)]
            write = self.algebraic  # answer in the notation the player used
        else:
            raise InvalidMoveTextError(
                "{text} is not a move: write it as start-end (11-15 or f6-e5) or captures as 15x24 or 1x10x19",
                text=repr(_shorten(text)),
            )
        is_capture_text = "x" in clean.lower() or ":" in clean
        candidates = [m for m in legal if m.path and _fits(m, squares)]
        if not is_capture_text and len(squares) == 2:
            steps = [m for m in candidates if not m.captures]
            candidates = steps or candidates
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            raise self._illegal(clean, legal, write)
        names = tuple(write(m) for m in candidates)
        raise AmbiguousMoveError(
            "{move} fits more than one capture: write the whole path, one of {moves}",
            names,
            move=clean,
            moves=", ".join(names),
        )

    def _named_square(self, name: str) -> int:
        square = self.variant.geometry.square_named(name)
        if square is None:
            raise InvalidSquareError("{square} is not a dark square of the board", square=name)
        return square

    def algebraic(self, move: Move) -> str:
        """``move`` in algebraic notation on this board (``f6-e5``, ``f6xd4xb6``); :meth:`Move.text` gives the PDN
        square numbers (``11-15``). :meth:`parse_move` reads both."""
        return move.algebraic(self.variant.geometry.square_name)

    @staticmethod
    def _illegal(text: str, legal: list[Move], write: Callable[[Move], str]) -> IllegalMoveError:
        if not legal:
            return IllegalMoveError("{move} is illegal: the game is over", move=text)
        shown = ", ".join(write(m) for m in legal[:12]) + (" …" if len(legal) > 12 else "")
        if legal[0].captures:
            return IllegalMoveError("{move} is illegal: a capture is compulsory ({moves})", move=text, moves=shown)
        return IllegalMoveError("{move} is illegal here; legal moves: {moves}", move=text, moves=shown)

    def push_text(self, text: str) -> Move:
        """Parse and play a move; returns it."""
        move = self.parse_move(text)
        self.push(move)
        return move

    # -- game end ---------------------------------------------------------------------------------------------------

    def history_hashes(self) -> list[int]:
        """The hashes of the game's positions since its last irreversible move (capture or man move), the current one
        last: the window the repetition rule counts in, and what a search needs to see repetitions of the game."""
        return self._hashes[-self.halfmove_clock - 1 :]

    def is_repetition(self, count: int | None = None) -> bool:
        """Whether the position (with the same side to move) has occurred ``count`` times since the last capture or
        man move (default: the variant's repetition count)."""
        need = self.variant.repetitions if count is None else count
        return self.history_hashes().count(self.hash) >= need

    def outcome(self) -> Outcome | None:
        """How the game has ended by the rules of the board, or None while it goes on."""
        side = self.turn
        variant = self.variant
        if not self.pieces(side):
            return Outcome(Termination.NO_PIECES, side.opponent)
        if not self._side_can_move(side):
            if variant.blocked is BlockedRule.LOSES:
                return Outcome(Termination.NO_MOVES, side.opponent)
            if not self._side_can_move(side.opponent):
                if variant.blocked is BlockedRule.PASSES_DRAW:
                    return Outcome(Termination.NO_MOVES, None)
                mine, theirs = self.count(side), self.count(side.opponent)
                winner = None if mine == theirs else (side if mine > theirs else side.opponent)
                return Outcome(Termination.NO_MOVES, winner)
        if self.is_repetition():
            return Outcome(Termination.REPETITION, None)
        if self.halfmove_clock >= variant.move_limit:
            return Outcome(Termination.MOVE_LIMIT, None)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -- display ----------------------------------------------------------------------------------------------------

    def rows(self) -> list[list[tuple[int | None, Piece | None]]]:
        """The board row by row, Black's side first, each cell as (its square number or None on a light square, the
        piece on it or None): what every text drawing of the board reads."""
        g = self.variant.geometry
        grid: list[list[tuple[int | None, Piece | None]]] = []
        for row in range(g.size):
            cells: list[tuple[int | None, Piece | None]] = []
            for col in range(g.size):
                square = g.square_at(row, col)
                cells.append((square, None if square is None else self.piece_at(square)))
            grid.append(cells)
        return grid

    def ascii(self) -> str:
        """The board as text, Black at the top: ``b``/``w`` men, ``B``/``W`` kings, ``.`` empty dark squares."""
        lines = [
            " ".join(" " if square is None else piece.symbol() if piece else "." for square, piece in cells)
            for cells in self.rows()
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.ascii()

    def __repr__(self) -> str:
        return f"Board({self.fen()!r}, variant={self.variant.name!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.variant, self.black, self.white, self.kings, self.turn) == (
            other.variant,
            other.black,
            other.white,
            other.kings,
            other.turn,
        )

    __hash__ = None  # type: ignore[assignment]


def _fits(move: Move, squares: list[int]) -> bool:
    """Whether a move's path starts and ends on the given squares and passes the middle ones in order."""
    path = move.path
    if path[0] != squares[0] or path[-1] != squares[-1]:
        return False
    it: Iterable[int] = iter(path[1:-1])
    return all(any(n == p for p in it) for n in squares[1:-1])


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _parse_fen(fen: str, variant: Variant) -> tuple[int, int, int, Color]:
    """Read a FEN into ``(black, white, kings, turn)`` bitboards, checking it describes a possible position."""
    if not isinstance(fen, str):
        raise InvalidFenError("a FEN is text such as B:W21,22:B1,2")
    g = variant.geometry
    text = fen.strip().strip('"').rstrip(".").strip()
    if len(text) > 400:
        raise InvalidFenError("that FEN is far too long")
    parts = [p.strip() for p in text.split(":")]
    if len(parts) != 3 or parts[0].upper() not in ("B", "W"):
        raise InvalidFenError(
            "{fen} is not a FEN: it looks like B:W21,22,K5:B1,2 (side to move, then each side's squares, K for a king)",
            fen=repr(_shorten(fen)),
        )
    turn = Color.BLACK if parts[0].upper() == "B" else Color.WHITE
    boards = {"B": 0, "W": 0}
    kings = 0
    seen_sides = set()
    for part in parts[1:]:
        if not part or part[0].upper() not in ("B", "W"):
            raise InvalidFenError("{fen}: each side's list starts with W or B", fen=repr(_shorten(fen)))
        side = part[0].upper()
        if side in seen_sides:
            raise InvalidFenError("{fen}: the list for {side} appears twice", fen=repr(_shorten(fen)), side=side)
        seen_sides.add(side)
        body = part[1:].strip()
        for item in filter(None, (i.strip() for i in body.split(","))):
            match = _FEN_ITEM.match(item.upper())
            if match is None:
                raise InvalidFenError("{item} in the FEN is not a square such as 12 or K12", item=repr(item))
            first = int(match.group(2))
            last = int(match.group(3)) if match.group(3) else first
            if last < first or last - first > g.squares:
                raise InvalidFenError("{item} in the FEN is not a valid range of squares", item=repr(item))
            for n in range(first, last + 1):
                if not 1 <= n <= g.squares:
                    raise InvalidFenError(
                        "square {square} in the FEN is not on the board (1 to {count})", square=n, count=g.squares
                    )
                mask = g.bit_of_square[n]
                if (boards["B"] | boards["W"]) & mask:
                    raise InvalidFenError("square {square} appears twice in the FEN", square=n)
                boards[side] |= mask
                if match.group(1):
                    if not variant.kings:
                        raise InvalidFenError(
                            "{variant} has no kings, but the FEN has a king on {square}", variant=variant.name, square=n
                        )
                    kings |= mask
    black, white = boards["B"], boards["W"]
    limit = g.start_rows * g.per_row
    too_many = (
        (black, "Black has {count} pieces in the FEN; a side has at most {limit}"),
        (white, "White has {count} pieces in the FEN; a side has at most {limit}"),
    )
    for board, message in too_many:
        if board.bit_count() > limit:
            raise InvalidFenError(message, count=board.bit_count(), limit=limit)
    if variant.kings:
        crowned_black = black & ~kings & g.white_home
        crowned_white = white & ~kings & g.black_home
        crowned = (
            (crowned_black, "a black man on {square} would have been crowned: write K{square}"),
            (crowned_white, "a white man on {square} would have been crowned: write K{square}"),
        )
        for board, message in crowned:
            if board:
                raise InvalidFenError(message, square=g.squares_of(board)[0])
    return black, white, kings, turn
