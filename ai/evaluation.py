"""The evaluation functions of the seed players, each from the point of view of the side to move.

- :func:`material_003`: seed 003 (``shared/seeds/003_*``), "About Alpha-Beta agent": pawns 1, kings 2, own minus the
  opponent's; a won game is +500 and a lost one -500 (:data:`SEED_003_WIN`).
- :class:`DeltaEvaluator`: seed 000 (``shared/seeds/000_*``), "Alpha-Beta Pruning AI":
  ``value = ΔU_s − ΔU_o + 2(ΔK_s − ΔK_o)``, the change from the root position of the uncrowned pieces (U) and kings
  (K) of the player itself (s) and of its opponent (o); ±infinity for a won or lost game.
- :class:`Seed004Evaluator`: seed 004 (``shared/seeds/004_*``), the early-game / end-game heuristic of the
  iterative-deepening player.
"""

from __future__ import annotations

import random

from core.geometry import Geometry

SEED_003_WIN = 500.0
"""Seed 003: "If minimax agent wins, +500; if minimax agent loses, −500"."""


def material_003(me: int, opp: int, kings: int) -> float:
    """Seed 003: 1 × own pawns + 2 × own kings − 1 × the opponent's pawns − 2 × the opponent's kings."""
    return float(
        (me & ~kings).bit_count()
        + 2 * (me & kings).bit_count()
        - (opp & ~kings).bit_count()
        - 2 * (opp & kings).bit_count()
    )


class DeltaEvaluator:
    """Seed 000's evaluation: the change of ``U_s − U_o + 2(K_s − K_o)`` since the root, for the side to move.

    The value is linear in the counts, so for the root player it is the material now minus the material at the root,
    and for its opponent it is the negation of that.
    """

    __slots__ = ("root_black", "root_value")

    def __init__(self, me: int, opp: int, kings: int, black: bool) -> None:
        self.root_black = black
        self.root_value = material_003(me, opp, kings)
        """``U_s − U_o + 2(K_s − K_o)`` at the root for the root player."""

    def __call__(self, me: int, opp: int, kings: int, black: bool) -> float:
        value = material_003(me, opp, kings)
        return value - self.root_value if black == self.root_black else value + self.root_value


class Seed004Evaluator:
    """Seed 004's heuristic (alorber/AI-Checkers), for the side to move, with weights in the order the seed gives.

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
        """The seed's trigger for the end-game heuristic."""
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
