"""How a game ends: a :class:`Termination` and an :class:`Outcome`."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Color(enum.IntEnum):
    """A side. Black moves first."""

    BLACK = 0
    WHITE = 1

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def label(self) -> str:
        return "Black" if self is Color.BLACK else "White"


class Termination(enum.Enum):
    """Why a game ended."""

    NO_PIECES = "no pieces"
    NO_MOVES = "no moves"
    REPETITION = "threefold repetition"
    MOVE_LIMIT = "40-move rule"
    AGREEMENT = "draw agreed"
    RESIGNATION = "resignation"
    TIME = "time"


@dataclass(frozen=True)
class Outcome:
    """The end of a game: why, and who won (``None`` for a draw)."""

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """The PDN result: ``1-0`` when Black (the first side to move) won, ``0-1`` for White, ``1/2-1/2`` a draw."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Color.BLACK else "0-1"

    def describe(self) -> str:
        """A short sentence for players, e.g. ``White wins: Black has no moves``."""
        if self.winner is None:
            return f"Draw: {self.termination.value}"
        loser = self.winner.opponent.label
        reasons = {
            Termination.NO_PIECES: f"{loser} has no pieces left",
            Termination.NO_MOVES: f"{loser} has no moves",
            Termination.RESIGNATION: f"{loser} resigned",
            Termination.TIME: f"{loser} ran out of time",
        }
        return f"{self.winner.label} wins: {reasons.get(self.termination, self.termination.value)}"
