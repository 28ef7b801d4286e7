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
from bot.i18n import Language, _
from bot.service import GameService, Result
from core import Termination

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice
Start = Callable[[CommandThread | None], Awaitable[Result]]

ENDING_CHOICES = [
    Choice(name=_("Two kings against one (the longest win)"), value="two_kings"),
    Choice(name=_("Three kings against two (the longest win)"), value="three_kings"),
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


def _ended_by(lang: Language, termination: Termination | None) -> str:
    if termination is Termination.MOVE_LIMIT:
        return lang._("40-move rule")
    if termination is Termination.REPETITION:
        return lang._("threefold repetition")
    if termination is Termination.RESIGNATION:
        return lang._("resigned")
    if termination is Termination.TIME:
        return lang._("out of time")
    if termination is Termination.AGREEMENT:
        return lang._("draw agreed")
    return lang._("game lost")


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
        head = lang._("🎓 Not converted ({reason}).", reason=_ended_by(lang, review.ended_by))
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
