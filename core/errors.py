"""Typed errors of the rules engine.

Every error a caller can provoke with bad input is a subclass of :class:`ValueError`, and its message is written for a
player: it says what was wrong and, where it helps, what would be right.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the rules engine raises on bad input."""


class UnknownVariantError(RulesError):
    """A variant name that the engine does not know."""


class InvalidSquareError(RulesError):
    """A square number that is not on the board."""


class InvalidFenError(RulesError):
    """A FEN string that cannot be read."""


class InvalidMoveTextError(RulesError):
    """Move text that is not of the form ``11-15``, ``15x24`` or ``1x10x19``."""


class IllegalMoveError(RulesError):
    """A well-formed move that the rules do not allow in this position."""


class AmbiguousMoveError(IllegalMoveError):
    """Short move text that fits more than one legal capture path."""

    def __init__(self, message: str, candidates: tuple[str, ...]) -> None:
        super().__init__(message)
        self.candidates = candidates

    def __reduce__(self) -> tuple[type[AmbiguousMoveError], tuple[str, tuple[str, ...]]]:
        """Pickle with the candidates, so the error crosses process boundaries unchanged."""
        return (type(self), (str(self), self.candidates))


class InvalidPdnError(RulesError):
    """A PDN game that cannot be read."""
