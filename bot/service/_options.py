"""The options of a request that starts something (a challenge, a game): checked and normalised, or refused with
:class:`InvalidRequestError`, and the first step of a game against the AI built from them. Pure functions of the
options and the settings."""

from __future__ import annotations

import random

from ai.api import UnknownLevelError, get_level
from bot.i18n import _, _n
from bot.service._errors import InvalidRequestError, rules_text
from bot.service._ids import ChannelId, GameId, GuildId
from bot.service._models import GameKind, PlayerRef, new_id
from bot.service._places import Place
from bot.service._transitions import Step, new_game
from bot.settings import Settings
from core import Board, RulesError, get_variant

COLOR_CHOICES = ("black", "white", "random")


def ai_game(
    settings: Settings,
    kind: GameKind,
    where: tuple[GuildId, ChannelId],
    players: tuple[PlayerRef, PlayerRef],
    now: float,
    variant: str,
    fen: str | None,
    think_time: float | None,
    turn_time: float | None = None,
    rematch_of: GameId | None = None,
    place: Place = Place.SERVER,
) -> Step:
    """The first step of an unrated game with an AI on one side (``GameKind.AI``) or both (an exhibition), in
    ``where`` (guild, channel) of ``place``, with ``players`` (Black, White), from the options as the player gave
    them."""
    board = position(variant_name(variant), fen)
    seconds = turn_time_of(settings, turn_time)
    think = think_time_of(settings, think_time)
    if kind is not GameKind.AI:
        reason = _("an exhibition")
    else:
        reason = _("against the AI from a set-up position") if fen else _("against the AI")
    guild_id, channel_id = where
    black, white = players
    return new_game(
        GameId(new_id()),
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
        place=place,
    )


def variant_name(name: str) -> str:
    try:
        return get_variant(name).name
    except RulesError as exc:
        raise InvalidRequestError(rules_text(exc)) from None


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
        raise InvalidRequestError(rules_text(exc)) from None
    if board.outcome() is not None:
        raise InvalidRequestError(_("that position is already over: set up one where both sides can play"))
    return board


def color_choice(color: str) -> str:
    if color not in COLOR_CHOICES:
        raise InvalidRequestError(_("choose a colour: {choices}", choices=", ".join(COLOR_CHOICES)))
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
        raise InvalidRequestError(
            _("the time per move must be between {low} and {high}", low=duration(low), high=duration(high))
        )
    return float(seconds)


def think_time_of(settings: Settings, seconds: float | None) -> float | None:
    """The AI's thinking time a player chose (up to ``AI_THINK_TIME_MAX``), or None: then each move uses the level's
    own time (see :func:`bot.service._ai_turns.think_limits`)."""
    if seconds is None:
        return None
    if not 0 < seconds <= settings.ai_think_time_max:
        most = settings.ai_think_time_max
        raise InvalidRequestError(
            _n(
                "the AI may think between 0 and {count} second a move",
                "the AI may think between 0 and {count} seconds a move",
                most,
            )
        )
    return float(seconds)


def duration(seconds: float) -> str:
    """``seconds`` for people: ``1 day``, ``3 hours``, ``10 minutes`` when whole, else ``90 seconds`` (a message of
    the catalogue, with its plural forms)."""
    if seconds >= 86400 and seconds % 86400 == 0:
        return _n("{count} day", "{count} days", seconds // 86400)
    if seconds >= 3600 and seconds % 3600 == 0:
        return _n("{count} hour", "{count} hours", seconds // 3600)
    if seconds >= 60 and seconds % 60 == 0:
        return _n("{count} minute", "{count} minutes", seconds // 60)
    return _n("{count} second", "{count} seconds", seconds)
