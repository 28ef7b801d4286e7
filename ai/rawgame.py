"""The rules of a game as the searches see them: raw bitboards, passes and the end of the game.

A search node is ``(me, opp, kings, black)``: the bitboards of the side to move and of its opponent, the kings of both,
and whether the side to move is Black. :func:`expand` gives the moves of a node (a blocked side that passes gets the
single move :data:`PASS_RAW`) or, when the game is over there, its result for the side to move. The draw rules that
depend on the history (repetition, the 80-ply rule) are left to the searches that track history.
"""

from __future__ import annotations

from dataclasses import dataclass

from core import Board, Color, Move, Variant
from core.movegen import MoveGenerator, RawMove
from core.variants import BlockedRule

PASS_RAW: RawMove = (0, 0, 0, None)
"""The raw pass: applying it changes no bitboard (``MoveGenerator.apply`` leaves everything as it was)."""

LOSS, DRAW, WIN = -1, 0, 1


@dataclass(frozen=True, slots=True)
class Rules:
    """One variant's end-of-game rules, bound once per search."""

    gen: MoveGenerator
    passes: bool
    count_wins: bool
    """When neither side can move, the side with more pieces wins (mini); otherwise it is a draw."""

    @classmethod
    def of(cls, variant: Variant) -> Rules:
        return cls(variant.generator, variant.passes, variant.blocked is BlockedRule.PASSES_COUNT)


def expand(rules: Rules, me: int, opp: int, kings: int, black: bool) -> list[RawMove] | int:
    """The moves of the side to move, or its result (:data:`LOSS`, :data:`DRAW`, :data:`WIN`) if the game is over."""
    if not me:
        return LOSS
    gen = rules.gen
    moves = gen.moves(me, opp, kings, black)
    if moves:
        return moves
    if not rules.passes:
        return LOSS
    if opp and gen.count(opp, me, kings, not black):
        return [PASS_RAW]
    if not rules.count_wins:
        return DRAW
    mine, theirs = me.bit_count(), opp.bit_count()
    return WIN if mine > theirs else LOSS if mine < theirs else DRAW


def node_of(board: Board) -> tuple[int, int, int, bool]:
    """The search node ``(me, opp, kings, black)`` of a board."""
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    return me, opp, board.kings, black


def root_moves(board: Board) -> list[tuple[RawMove, Move]]:
    """The legal moves of a board, each as a raw move beside its :class:`core.Move` (a pass is ``PASS_RAW``)."""
    legal = board.legal_moves
    raws = board.raw_moves()
    if not raws:
        return [(PASS_RAW, move) for move in legal]
    if len(raws) != len(legal):  # never expected: the board builds its moves from the same generator
        raise RuntimeError("raw and legal moves disagree")
    return list(zip(raws, legal, strict=True))


def apply(gen: MoveGenerator, me: int, opp: int, kings: int, black: bool, move: RawMove) -> tuple[int, int, int]:
    """The child node's ``(me, opp, kings)`` after ``move``: the sides are already swapped."""
    new_me, new_opp, new_kings = gen.apply(me, opp, kings, black, move)
    return new_opp, new_me, new_kings
