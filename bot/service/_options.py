"""The options of a request that starts something (a challenge, a game): checked and normalised, or refused with
:class:`InvalidRequestError`, and the first step of a game against the AI built from them. Pure functions of the
options and the settings."""

from __future__ import annotations

import random

from ai.api import UnknownLevelError, get_level
from bot.service._errors import InvalidRequestError
from bot.service._models import GameKind, PlayerRef, new_id
from bot.service._transitions import Step, new_game
from bot.settings import Settings
from core import Board, RulesError, get_variant

COLOR_CHOICES = ("black", "white", "random")


def ai_game(
    settings: Settings,
    kind: GameKind,
    where: tuple[str | int, str | int],
    players: tuple[PlayerRef, PlayerRef],
    now: float,
    variant: str,
    fen: str | None,
    think_time: float | None,
    turn_time: float | None = None,
    rematch_of: str | None = None,
) -> Step:
    """The first step of an unrated game with an AI on one side (``GameKind.AI``) or both (an exhibition), in
    ``where`` (guild, channel), with ``players`` (Black, White), from the options as the player gave them."""
    board = position(variant_name(variant), fen)
    seconds = turn_time_of(settings, turn_time)
    think = think_time_of(settings, think_time)
    against = "against the AI" if kind is GameKind.AI else "an exhibition"
    reason = against + (" from a set-up position" if fen and kind is GameKind.AI else "")
    guild_id, channel_id = (str(part) for part in where)
    black, white = players
    return new_game(
        new_id(),
        kind,
        guild_id,
        channel_id,
        board,
        black,
        white,
        seconds,
        now,
        unrated_reason=reason,
        ai_think_time=think,
        rematch_of=rematch_of,
    )


def variant_name(name: str) -> str:
    try:
        return get_variant(name).name
    except RulesError as exc:
        raise InvalidRequestError(str(exc)) from None


def level_name(name: str) -> str:
    try:
        return get_level(name, hidden=False).name
    except UnknownLevelError as exc:
        raise InvalidRequestError(str(exc)) from None


def position(variant: str, fen: str | None) -> Board:
    """The start position: ``fen`` when given (checked), else the variant's; refused when already over."""
    try:
        board = Board(fen, variant) if fen else Board(None, variant)
    except RulesError as exc:
        raise InvalidRequestError(str(exc)) from None
    if board.outcome() is not None:
        raise InvalidRequestError("that position is already over: set up one where both sides can play")
    return board


def color_choice(color: str) -> str:
    if color not in COLOR_CHOICES:
        raise InvalidRequestError(f"choose a colour: {', '.join(COLOR_CHOICES)}")
    return color


def side(color: str, rng: random.Random) -> str:
    """``black`` or ``white``: the chosen colour, or one at random for ``random``."""
    return color if color != "random" else rng.choice(("black", "white"))


def turn_time_of(settings: Settings, seconds: float | None) -> float:
    """Seconds a side has for one move: the chosen time (within the settings' range), else the default."""
    if seconds is None:
        return settings.turn_time_default
    low, high = settings.turn_time_min, settings.turn_time_max
    if not low <= seconds <= high:
        raise InvalidRequestError(f"the time per move must be between {duration(low)} and {duration(high)}")
    return float(seconds)


def think_time_of(settings: Settings, seconds: float | None) -> float | None:
    """The AI's thinking time a player chose (up to ``AI_THINK_TIME_MAX``), or None: then each move uses the level's
    own time (see :func:`bot.service._ai_turns.think_limits`)."""
    if seconds is None:
        return None
    if not 0 < seconds <= settings.ai_think_time_max:
        most = plural(settings.ai_think_time_max, "second")
        raise InvalidRequestError(f"the AI may think between 0 and {most} a move")
    return float(seconds)


def duration(seconds: float) -> str:
    """``seconds`` for people: ``1 day``, ``3 hours``, ``10 minutes`` when whole, else ``90 seconds``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            return plural(seconds // size, unit)
    return plural(seconds, "second")


def plural(count: float, noun: str) -> str:
    """``1 game``, ``2 games``, ``0.5 seconds``: a count with its noun, in the plural unless the count is one."""
    number = str(int(count)) if float(count).is_integer() else f"{count:g}"
    return f"{number} {noun}{'' if count == 1 else 's'}"
