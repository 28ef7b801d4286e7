"""``/checkers help`` and the list of commands it shows (also the source of the README's command table)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from ai.api import levels
from bot.games import _messages as say
from bot.games._fit import embeds
from bot.games._levels import level_line, scale
from bot.games._render import slash_name
from bot.games._respond import send
from bot.i18n import ENGLISH, Language, Text
from core import VARIANTS


def command_list(
    commands: Sequence[app_commands.Command[Any, ..., Any] | app_commands.Group],
    lang: Language = ENGLISH,
    group: str = "checkers",
) -> list[tuple[str, str]]:
    """Every subcommand of ``/group`` as registered (those of a subgroup after its name: ``/checkers season start``),
    with its options (optional ones in brackets) and description (in English: :func:`help_embeds` says it in the
    reader's language), the names as ``lang``'s Discord client shows them: the source of ``/checkers help`` and of the
    README's command lists."""
    return _rows(commands, lang, f"/{slash_name(lang, group)}")


def _rows(
    commands: Sequence[app_commands.Command[Any, ..., Any] | app_commands.Group], lang: Language, prefix: str
) -> list[tuple[str, str]]:
    rows = []
    for command in commands:
        if isinstance(command, app_commands.Group):
            rows += _rows(command.commands, lang, f"{prefix} {slash_name(lang, command.name)}")
        else:
            named = (
                slash_name(lang, p.name) if p.required else f"[{slash_name(lang, p.name)}]" for p in command.parameters
            )
            usage = f"{prefix} {slash_name(lang, command.name)} {' '.join(named)}".strip()
            rows.append((usage, command.description))
    return rows


def help_embeds(commands: list[tuple[str, str]], lang: Language = ENGLISH) -> list[discord.Embed]:
    """``/checkers help``: how to move, then ``commands`` (from :func:`command_list`), the levels weakest to strongest
    with their strength, and the variants. Usually one embed; a text too long for one goes on in more, each within
    Discord's limits and to be sent as a message of its own (:func:`bot.games._fit.embeds`), never cut."""
    commands_lines = [f"`{usage}`: {lang.say(Text(text))}" for usage, text in commands]
    description = [lang.say(say.MOVE_HINT), "", f"**{lang._('Commands')}**", *commands_lines]
    note = scale(lang)
    level_lines = [lang._("Weakest to strongest. {scale}.", scale=note)] if note else []
    level_lines += [level_line(lang, level, f"**{name}**") for name, level in levels().items()]
    variants = ", ".join(f"{lang.data('variant', v.title)} (`{name}`)" for name, v in VARIANTS.items())
    sections = [(lang._("AI levels"), level_lines), (lang._("Variants"), [variants])]
    return embeds(lang._("King Me: checkers on Discord"), description, sections)


async def show(interaction: discord.Interaction[Any], commands: list[tuple[str, str]], lang: Language) -> None:
    """Answer ``/checkers help`` (only the asker sees it): one message a page of :func:`help_embeds`."""
    for page in help_embeds(commands, lang):
        await send(interaction, ephemeral=True, embed=page)
