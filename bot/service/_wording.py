"""The service's words about a game, as messages of the catalogue (:mod:`bot.i18n`): how it ended, and the sides.

:meth:`core.Outcome.describe` writes the same English (core speaks English only); the stored ``end_text`` keeps it
for readers of old games, and a front end says :func:`end_text` instead, in the player's language.
"""

from __future__ import annotations

from bot.i18n import Text, _, _p
from bot.service._models import GameState
from core import Color, Termination

_TERMINATIONS = {
    Termination.NO_PIECES.value: _p("termination", "no pieces"),
    Termination.NO_MOVES.value: _p("termination", "no moves"),
    Termination.REPETITION.value: _p("termination", "threefold repetition"),
    Termination.MOVE_LIMIT.value: _p("termination", "40-move rule"),
    Termination.AGREEMENT.value: _p("termination", "draw agreed"),
    Termination.RESIGNATION.value: _p("termination", "resignation"),
    Termination.TIME.value: _p("termination", "time"),
}


def side_name(color: Color) -> Text:
    """``Black`` or ``White``."""
    return _p("side", "Black") if color is Color.BLACK else _p("side", "White")


def end_text(game: GameState) -> str:
    """How ``game`` ended (``White wins: Black has no moves``, ``Draw: threefold repetition``), or its stored
    ``end_text`` when the ending is not one of the rules' (``""`` while it is being played)."""
    termination = _TERMINATIONS.get(game.termination or "")
    if termination is None:
        return game.end_text or ""
    if game.winner not in ("black", "white"):
        return _("Draw: {termination}", termination=termination)
    color = Color.BLACK if game.winner == "black" else Color.WHITE
    sides = {"winner": side_name(color), "loser": side_name(color.opponent)}
    if game.termination == Termination.NO_PIECES.value:
        return _("{winner} wins: {loser} has no pieces left", **sides)
    if game.termination == Termination.NO_MOVES.value:
        return _("{winner} wins: {loser} has no moves", **sides)
    if game.termination == Termination.RESIGNATION.value:
        return _("{winner} wins: {loser} resigned", **sides)
    if game.termination == Termination.TIME.value:
        return _("{winner} wins: {loser} ran out of time", **sides)
    return _("{winner} wins: {reason}", winner=sides["winner"], reason=termination)
