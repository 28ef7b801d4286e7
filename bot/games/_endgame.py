"""``/checkers endgame``: the endgame trainer's choices, the start of a training game, and the words of its review.

The game itself is an ordinary game against the AI (:mod:`bot.service._training`); when it ends, the announcer adds
:func:`review_text` to the result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from ai.endgames import DRAW, Review
from bot.games._dispatch import caller_of
from bot.games._threads import CommandThread, thread_name
from bot.i18n import Language, _, _p
from bot.service import GameService, Result
from core import Termination

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice
Start = Callable[[CommandThread | None], Awaitable[Result]]

ENDING_CHOICES = [
    Choice(name=_("Two kings against one (the longest win)"), value="two_kings"),
    Choice(name=_("Three kings against two (the longest win)"), value="three_kings"),
    Choice(name=_("First Position (you are White)"), value="first_position"),
    Choice(name=_("Second Position (you are White)"), value="second_position"),
    Choice(name=_("A random won ending of four or five kings"), value="random"),
    Choice(name=_("Hold a draw: two kings against three"), value="hold_draw"),
]
DIFFICULTY_CHOICES = [
    Choice(name=_("Easy (a short win)"), value="easy"),
    Choice(name=_("Medium"), value="medium"),
    Choice(name=_("Hard (a long win)"), value="hard"),
]
SLIPS_SHOWN = 5


def starter(service: GameService, interaction: Interaction, ending: str, difficulty: str) -> tuple[Start, str]:
    """What opens the training game (given its room), and its thread's name."""

    def start(room: CommandThread | None) -> Awaitable[Result]:
        me = caller_of(interaction)
        return service.play_endgame(
            *me.where, me.user, ending, difficulty=difficulty, room=room, request=me.request, place=me.place
        )

    return start, thread_name(interaction.user.display_name, "AI (endgame)")


_ENDED_BY = {
    Termination.NO_PIECES: _p("termination", "no pieces"),
    Termination.NO_MOVES: _p("termination", "no moves"),
    Termination.REPETITION: _p("termination", "threefold repetition"),
    Termination.MOVE_LIMIT: _p("termination", "40-move rule"),
    Termination.AGREEMENT: _p("termination", "draw agreed"),
    Termination.RESIGNATION: _p("termination", "resignation"),
    Termination.TIME: _p("termination", "time"),
}
"""How a game ended, in the words the result uses (:mod:`bot.service`'s wording of the terminations)."""


def review_text(review: Review, lang: Language) -> str:
    """The trainer's verdict on a finished training game, in ``lang``."""
    if review.goal == DRAW:
        head = lang._("🎓 Draw held.") if review.achieved else lang._("🎓 Draw not held.")
    elif review.achieved:
        head = lang._n(
            "🎓 Converted in {count} move (the best possible: {best}).",
            "🎓 Converted in {count} moves (the best possible: {best}).",
            review.moves,
            best=review.best,
        )
    else:
        reason = lang.say(_ENDED_BY[review.ended_by]) if review.ended_by is not None else "…"
        head = lang._("🎓 Not converted ({reason}).", reason=reason)
    lines = [head]
    thrown = review.thrown
    if thrown is not None:
        result = lang._("the draw") if review.goal == DRAW else lang._("the win")
        lines.append(lang._("Move {number}, {move}, threw {result} away.", number=thrown.number, move=thrown.move,
                            result=result))  # fmt: skip
    slow = [slip for slip in review.slips if slip.lost is not None]
    if slow:
        moves = ", ".join(f"{slip.number}. {slip.move} (+{slip.lost})" for slip in slow[:SLIPS_SHOWN])
        more = len(slow) - SLIPS_SHOWN
        lines.append(lang._("Moves that lost time (plies lost): {moves}", moves=moves + (" …" if more > 0 else "")))
    return "\n".join(lines)
