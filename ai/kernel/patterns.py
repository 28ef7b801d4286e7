"""The pattern evaluation compiled (see :mod:`ai.patterns.regions` for the groups and :mod:`ai.patterns` for the fit).

The side to move's men and the opponent's are packed to 32-bit square masks (square ``n`` at bit ``n - 1``) and, with
White to move, reversed (the half turn). Band ``q`` is then byte ``4q`` of a mask, and the blocks are two bands'
halves, so a group's eight squares come out with two shifts and a mask; :data:`~ai.kernel.tables.PATTERN_TERNARY`
turns each side's byte into its base-3 digits.
"""

from __future__ import annotations

from ai.kernel import tables as t
from ai.kernel.egdb import compact
from ai.kernel.jit import njit, popcount
from ai.patterns.regions import CONFIGURATIONS, FULL, GROUPS


@njit
def reverse32(x: int) -> int:
    """A 32-bit square mask turned half a turn (bit ``i`` to bit ``31 - i``)."""
    x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
    x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
    x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
    x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
    return ((x >> 16) & 0xFFFF) | ((x & 0xFFFF) << 16)


@njit
def patterns(me: int, opp: int, kings: int, black: bool, k: t.Constants) -> int:
    """The patterns' value for the side to move, in hundredths of a man."""
    mine = compact(me & ~kings)
    theirs = compact(opp & ~kings)
    if not black:
        mine = reverse32(mine)
        theirs = reverse32(theirs)
    ternary = t.PATTERN_TERNARY
    full_at = t.PATTERN_WEIGHTS
    empty_at = full_at + GROUPS * CONFIGURATIONS
    full = 0
    empty = 0
    for q in range(7):
        index = k[ternary + ((mine >> (4 * q)) & 0xFF)] + 2 * k[ternary + ((theirs >> (4 * q)) & 0xFF)]
        at = q * CONFIGURATIONS + index
        full += k[full_at + at]
        empty += k[empty_at + at]
    for q in range(5):
        m0 = (mine >> (4 * q)) & 0xFF
        m2 = (mine >> (4 * q + 8)) & 0xFF
        o0 = (theirs >> (4 * q)) & 0xFF
        o2 = (theirs >> (4 * q + 8)) & 0xFF
        left = k[ternary + ((m0 & 0x33) | ((m2 & 0x33) << 2))] + 2 * k[ternary + ((o0 & 0x33) | ((o2 & 0x33) << 2))]
        right = k[ternary + (((m0 & 0xCC) >> 2) | (m2 & 0xCC))] + 2 * k[ternary + (((o0 & 0xCC) >> 2) | (o2 & 0xCC))]
        at = (7 + 2 * q) * CONFIGURATIONS
        full += k[full_at + at + left] + k[full_at + at + CONFIGURATIONS + right]
        empty += k[empty_at + at + left] + k[empty_at + at + CONFIGURATIONS + right]
    share = min(popcount(me | opp), FULL)
    return (full * share + empty * (FULL - share)) // FULL
