"""``master``'s evaluation compiled: the features of ``ai/features.py`` times the tuned weights, for the side to move,
plus the learned patterns (:mod:`ai.kernel.patterns`) where the variant's table has them.

Each feature is the side to move's count minus the opponent's; the masks and weights come from the variant's table
(:mod:`ai.kernel.tables`), so a re-fitted set of weights is a new table, not new code.
"""

from __future__ import annotations

from ai.kernel import tables as t
from ai.kernel.jit import lowest_bit, njit, popcount
from ai.kernel.network import network
from ai.kernel.patterns import patterns


@njit
def _runaways(men: int, empty: int, black: bool, k: t.Constants) -> int:
    """Men one step from crowning with a free crowning square ahead."""
    side = 1 if black else 0
    near = men & k[t.BEFORE_CROWN + side]
    if not near:
        return 0
    free = empty & k[t.CROWN_ROW + side]
    s = k[t.SHORT]
    l = k[t.LONG]
    if black:
        return popcount(((free >> s) | (free >> l)) & near)
    return popcount(((free << s) | (free << l)) & near)


@njit
def _mobility(own_kings: int, empty: int, k: t.Constants) -> int:
    """Empty squares next to a side's kings, counted once per king and direction."""
    if not own_kings:
        return 0
    s = k[t.SHORT]
    l = k[t.LONG]
    return popcount(((own_kings << s) | (own_kings << l) | (own_kings >> s) | (own_kings >> l)) & empty)


@njit
def evaluate(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> int:
    """The evaluation in hundredths of a man for the side to move."""
    empty = k[t.VALID] & ~(me | opp)
    my_kings = me & kings
    op_kings = opp & kings
    my_men = me ^ my_kings
    op_men = opp ^ op_kings
    mine = 1 if black else 0
    theirs = 1 - mine
    n_me = popcount(me)
    n_op = popcount(opp)
    w = t.WEIGHTS
    value = k[w] * (popcount(my_men) - popcount(op_men))
    value += k[w + 1] * (popcount(my_kings) - popcount(op_kings))
    value += k[w + 2] * (popcount(my_men & k[t.BACK + mine]) - popcount(op_men & k[t.BACK + theirs]))
    value += k[w + 3] * (popcount(my_men & k[t.CENTRE]) - popcount(op_men & k[t.CENTRE]))
    value += k[w + 4] * (popcount(my_kings & k[t.CENTRE]) - popcount(op_kings & k[t.CENTRE]))
    value += k[w + 5] * (popcount(my_men & k[t.MIDDLE + mine]) - popcount(op_men & k[t.MIDDLE + theirs]))
    value += k[w + 6] * (popcount(my_men & k[t.ADVANCED + mine]) - popcount(op_men & k[t.ADVANCED + theirs]))
    value += k[w + 7] * (popcount(me & k[t.EDGE]) - popcount(opp & k[t.EDGE]))
    value += k[w + 8] * (_mobility(my_kings, empty, k) - _mobility(op_kings, empty, k))
    value += k[w + 9] * (_runaways(my_men, empty, black, k) - _runaways(op_men, empty, not black, k))
    value += k[w + 10] * (n_me - n_op) * (k[t.START_PIECES] - n_me - n_op)
    if k[t.PATTERN_ON]:
        value += patterns(me, opp, kings, black, k)
    if k[t.NETWORK_AT]:
        value += network(me, opp, kings, black, k)
    return int(value)


PROGRESS_LIMIT = 300
DRIVE_DIVISOR = 2
DRIVE_PIECES = 10


@njit
def _row_col(bit: int, k: t.Constants) -> tuple[int, int]:
    """The row (from Black's side) and column of the square at ``bit``."""
    per_row = k[t.SHORT]
    square = bit - bit // k[t.GROUP]
    row = square // per_row
    return row, 2 * (square % per_row) + (1 if row % 2 == 0 else 0)


@njit
def progress(winner: int, loser: int, kings: int, k: t.Constants) -> int:
    """How far the winner of a won ending has come, in its own material (for the endgame databases' search): its kings
    close in on the loser's pieces (each king's distance in king steps to the nearest one counts against it), and the
    loser's pieces are held away from the centre, where they have room. Between ``-PROGRESS_LIMIT`` and the limit."""
    value = 0
    hunters = winner & kings
    while hunters:
        hunter = lowest_bit(hunters)
        hunters &= hunters - 1
        row, col = _row_col(hunter, k)
        nearest = 8
        prey = loser
        while prey:
            target = lowest_bit(prey)
            prey &= prey - 1
            t_row, t_col = _row_col(target, k)
            nearest = min(nearest, max(abs(row - t_row), abs(col - t_col)))
        value -= 12 * nearest
    value -= 20 * popcount(loser & k[t.CENTRE])
    value += 10 * popcount(winner & k[t.CENTRE])
    return max(-PROGRESS_LIMIT, min(PROGRESS_LIMIT, value))


@njit
def drive(me: int, opp: int, kings: int, k: t.Constants) -> int:
    """A plan for the side to move in an ending the evaluation's features cannot see through: where one side has more
    pieces and a king, and the other at most one man or the board at most :data:`DRIVE_PIECES` pieces, the stronger
    side's kings are driven at the weaker side's pieces (:func:`progress`, the won endings' measure, halved), for the
    side to move. Zero while the weaker side has two men or more on a fuller board."""
    n_me = popcount(me)
    n_op = popcount(opp)
    few = n_me + n_op <= DRIVE_PIECES
    if n_me > n_op and me & kings and (few or popcount(opp & ~kings) <= 1):
        return progress(me, opp, kings, k) // DRIVE_DIVISOR
    if n_op > n_me and opp & kings and (few or popcount(me & ~kings) <= 1):
        return -(progress(opp, me, kings, k) // DRIVE_DIVISOR)
    return 0
