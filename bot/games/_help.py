"""``/checkers help`` and the list of commands it shows (also the source of the README's command table)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from ai.api import levels
from bot.games import _messages as say
from bot.games._render import slash, slash_name
from bot.i18n import ENGLISH, Language, Text
from core import VARIANTS


def command_list(
    commands: Sequence[app_commands.Command[Any, ..., Any] | app_commands.Group], lang: Language = ENGLISH
) -> list[tuple[str, str]]:
    """Every ``/checkers`` subcommand as registered, with its options (optional ones in brackets) and description
    (in English: :func:`help_embed` says it in the reader's language), the names as ``lang``'s Discord client shows
    them: the source of ``/checkers help`` and of the README's command list."""

    rows = []
    for command in commands:
        if isinstance(command, app_commands.Command):
            named = (
                slash_name(lang, p.name) if p.required else f"[{slash_name(lang, p.name)}]" for p in command.parameters
            )
            usage = f"{slash(lang, command.name)} {' '.join(named)}".strip()
            rows.append((usage, command.description))
    return rows


def help_embed(commands: list[tuple[str, str]], lang: Language = ENGLISH) -> discord.Embed:
    """``/checkers help``: how to move, then ``commands`` (from :func:`command_list`), the levels and the variants."""
    commands_text = "\n".join(f"`{usage}`: {lang.say(Text(text))}" for usage, text in commands)
    description = f"{lang.say(say.MOVE_HINT)}\n\n**{lang._('Commands')}**\n{commands_text}"
    embed = discord.Embed(title=lang._("King Me: checkers on Discord"), description=description[:4096])
    level_text = "\n".join(f"**{name}**: {lang.data('level', level.summary)}" for name, level in levels().items())
    embed.add_field(name=lang._("AI levels"), value=level_text[:1024], inline=False)
    variant_text = ", ".join(f"{lang.data('variant', v.title)} (`{name}`)" for name, v in VARIANTS.items())
    embed.add_field(name=lang._("Variants"), value=variant_text[:1024], inline=False)
    return embed
