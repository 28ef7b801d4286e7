"""The pattern evaluation's groups of squares, the index of a configuration, and a plain-Python evaluation.

Squares are numbered 1 to 32 from the side to move's point of view: the side to move's men start on 1–12 and move
towards 32 (a position with White to move is turned half a turn, square ``n`` becoming ``33 - n``). There are
:data:`GROUPS` groups of eight squares:

- seven *bands*, two rows each, overlapping by a row: band ``q`` is squares ``4q + 1`` to ``4q + 8``;
- ten *blocks*, four rows by half the board's width, one on each side for the rows ``q + 1`` to ``q + 4``.

A square of a group is empty (0), holds the side to move's man (1) or the opponent's man (2); kings count as empty
(the hand-picked features value them). A configuration's index is ``sum(3**j * state of square j)``, so each group has
:data:`CONFIGURATIONS` weights, in each of two :data:`PHASES`: a position's weight is the full board's weight times
``pieces / 24`` plus the empty board's times ``(24 - pieces) / 24`` (``pieces`` capped at 24), rounded down once for
the sum over every group.

This module is the reference: the compiled kernel (:mod:`ai.kernel.patterns`) reaches the same squares by shifting
bitboards, and a test holds the two equal on random positions.
"""

from __future__ import annotations

from collections.abc import Sequence

from core import Board, Color

GROUPS = 17
CONFIGURATIONS = 3**8
PHASES = 2
FULL = 24
"""The number of pieces at which a position is all in the first phase (the starting position's)."""


def _band(q: int) -> tuple[int, ...]:
    return tuple(4 * q + 1 + j for j in range(8))


def _block(q: int, right: bool) -> tuple[int, ...]:
    o = 2 if right else 0
    return (4 * q + 1 + o, 4 * q + 2 + o, 4 * q + 9 + o, 4 * q + 10 + o, 4 * q + 5 + o, 4 * q + 6 + o, 4 * q + 13 + o,
            4 * q + 14 + o)  # fmt: skip


TERNARY: tuple[int, ...] = tuple(sum(3**j for j in range(8) if byte >> j & 1) for byte in range(256))
"""A byte's bits as base-3 digits (bit ``j`` is worth ``3**j``): one side's eight squares of a group as its part of
the index (the opponent's part is twice it). The kernel and the trainer index the groups with it."""

REGIONS: tuple[tuple[int, ...], ...] = (
    *(_band(q) for q in range(7)),
    *(_block(q, right) for q in range(5) for right in (False, True)),
)
"""The groups' squares, each in the order of its index's digits."""


def men_squares(board: Board) -> tuple[frozenset[int], frozenset[int]]:
    """The side to move's men and the opponent's as squares of the side to move's point of view."""
    square_of_bit = board.variant.geometry.square_of_bit
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)

    def squares(mask: int) -> frozenset[int]:
        found = set()
        while mask:
            low = mask & -mask
            mask ^= low
            square = square_of_bit[low]
            found.add(square if black else 33 - square)
        return frozenset(found)

    return squares(me & ~board.kings), squares(opp & ~board.kings)


def indices(mine: frozenset[int], theirs: frozenset[int]) -> list[int]:
    """Each group's configuration index for the side to move's men ``mine`` and the opponent's ``theirs``."""
    out = []
    for group in REGIONS:
        index = 0
        for j, square in enumerate(group):
            index += 3**j * (1 if square in mine else 2 if square in theirs else 0)
        out.append(index)
    return out


def phase_share(pieces: int) -> int:
    """The first phase's share of a position with ``pieces`` pieces, out of :data:`FULL`."""
    return min(pieces, FULL)


def evaluate(board: Board, weights: Sequence[Sequence[Sequence[int]]]) -> int:
    """The patterns' value of ``board`` for the side to move, with ``weights[phase][group][index]``."""
    mine, theirs = men_squares(board)
    share = phase_share((board.black | board.white).bit_count())
    full = empty = 0
    for group, index in enumerate(indices(mine, theirs)):
        full += weights[0][group][index]
        empty += weights[1][group][index]
    return (full * share + empty * (FULL - share)) // FULL
