"""The choices and autocomplete of the ``/checkers`` commands' options."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from ai.api import levels
from bot.games._board import algebraic
from bot.games._fit import CHOICE_NAME, shortened
from bot.games._levels import level_line
from bot.games._locale import user_language
from bot.i18n import _
from bot.service import GameView, UserId
from core import VARIANTS

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

COLOUR_CHOICES = [Choice(name=_("Black (moves first)"), value="black"), Choice(name=_("White"), value="white")]
COLOUR_CHOICES.append(Choice(name=_("Random"), value="random"))
SCOPE_CHOICES = [Choice(name=_("This server"), value="server"), Choice(name=_("Everyone"), value="global")]
TURN_TIMES = [
    Choice(name=_("1 minute"), value=60),
    Choice(name=_("5 minutes"), value=300),
    Choice(name=_("15 minutes"), value=900),
    Choice(name=_("1 hour"), value=3600),
    Choice(name=_("12 hours"), value=43200),
    Choice(name=_("1 day"), value=86400),
    Choice(name=_("3 days"), value=259200),
    Choice(name=_("7 days"), value=604800),
]

NEW_GAME_OPTIONS = {"variant": _("The rules to play"), "position": _("A FEN to start from (the game is unrated)")}
"""The descriptions of the options every command that starts a game has."""


def default_level() -> str:
    """The weakest level: the opponent of a ``/checkers play`` that names none."""
    return next(iter(levels()))


async def level_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    """The levels whose name or description holds what was typed, weakest to strongest, each with its strength."""
    needle = current.strip().lower()
    lang = user_language(interaction)
    return [
        Choice(name=shortened(level_line(lang, level), CHOICE_NAME), value=name)
        for name, level in levels().items()
        if needle in name or needle in lang.data("level", level.summary).lower()
    ][:25]


async def variant_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    needle = current.strip().lower()
    lang = user_language(interaction)
    titles = ((name, lang.data("variant", variant.title)) for name, variant in VARIANTS.items())
    return [
        Choice(name=shortened(f"{title} ({name})", CHOICE_NAME), value=name)
        for name, title in titles
        if needle in name or needle in title.lower()
    ][:25]


def move_choices(view: GameView, caller: UserId, current: str) -> list[Choice[str]]:
    """The legal moves that start with what the player typed, in either notation (shown in both); none when it is not
    the caller's turn."""
    if view.to_move.id != caller:
        return []
    needle = current.strip().lower()
    named = ((m, algebraic(view.game.variant, m)) for m in view.legal_moves)
    return [Choice(name=f"{m} ({a})", value=m) for m, a in named if m.startswith(needle) or a.startswith(needle)][:25]
