"""The board features the three learners see, always from one side's point of view (``color``).

Every feature is colour-independent: "own" and "opponent" replace Black and White, and rows are counted from the side's
own back row, so a table or weight vector learnt playing Black serves as White too.

- :func:`q_state` — seven state characteristics (the Q-learning state abstraction).
- :func:`lms_features` — x1..x6 of the LMS linear evaluation.
- :func:`sarsa_features` — eight state-action features.
- :func:`threatened` — how many of a side's pieces the opponent could take with its next move.
"""

from __future__ import annotations

from core import Board, Color
from core.geometry import Geometry

QState = tuple[int, int, int, int, int, int, int]
"""The Q-learning state: own men, opponent men, own kings, opponent kings, own pieces on the side edges, own and
opponent vertical centre of mass (integer rows from the side's own back row)."""


_ROWS: dict[int, tuple[int, ...]] = {}
_EDGES: dict[int, int] = {}


def _rows(geometry: Geometry) -> tuple[int, ...]:
    """The bitboard of each row, row 0 at Black's side (cached by board size)."""
    cached = _ROWS.get(geometry.size)
    if cached is not None:
        return cached
    masks = [0] * geometry.size
    for n in range(1, geometry.squares + 1):
        masks[geometry.row_of_square[n]] |= geometry.bit_of_square[n]
    _ROWS[geometry.size] = result = tuple(masks)
    return result


def _edges(geometry: Geometry) -> int:
    """The bitboard of the squares on the left and right edges (cached by board size)."""
    cached = _EDGES.get(geometry.size)
    if cached is None:
        last = geometry.size - 1
        cached = geometry.mask(n for n in range(1, geometry.squares + 1) if geometry.col_of_square[n] in (0, last))
        _EDGES[geometry.size] = cached
    return cached


def men_kings(board: Board, color: Color) -> tuple[int, int]:
    """``(men, kings)`` of a side."""
    pieces = board.pieces(color)
    kings = (pieces & board.kings).bit_count()
    return pieces.bit_count() - kings, kings


def centre_of_mass(board: Board, pieces: int, color: Color) -> int:
    """The integer (floored) mean row of ``pieces``, counted from ``color``'s own back row (0 when there are none).

    A man weighs the same as a king."""
    total = pieces.bit_count()
    if not total:
        return 0
    rows = _rows(board.variant.geometry)
    last = len(rows) - 1
    moment = 0
    for row, mask in enumerate(rows):
        here = (pieces & mask).bit_count()
        if here:
            moment += here * (row if color is Color.BLACK else last - row)
    return moment // total


def q_state(board: Board, color: Color) -> QState:
    """The seven state characteristics of ``board`` for ``color`` (see :data:`QState`)."""
    own, opp = board.pieces(color), board.pieces(color.opponent)
    own_kings, opp_kings = (own & board.kings).bit_count(), (opp & board.kings).bit_count()
    return (
        own.bit_count() - own_kings,
        opp.bit_count() - opp_kings,
        own_kings,
        opp_kings,
        (own & _edges(board.variant.geometry)).bit_count(),
        centre_of_mass(board, own, color),
        centre_of_mass(board, opp, color),
    )


def threatened(board: Board, color: Color) -> int:
    """How many of ``color``'s pieces the opponent could take with one move (a jump or a multi-jump) if it were the
    opponent's turn, whoever is actually to move."""
    attacker = color.opponent
    taken = 0
    for _, _, captured, _ in board.variant.generator.captures(
        board.pieces(attacker), board.pieces(color), board.kings, attacker is Color.BLACK
    ):
        taken |= captured
    return taken.bit_count()


def lms_features(board: Board, color: Color) -> tuple[float, ...]:
    """The LMS features with the constant ``x0 = 1`` for the bias weight ``w0`` first:
    ``(1, x1..x6)`` = own pieces, opponent pieces, own kings, opponent kings, own pieces threatened by the opponent,
    opponent pieces threatened by own."""
    own, opp = board.pieces(color), board.pieces(color.opponent)
    return (
        1.0,
        float(own.bit_count()),
        float(opp.bit_count()),
        float((own & board.kings).bit_count()),
        float((opp & board.kings).bit_count()),
        float(threatened(board, color)),
        float(threatened(board, color.opponent)),
    )


def sarsa_features(before: Board, after: Board, color: Color) -> tuple[float, ...]:
    """The eight features of the state-action pair (s, a), where ``before`` is s and ``after`` is s', the board
    that action a leads to, seen by ``color`` (the agent):

    1-4. agent men, agent kings, opponent men, opponent kings in s;
    5-7. change (s' − s) in opponent men, opponent kings, opponent pieces;
    8. agent pieces attacked by the opponent in s'.

    Raw counts: :mod:`ai.learners.sarsa` scales them before use.
    """
    own_men, own_kings = men_kings(before, color)
    opp_men, opp_kings = men_kings(before, color.opponent)
    return sarsa_features_after((own_men, own_kings, opp_men, opp_kings), after, color)


def sarsa_features_after(s: tuple[int, int, int, int], after: Board, color: Color) -> tuple[float, ...]:
    """:func:`sarsa_features` from the counts of s (agent men, agent kings, opponent men, opponent kings) and s'."""
    own_men, own_kings, opp_men, opp_kings = s
    opp_men2, opp_kings2 = men_kings(after, color.opponent)
    return (
        float(own_men),
        float(own_kings),
        float(opp_men),
        float(opp_kings),
        float(opp_men2 - opp_men),
        float(opp_kings2 - opp_kings),
        float((opp_men2 + opp_kings2) - (opp_men + opp_kings)),
        float(threatened(after, color)),
    )
