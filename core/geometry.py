"""Board shapes as bitboard layouts, built once at import.

The dark squares are stored in an integer with one *ghost* bit after every two rows, so that each diagonal direction
is one constant shift for every square: on the 8×8 board a step is a shift by 4 or 5 bits, on the 6×6 board by 3 or
4. A step off the side of the board lands on a ghost bit or outside the board and is masked away. Square ``n`` (PDN
numbering, 1 at the top left from Black's side) lives at bit ``n - 1 + (n - 1) // (2 * per_row)``.

Black starts on the low squares and moves towards higher bits (left shifts); White moves towards lower bits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FILES = "abcdefghij"
"""The letters of the files in algebraic notation, from the left."""


@dataclass(frozen=True)
class Geometry:
    """One board shape: its size and the tables that map PDN squares to bits."""

    size: int
    """Rows (and columns) of the board: 8 or 6."""

    per_row: int = field(init=False)
    squares: int = field(init=False)
    short: int = field(init=False)
    """The shift of the diagonal that stays in the same half-row pair (4 on 8×8)."""
    long: int = field(init=False)
    """The shift of the other diagonal (5 on 8×8)."""
    valid: int = field(init=False)
    """Mask of the bits that are squares of the board."""
    bit_of_square: tuple[int, ...] = field(init=False)
    """``bit_of_square[n]`` is the single-bit mask of square ``n``; index 0 is unused."""
    square_of_bit: dict[int, int] = field(init=False)
    """Inverse of ``bit_of_square``: single-bit mask to PDN square number."""
    row_of_square: tuple[int, ...] = field(init=False)
    col_of_square: tuple[int, ...] = field(init=False)
    black_home: int = field(init=False)
    """Mask of Black's back row (the row White crowns on)."""
    white_home: int = field(init=False)
    """Mask of White's back row (the row Black crowns on)."""
    start_rows: int = field(init=False)
    """Rows of men each side starts with."""

    def __post_init__(self) -> None:
        per_row = self.size // 2
        squares = per_row * self.size
        bits = [0] + [1 << (n - 1 + (n - 1) // (2 * per_row)) for n in range(1, squares + 1)]
        rows = [0] + [(n - 1) // per_row for n in range(1, squares + 1)]
        cols = [0]
        for n in range(1, squares + 1):
            row, index = divmod(n - 1, per_row)
            cols.append(2 * index + (1 if row % 2 == 0 else 0))
        valid = 0
        for mask in bits[1:]:
            valid |= mask
        set_ = object.__setattr__
        set_(self, "per_row", per_row)
        set_(self, "squares", squares)
        set_(self, "short", per_row)
        set_(self, "long", per_row + 1)
        set_(self, "valid", valid)
        set_(self, "bit_of_square", tuple(bits))
        set_(self, "square_of_bit", {mask: n for n, mask in enumerate(bits) if n})
        set_(self, "row_of_square", tuple(rows))
        set_(self, "col_of_square", tuple(cols))
        set_(self, "black_home", self.mask(range(1, per_row + 1)))
        set_(self, "white_home", self.mask(range(squares - per_row + 1, squares + 1)))
        set_(self, "start_rows", (self.size - 2) // 2)

    def mask(self, squares: object) -> int:
        """The bitboard of an iterable of PDN square numbers."""
        result = 0
        for n in squares:  # type: ignore[attr-defined]
            result |= self.bit_of_square[n]
        return result

    def squares_of(self, board: int) -> list[int]:
        """PDN square numbers of the bits set in ``board``, in increasing order."""
        result = []
        square_of_bit = self.square_of_bit
        while board:
            low = board & -board
            result.append(square_of_bit[low])
            board ^= low
        return result

    def square_name(self, square: int) -> str:
        """The algebraic name of PDN square ``square``: files a, b, … from the left, rank 1 at the bottom (White's
        side), so square 11 is ``f6`` and square 1 is ``b8`` on the 8×8 board."""
        return f"{FILES[self.col_of_square[square]]}{self.size - self.row_of_square[square]}"

    def square_named(self, name: str) -> int | None:
        """The PDN square of an algebraic name such as ``f6`` (any case), or None for a light or unknown square."""
        name = name.strip().lower()
        if len(name) < 2 or name[0] not in FILES or not name[1:].isdigit():
            return None
        return self.square_at(self.size - int(name[1:]), FILES.index(name[0]))

    def square_at(self, row: int, col: int) -> int | None:
        """The PDN square at a row (0 at Black's side) and column (0 at the left), or None for a light square."""
        if not (0 <= row < self.size and 0 <= col < self.size) or (row + col) % 2 == 0:
            return None
        return row * self.per_row + col // 2 + 1


EIGHT = Geometry(8)
SIX = Geometry(6)
