"""Compiled perft, counted exactly as ``core.perft`` counts: leaves bulk-counted, a blocked side passes where the
variant passes (and the pass is a move), draw rules not applied."""

from __future__ import annotations

from ai.kernel import movegen as mg
from ai.kernel import tables as t
from ai.kernel.jit import njit


@njit
def perft(
    me: int, opp: int, kings: int, black: bool, depth: int, k: t.Constants, buf: mg.Buffer, stack: mg.Buffer
) -> int:
    """The number of leaf positions ``depth`` plies below the node (``buf`` has room for ``depth + 1`` plies)."""
    if depth == 0:
        return 1
    at = depth * mg.MAX_MOVES
    if depth == 1:
        n = mg.count(me, opp, kings, black, k, buf, at, stack)
        if n == 0 and mg.can_pass(me, opp, kings, black, k, buf, at, stack):
            return 1
        return n
    end = mg.generate(me, opp, kings, black, k, buf, at, stack)
    if end == at:
        if mg.can_pass(me, opp, kings, black, k, buf, at, stack):
            return perft(opp, me, kings, not black, depth - 1, k, buf, stack)
        return 0
    total = 0
    for i in range(at, end):
        c_me, c_opp, c_kings = mg.apply(me, opp, kings, black, buf[0, i], k)
        total += perft(c_me, c_opp, c_kings, not black, depth - 1, k, buf, stack)
    return total
