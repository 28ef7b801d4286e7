"""Which language each message is in, and the slash commands' names and descriptions in every language.

A reply to one person (every ephemeral message, a refusal, help, statistics) is in that person's Discord locale
(``interaction.locale``); a message for everyone in a channel (a board, a result, a challenge, a ping, the leaderboard)
is in the server's language (``guild.preferred_locale``, which Discord also sends as ``guild_locale``), so everyone
reads one board in one language. A locale without a catalogue gets English.

The rules (:mod:`core`) speak English only, with no dependency: :func:`rules_message` reads their messages back into
messages of the catalogue (a test provokes each one, so a change in core's wording fails here, not in front of a
player).
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from bot.i18n import ENGLISH, Language, Text, _, available, language

Interaction = discord.Interaction[Any]
_NAMES = (
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
)


def user_language(interaction: Interaction) -> Language:
    """The language of the person who used the command or the component."""
    return language(interaction.locale)


def guild_language(client: discord.Client, guild_id: str | int | None) -> Language:
    """The language of a server's channels (English when the server is not known here)."""
    guild = client.get_guild(int(guild_id)) if guild_id else None
    return language(guild.preferred_locale) if guild is not None else ENGLISH


def channel_language(interaction: Interaction) -> Language:
    """The language of what an interaction posts for everyone in its channel."""
    return language(interaction.guild_locale) if interaction.guild_locale is not None else ENGLISH


class CommandTranslator(app_commands.Translator):
    """Gives Discord the ``/checkers`` commands' names, descriptions and choices in every language of the catalogue
    (``name_localizations``, ``description_localizations``). Names are looked up with the context ``command name``
    (Discord wants them lowercase, without spaces); the rest as the English text it is."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        lang = language(locale)
        if lang is ENGLISH or lang.code not in available():
            return None
        if context.location in _NAMES:
            said = lang.say(Text(string.message, context="command name"))
        else:
            said = lang.say(Text(string.message))
        return said if said != string.message else None


_RULES: tuple[tuple[str, Text], ...] = (
    (r"(?P<move>.+) is illegal: the game is over", _("{move} is illegal: the game is over")),
    (
        r"(?P<move>.+) is illegal: a capture is compulsory \((?P<moves>.*)\)",
        _("{move} is illegal: a capture is compulsory ({moves})"),
    ),
    (r"(?P<move>.+) is illegal here; legal moves: (?P<moves>.*)", _("{move} is illegal here; legal moves: {moves}")),
    (
        r"(?P<move>.+) fits more than one capture: write the whole path, one of (?P<moves>.*)",
        _("{move} fits more than one capture: write the whole path, one of {moves}"),
    ),
    (r"a move is text such as 11-15 or 15x24", _("a move is text such as 11-15 or 15x24")),
    (
        r"(?P<text>.+) is not a move: write it as start-end \(11-15 or f6-e5\) or captures as 15x24 or 1x10x19",
        _("{text} is not a move: write it as start-end (11-15 or f6-e5) or captures as 15x24 or 1x10x19"),
    ),
    (r"you cannot pass: you have a legal move", _("you cannot pass: you have a legal move")),
    (
        r"square (?P<square>\d+) is not on the board: squares are 1 to (?P<count>\d+)",
        _("square {square} is not on the board: squares are 1 to {count}"),
    ),
    (r"(?P<square>\S+) is not a dark square of the board", _("{square} is not a dark square of the board")),
    (r"unknown variant (?P<name>.+): choose one of (?P<known>.*)", _("unknown variant {name}: choose one of {known}")),
    (r"a FEN is text such as B:W21,22:B1,2", _("a FEN is text such as B:W21,22:B1,2")),
    (r"that FEN is far too long", _("that FEN is far too long")),
    (
        r"(?P<fen>.+) is not a FEN: it looks like B:W21,22,K5:B1,2 "
        r"\(side to move, then each side's squares, K for a king\)",
        _("{fen} is not a FEN: it looks like B:W21,22,K5:B1,2 (side to move, then each side's squares, K for a king)"),
    ),
)
"""Each English message of the rules (as a pattern) and its message in the catalogue, whose placeholders are the
pattern's groups."""
_PATTERNS = tuple((re.compile(pattern), text) for pattern, text in _RULES)


def rules_message(message: str) -> str:
    """A message of the rules (a :class:`core.RulesError`'s) as a message of the catalogue, when it is one of those
    above; else ``message`` itself (said in English)."""
    if isinstance(message, Text):
        return message
    for pattern, text in _PATTERNS:
        found = pattern.fullmatch(message)
        if found is not None:
            return Text(text.msgid, found.groupdict())
    return message
