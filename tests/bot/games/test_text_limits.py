"""Every text the bot gives Discord fits Discord's limits whole, in English and in French: the registered commands'
names, descriptions, options and choices (``/checkers`` and ``/tournament``), the level and variant choices, and
every field and page of ``/checkers help``. A text is whole when it equals its untruncated source (the catalogue's
message, the level's description): nothing ends mid-word. The levels are listed weakest to strongest, with their
strength."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import discord
import pytest

from ai.api import levels
from bot.emulator import Message
from bot.games import command_list
from bot.games._fit import embeds, pieces, shortened
from bot.games._help import help_embeds
from bot.games._tournament_cog import tournament_commands
from bot.i18n import ENGLISH, Text, language
from core import VARIANTS
from tests.bot.games.conftest import Harness
from tests.support import eventually

# Discord's limits (https://discord.com/developers/docs/interactions/application-commands and .../resources/message)
NAME = re.compile(r"^[-_\w]{1,32}$")
DESCRIPTION = 100
CHOICE = 100
EMBED_TITLE, EMBED_DESCRIPTION, FIELD_NAME, FIELD_VALUE, FIELDS, MESSAGE_TOTAL = 256, 4096, 256, 1024, 25, 6000

LOCALES = {"en-US": ENGLISH, "fr": language("fr")}
MOVE_HINT = (
    "Choose a piece, then its move, in the menus under the board; or type `/checkers move 11-15` "
    "(squares are numbered 1–32 from the top left, row by row; a capture is written 15x24, a multi-jump 1x10x19)."
)


def items(command: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The command and every subcommand and option under it."""
    yield command
    for option in command.get("options") or []:
        yield from items(option)


@pytest.mark.parametrize("locale", LOCALES)
async def test_every_registered_name_description_and_choice_fits_whole(harness: Harness, locale: str) -> None:
    lang = LOCALES[locale]
    groups = harness.emulator.registered_commands()
    assert [group.name for group in groups] == ["checkers", "tournament"]
    checked = 0
    for group in groups:
        english, shown = group.payload, group.localised(locale)
        for source, item in zip(items(english), items(shown), strict=True):
            name = lang.say(Text(source["name"], context="command name"))
            assert item["name"] == name and NAME.match(name) and name == name.lower(), (locale, item["name"])
            description = lang.say(Text(source["description"]))
            assert item["description"] == description and 1 <= len(description) <= DESCRIPTION, (locale, description)
            for original, choice in zip(source.get("choices") or [], item.get("choices") or [], strict=True):
                said = lang.say(Text(original["name"]))
                assert choice["name"] == said and 1 <= len(said) <= CHOICE, (locale, choice["name"])
                checked += 1
            checked += 1
    assert checked > 70, "every command, option and choice was looked at"


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(("command", "option"), [("play", "level"), ("watch", "level_a"), ("watch", "level_b")])
async def test_the_level_choices_are_whole_weakest_first_with_their_strength(
    harness: Harness, locale: str, command: str, option: str
) -> None:
    lang = LOCALES[locale]
    user = harness.user("alice")
    user.locale = locale
    options = {"level_a": "easy", option: ""} if option == "level_b" else {option: ""}
    reply = await harness.emulator.autocomplete(user, ["checkers", command], options, option)
    assert [c["value"] for c in reply.choices] == list(levels())
    ratings = []
    for choice, level in zip(reply.choices, levels().values(), strict=True):
        name = choice["name"]
        assert len(name) <= CHOICE, name
        assert name.startswith(f"{level.name} (Elo {level.rating})"), name
        assert name.endswith(lang.data("level", level.summary)), f"cut short: {name!r}"
        ratings.append(level.rating)
    assert ratings == sorted(ratings)  # type: ignore[type-var]


@pytest.mark.parametrize("locale", LOCALES)
async def test_the_variant_choices_are_whole(harness: Harness, locale: str) -> None:
    lang = LOCALES[locale]
    user = harness.user("alice")
    user.locale = locale
    reply = await harness.emulator.autocomplete(user, ["checkers", "play"], {"variant": ""}, "variant")
    names = [c["name"] for c in reply.choices]
    assert names == [f"{lang.data('variant', v.title)} ({key})" for key, v in VARIANTS.items()]
    assert all(len(name) <= CHOICE for name in names)


