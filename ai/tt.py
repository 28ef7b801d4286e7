"""The score conventions of King Me's searches: the bound flags of a table entry, mate scores (a win ``ply`` plies
from the root is worth ``MATE - ply``) and how a mate score is stored relative to its node (:func:`to_tt`,
:func:`from_tt`) so it stays right wherever the position turns up again. The compiled kernel (:mod:`ai.kernel.tt`)
implements them and is tested against these; the review (:mod:`ai.review`) reads won games by :data:`MATE_BOUND`.
"""

from __future__ import annotations

EXACT, LOWER, UPPER = 0, 1, 2
MATE = 1_000_000
MATE_BOUND = MATE - 10_000
"""Scores beyond this are won or lost games (``MATE - ply``)."""

def to_tt(score: int, ply: int) -> int:
    """A score found ``ply`` plies below the root, made relative to its node for storing."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def from_tt(score: int, ply: int) -> int:
    """A stored score, made relative to the root again."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


def mate_window(alpha: int, beta: int, ply: int) -> tuple[int, int]:
    """Mate-distance pruning: ``(alpha, beta)`` narrowed to the scores a node ``ply`` plies below the root can still
    reach (the node is cut off when the window closes, ``alpha >= beta``)."""
    return max(alpha, ply - MATE), min(beta, MATE - ply - 1)
