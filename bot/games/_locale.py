"""Which language each message is in, and the slash commands' names and descriptions in every language.

A reply to one person (every ephemeral message, a refusal, help, statistics) is in that person's Discord locale
(``interaction.locale``); a message for everyone in a channel (a board, a result, a challenge, a ping, the leaderboard)
is in the server's language (``guild.preferred_locale``, which Discord also sends as ``guild_locale``), so everyone
reads one board in one language. A locale without a catalogue gets English.

The rules (:mod:`core`) raise errors as data, a message id (the English template) and its parameters, which
:func:`bot.service.rules_text` turns into a message of the catalogue: nothing is read back from English text.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.i18n import ENGLISH, Language, Text, available, language

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