def embed_problems(embed: dict[str, Any]) -> list[str]:
    fields = embed.get("fields") or []
    problems = [f"title {len(embed.get('title') or '')}"] if len(embed.get("title") or "") > EMBED_TITLE else []
    if len(embed.get("description") or "") > EMBED_DESCRIPTION:
        problems.append(f"description {len(embed['description'])}")
    if len(fields) > FIELDS:
        problems.append(f"{len(fields)} fields")
    problems += [f"field {f['name']!r}" for f in fields if len(f["name"]) > FIELD_NAME or len(f["value"]) > FIELD_VALUE]
    return problems


def text_of(embed: dict[str, Any]) -> list[str]:
    """The title, description, field names and values of an embed (what counts towards a message's total)."""
    fields = embed.get("fields") or []
    return [embed.get("title") or "", embed.get("description") or ""] + [
        f[k] for f in fields for k in ("name", "value")
    ]


@pytest.mark.parametrize("locale", LOCALES)
async def test_every_page_of_help_fits_and_says_everything_whole(harness: Harness, locale: str) -> None:
    lang = LOCALES[locale]
    user = harness.user("carol")
    user.locale = locale
    reply = await harness.command(user, "help")
    listed = command_list(lang) + tournament_commands(lang)  # /checkers help lists /tournament too
    pages = len(help_embeds(listed, lang))
    await eventually(lambda: len(reply.interaction.message_ids) == pages, what=f"the {pages} pages of help")
    messages: list[Message] = [harness.emulator.state.messages[i] for i in reply.interaction.message_ids]
    said = ""
    for message in messages:
        assert message.ephemeral
        for embed in message.embeds:
            assert embed_problems(embed) == [], embed_problems(embed)
            said += "\n".join(text_of(embed)) + "\n"
        assert sum(len(t) for e in message.embeds for t in text_of(e)) <= MESSAGE_TOTAL
    whole = [lang.say(Text(MOVE_HINT))]
    whole += [lang.say(Text(text)) for _, text in listed]
    whole += [usage for usage, _ in tournament_commands(lang)]
    whole += [lang.data("level", level.summary) for level in levels().values()]
    whole += [lang.data("variant", variant.title) for variant in VARIANTS.values()]
    missing = [text for text in whole if text not in said]
    assert missing == [], f"cut or missing: {missing}"
    shown = [said.index(f"**{name}** (Elo {level.rating})") for name, level in levels().items()]
    assert shown == sorted(shown), "weakest to strongest"


def test_long_texts_go_on_in_more_pieces_never_cut_inside_a_word() -> None:
    words = [f"word{i}" for i in range(400)]
    lines = [" ".join(words[i : i + 9]) for i in range(0, 400, 9)]
    long_line = " ".join(words)
    for limit in (30, 100, 1024):
        found = pieces([*lines, long_line], limit)
        assert all(len(piece) <= limit for piece in found)
        assert " ".join(" ".join(found).split()) == " ".join([*lines, long_line])  # every word, in order, whole
    assert pieces(lines, 10_000) == ["\n".join(lines)], "what fits stays one piece"
    assert shortened("a text that fits", 100) == "a text that fits"
    assert shortened("Reads three turns ahead and grabs pieces", 20) == "Reads three turns…"


def test_a_help_too_long_for_one_message_goes_on_in_pages_within_the_limits() -> None:
    lines = [f"line {i}:" + " word" * 40 for i in range(200)]
    pages = embeds("Title", lines[:120], [("Section", lines[120:]), ("Other", ["short"])])
    assert len(pages) > 2
    for page in pages:
        assert embed_problems(page.to_dict()) == [] and len(page) <= MESSAGE_TOTAL
    said = [t for p in pages for t in text_of(p.to_dict()) if t and t not in ("Title", "Section", "Other", "\u200b")]
    assert "\n".join(said).split("\n") == [*lines, "short"]
    assert isinstance(pages[0], discord.Embed) and pages[0].title == pages[-1].title == "Title"
