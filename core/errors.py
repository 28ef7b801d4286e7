"""Typed errors of the rules engine.

Every error a caller can provoke with bad input is a subclass of :class:`ValueError`, and its message is written for a
player: it says what was wrong and, where it helps, what would be right. An error is data: ``template`` (one of
:data:`MESSAGES`, its English text with ``{placeholders}``: the message's id) and ``params``; ``str(error)`` is the
English message. A front end that speaks another language looks the template up in its catalogue and fills in the
same parameters, never reading the English back (a parameter may itself be a :class:`RulesError`, to be said first).
"""

from __future__ import annotations

from typing import Any

MESSAGES: tuple[str, ...] = (
    "square {square} is not on the board: squares are 1 to {count}",
    "{square} is not a dark square of the board",
    "a move is text such as 11-15 or 15x24",
    "you cannot pass: you have a legal move",
    "{text} is not a move: write it as start-end (11-15 or f6-e5) or captures as 15x24 or 1x10x19",
    "{move} is illegal: the game is over",
    "{move} is illegal: a capture is compulsory ({moves})",
    "{move} is illegal here; legal moves: {moves}",
    "{move} fits more than one capture: write the whole path, one of {moves}",
    "unknown variant {name}: choose one of {known}",
    "a FEN is text such as B:W21,22:B1,2",
    "that FEN is far too long",
    "{fen} is not a FEN: it looks like B:W21,22,K5:B1,2 (side to move, then each side's squares, K for a king)",
    "{fen}: each side's list starts with W or B",
    "{fen}: the list for {side} appears twice",
    "{item} in the FEN is not a square such as 12 or K12",
    "{item} in the FEN is not a valid range of squares",
    "square {square} in the FEN is not on the board (1 to {count})",
    "square {square} appears twice in the FEN",
    "{variant} has no kings, but the FEN has a king on {square}",
    "Black has {count} pieces in the FEN; a side has at most {limit}",
    "White has {count} pieces in the FEN; a side has at most {limit}",
    "a black man on {square} would have been crowned: write K{square}",
    "a white man on {square} would have been crowned: write K{square}",
    "{result} is not a PDN result: use 1-0, 0-1, 1/2-1/2 or *",
    "PDN is text",
    "game {number}: the tag {tag} is malformed",
    "no game found in the PDN text",
    "game {number}: GameType {game_type} is not English draughts (21)",
    "game {number}: {error}",
    "game {number}: bad FEN tag: {error}",
    "game {number}, move {move}: {error}",
)
"""Every message the rules can give, as templates: the ids a front end's catalogue translates (a test checks that
every error raised in ``core`` uses one of them)."""


class RulesError(ValueError):
    """Base class of every error the rules engine raises on bad input: ``template`` and ``params`` (see above)."""

    def __init__(self, template: str, /, **params: Any) -> None:
        super().__init__(template.format_map(params) if params else template)
        self.template = template
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the template and parameters, so the error crosses process boundaries unchanged."""
        return (_rebuild, (type(self), str(self), self.__dict__))


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

    def __init__(self, template: str, /, candidates: tuple[str, ...] = (), **params: Any) -> None:
        super().__init__(template, **params)
        self.candidates = candidates


class InvalidPdnError(RulesError):
    """A PDN game that cannot be read."""


def _rebuild(kind: type[RulesError], message: str, state: dict[str, Any]) -> RulesError:
    """An error unpickled: its message, and its attributes (template, parameters, candidates) as they were."""
    error = kind.__new__(kind)
    ValueError.__init__(error, message)
    error.__dict__.update(state)
    return error
