"""Evaluations of a search node for the fixed-depth levels and ``hard``, each from the side to move's point of view.

- :func:`material`: men 1, kings 2, own minus the opponent's; a won or lost game is worth :data:`MATERIAL_WIN` (±500).
- :class:`MaterialGainEvaluator`: the same count, as the change since the root position: what a line wins or loses.
- :class:`TwoPhaseEvaluator`: an early-game heuristic (centre, home row, men, kings) and an end-game one (men, boosted
  kings, and trades for the side that is ahead), with a little noise so that equal moves are chosen between at random.

``docs/ai.md`` tells where each idea comes from.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from core.geometry import Geometry

Evaluate = Callable[[int, int, int, bool], float]
"""An evaluation of the node ``(me, opp, kings, black)`` for its side to move."""

MATERIAL_WIN = 500.0
"""The value of a won game beside :func:`material` (a lost one is worth its negation)."""


def material(me: int, opp: int, kings: int) -> float:
    """1 × own men + 2 × own kings − 1 × the opponent's men − 2 × the opponent's kings."""
    return float(
        (me & ~kings).bit_count()
        + 2 * (me & kings).bit_count()
        - (opp & ~kings).bit_count()
        - 2 * (opp & kings).bit_count()
    )


class MaterialGainEvaluator:
    """The change of ``U_s − U_o + 2(K_s − K_o)`` since the root, for the side to move: U are men, K kings, s the
    side's own and o the opponent's.

    The value is linear in the counts, so for the root player it is the material now minus the material at the root,
    and for its opponent it is the negation of that.
    """

    __slots__ = ("root_black", "root_value")

    def __init__(self, me: int, opp: int, kings: int, black: bool) -> None:
        self.root_black = black
        self.root_value = material(me, opp, kings)
        """``U_s − U_o + 2(K_s − K_o)`` at the root for the root player."""

    def __call__(self, me: int, opp: int, kings: int, black: bool) -> float:
        value = material(me, opp, kings)
        return value - self.root_value if black == self.root_black else value + self.root_value


class TwoPhaseEvaluator:
    """An early-game and an end-game heuristic, for the side to move, with weights in the order of their importance.

    Early game, from least to most valuable: pieces in the middle rows but not in the middle box (1), pieces in the
    middle box (2), pieces on the own home row (3, or 5 while the opponent still has men to crown), men (20),
    kings (30).

    End game (one side has less than two-thirds of the other's pieces, or fewer than 15 pieces are on the board and one
    side has more kings, or fewer than 10 pieces are on the board): the number of pieces on the board (1, counted
    against the side that is ahead, so that the winning side prefers trades), men (20), kings boosted to 40.

    A small random value (below the smallest weight) is added so that equal moves are chosen between at random.
    """

    MIDDLE, BOX, HOME, HOME_BOOSTED, MAN, KING = 1.0, 2.0, 3.0, 5.0, 20.0, 30.0
    END_PIECES, END_MAN, END_KING = 1.0, 20.0, 40.0
    NOISE = 0.5

    __slots__ = ("black_home", "box", "middle", "rng", "white_home")

    def __init__(self, geometry: Geometry, rng: random.Random) -> None:
        size = geometry.size
        middle_rows = {size // 2 - 1, size // 2}
        box_cols = range(size // 2 - 2, size // 2 + 2)
        middle = box = 0
        for n in range(1, geometry.squares + 1):
            if geometry.row_of_square[n] in middle_rows:
                if geometry.col_of_square[n] in box_cols:
                    box |= geometry.bit_of_square[n]
                else:
                    middle |= geometry.bit_of_square[n]
        self.middle, self.box = middle, box
        self.black_home, self.white_home = geometry.black_home, geometry.white_home
        self.rng = rng

    def is_end_game(self, me: int, opp: int, kings: int) -> bool:
        """Whether the end-game heuristic applies."""
        mine, theirs = me.bit_count(), opp.bit_count()
        total = mine + theirs
        if 3 * min(mine, theirs) < 2 * max(mine, theirs):
            return True
        if total < 15 and (me & kings).bit_count() != (opp & kings).bit_count():
            return True
        return total < 10

    def __call__(self, me: int, opp: int, kings: int, black: bool) -> float:
        noise = self.rng.random() * self.NOISE
        my_kings, their_kings = (me & kings).bit_count(), (opp & kings).bit_count()
        my_men, their_men = me.bit_count() - my_kings, opp.bit_count() - their_kings
        if self.is_end_game(me, opp, kings):
            material = self.END_MAN * (my_men - their_men) + self.END_KING * (my_kings - their_kings)
            total = my_men + my_kings + their_men + their_kings
            ahead = (material > 0) - (material < 0)
            return material - ahead * self.END_PIECES * total + noise
        my_home, their_home = (self.black_home, self.white_home) if black else (self.white_home, self.black_home)
        value = self.MIDDLE * ((me & self.middle).bit_count() - (opp & self.middle).bit_count())
        value += self.BOX * ((me & self.box).bit_count() - (opp & self.box).bit_count())
        value += (self.HOME_BOOSTED if their_men else self.HOME) * (me & my_home).bit_count()
        value -= (self.HOME_BOOSTED if my_men else self.HOME) * (opp & their_home).bit_count()
        value += self.MAN * (my_men - their_men) + self.KING * (my_kings - their_kings)
        return value + noise
