"""Texts fitted to Discord's limits by design, never cut inside a word: whole lines are packed into as many pieces
(embed fields, pages) as they need, a line longer than a piece is broken between words, and a text that must stay
one piece (a choice's name) loses whole words and says so with an ellipsis."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import discord

CHOICE_NAME: Final = 100
"""An autocomplete or static choice's name."""
FIELD_VALUE: Final = 1024
EMBED_DESCRIPTION: Final = 4096
EMBED_FIELDS: Final = 25
MESSAGE_EMBED_TEXT: Final = 6000
"""The titles, descriptions, field names and values, footers and authors of all the embeds of one message together."""
CONTINUED: Final = "\u200b"
"""The name of a field that goes on with the one above it (a field must have a name; this one shows nothing)."""


def pieces(lines: Iterable[str], limit: int) -> list[str]:
    """``lines`` joined by newlines into as few pieces of at most ``limit`` characters as they fit in, in order, each
    made of whole lines; a line longer than ``limit`` is broken between words (a word longer than that, which no
    text of ours has, is broken where it must)."""
    found: list[str] = []
    current = ""
    for line in lines:
        for part in _broken(line, limit):
            if current and len(current) + 1 + len(part) <= limit:
                current += "\n" + part
            else:
                if current:
                    found.append(current)
                current = part
    if current:
        found.append(current)
    return found


def _broken(line: str, limit: int) -> list[str]:
    """``line`` as parts of at most ``limit`` characters, broken between words."""
    parts: list[str] = []
    while len(line) > limit:
        cut = line.rfind(" ", 1, limit + 1)
        if cut <= 0:
            cut = limit
        parts.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    return [*parts, line]


def shortened(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its longest start of whole words that fits with "…"."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return (text[:cut] if cut > 0 else text[: limit - 1]).rstrip(" ,;:") + "…"


def embeds(
    title: str, description: Sequence[str], sections: Sequence[tuple[str, Sequence[str]]]
) -> list[discord.Embed]:
    """The embeds that show ``description`` (lines) and then each section (a name and its lines, in fields), every
    one within Discord's limits and each to be sent as a message of its own: the text beyond one embed's description
    or fields, or beyond one message's total, goes on in the next embed, under the same title."""
    pages = [discord.Embed(title=title, description=text) for text in pieces(description, EMBED_DESCRIPTION)]
    pages = pages or [discord.Embed(title=title)]
    for name, lines in sections:
        for i, value in enumerate(pieces(lines, FIELD_VALUE)):
            field_name = name if i == 0 else CONTINUED
            page = pages[-1]
            if len(page.fields) >= EMBED_FIELDS or len(page) + len(field_name) + len(value) > MESSAGE_EMBED_TEXT:
                page = discord.Embed(title=title)
                pages.append(page)
            page.add_field(name=field_name, value=value, inline=False)
    return pages


def add_lines(embed: discord.Embed, name: str, lines: Sequence[str]) -> None:
    """Add ``lines`` to ``embed`` as the field ``name``, going on in more fields when they are too long for one."""
    for i, value in enumerate(pieces(lines, FIELD_VALUE)):
        embed.add_field(name=name if i == 0 else CONTINUED, value=value, inline=False)
