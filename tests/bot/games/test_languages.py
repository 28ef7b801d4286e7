"""The bot speaks each player's language: the slash commands' names and descriptions (from the registered commands'
localisations), the replies in the user's Discord locale and the boards in the server's, all from one catalogue.

The catalogue test plays scenarios in the pseudo-language (:class:`bot.i18n.Pseudo`: every message of the catalogue
between ⟦ ⟧, every parameter that is not itself a message between ‹ ›) and fails on any visible text outside them
that is not data (names, moves, numbers, ids, mentions, emoji): a reply string that bypassed the catalogue.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ai.api import levels
from bot.emulator import Message
from bot.i18n import PSEUDO_LOCALE
from core import VARIANTS
from tests.bot.games.conftest import Harness, component, custom_ids, description, play_ai, play_first_move
from tests.support import eventually

ROOT = Path(__file__).resolve().parents[3]

_MESSAGE = re.compile(r"⟦[^⟦⟧]*⟧")
_PARAMETER = re.compile(r"‹([^‹›]*)›")
_MARKUP = re.compile(r"<(?:@!?|#|@&)\d+>|<t:\d+(?::\w)?>|<a?:\w+:\d+>|https?://\S+|```.*?```", re.S)
_WORD = re.compile(r"[^\W\d_]{2,}")
_DATA_WORDS = {"alice", "bob", "carol", "AI", "PDN", "pass", *levels(), *VARIANTS}
"""Words that are data, not prose: the players' names (an AI is called ``AI (easy)``), the levels' and variants'
names, notation."""


def visible_texts(message: Message) -> Iterator[str]:
    """Every text a person sees in a message: content, embeds, and the components' labels and options."""
    yield message.content
    for embed in message.embeds:
        yield from (str(embed.get(key) or "") for key in ("title", "description"))
        for field in embed.get("fields") or []:
            yield from (str(field.get("name") or ""), str(field.get("value") or ""))
        yield str((embed.get("footer") or {}).get("text") or "")
    for row in message.components:
        for item in row.get("components") or []:
            yield from (str(item.get(key) or "") for key in ("label", "placeholder"))
            for option in item.get("options") or []:
                yield from (str(option.get("label") or ""), str(option.get("description") or ""))


def prose(text: str) -> list[str]:
    """The words of ``text`` that are neither inside a message of the catalogue nor data."""
    outside = []
    for value in _PARAMETER.findall(text):  # a parameter that is a plain string must be data itself
        outside += [w for w in _WORD.findall(_MARKUP.sub(" ", _MESSAGE.sub(" ", value))) if not _is_data(w)]
    text = _PARAMETER.sub(" ", re.sub(r"⟦[^⟧]*$", " ", text))  # a message cut short by a length limit
    while _MESSAGE.search(text):
        text = _MESSAGE.sub(" ", text)
    text = _MARKUP.sub(" ", re.sub(r"`[^`]*`", " ", text))  # code spans outside a message: ids, FEN, moves
    return outside + [w for w in _WORD.findall(text) if not _is_data(w)]


def _is_data(word: str) -> bool:
    """A player's or level's name, or a square in algebraic notation (``f6``, or ``xc`` of a capture ``a5xc3``), or a
    game id (hex)."""
    return word in _DATA_WORDS or re.fullmatch(r"x?[a-h]\d*|[0-9a-f]+", word) is not None


def bypassing(harness: Harness) -> list[tuple[str, str]]:
    """(word, text) for every word of prose outside the catalogue in any message of the emulated server."""
    found = []
    for message in harness.emulator.state.messages.values():
        for text in visible_texts(message):
            found += [(word, text) for word in prose(text)]
    return found


def test_the_catalogue_check_finds_a_string_that_bypassed_it() -> None:
    assert prose("⟦‹alice› played ‹11-15›⟧ · ⟦Captured⟧ <@123> <t:5:R> `b1c2d3`") == []
    assert prose("⟦Legal moves: ‹13x22 (a5xc3)›.⟧") == []  # a capture in algebraic notation is data
    assert prose("⟦Game over⟧ (1-0) but this was never translated") == ["but", "this", "was", "never", "translated"]
    assert prose("⟦{end}: ‹White wins›⟧") == ["White", "wins"], "English passed as a plain parameter is found too"


def test_the_catalogue_is_complete_and_compiled() -> None:
    """Every marked message is in the template, French translates each (nothing fuzzy or missing, the same
    placeholders), and the shipped .mo files are compiled from the .po sources (``scripts/i18n check``)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "i18n.py"), "check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr


async def _speak(harness: Harness, locale: str) -> None:
    """The server's language is ``locale``, and so is every user's (the bot reads the server's when it connects)."""
    harness.emulator.guild.locale = locale
    for user in harness.emulator.state.users.values():
        user.locale = locale
    await harness.restart()


async def test_no_reply_bypasses_the_catalogue(harness: Harness) -> None:
    await _speak(harness, PSEUDO_LOCALE)
    alice, bob = harness.user("alice"), harness.user("bob")
    board = await play_ai(harness, alice)
    await play_first_move(harness, alice, board)
    await eventually(lambda: board.content.endswith("⟧") and "‹<@" in board.content, what="alice's turn again")
    await harness.command(alice, "move", {"move": "1-2"})  # refused by the rules
    await harness.command(alice, "draw")  # the AI refuses draws
    await harness.command(bob, "resign")  # not a player here
    await harness.command(alice, "board", {"text": True})
    for name in ("help", "stats", "history", "leaderboard", "privacy"):
        await harness.command(alice, name)
    asked = (await harness.command(alice, "resign")).message
    confirm = component(asked, "km:r:")
    assert confirm is not None, custom_ids(asked)
    await harness.emulator.click(alice, asked, confirm["custom_id"])
    results = lambda: [m for m in harness.emulator.messages(board.channel_id) if component(m, "km:a:")]  # noqa: E731
    await eventually(lambda: bool(results()), what="the result with its Analyse button")
    await harness.command(bob, "challenge", {"opponent": alice})
    found = bypassing(harness)
    assert found == [], "\n".join(f"{word!r} in {text!r}" for word, text in found)


def _command(harness: Harness, locale: str, name: str) -> dict[str, Any]:
    shown = next(c.localised(locale) for c in harness.emulator.registered_commands() if c.name == "checkers")
    return next(o for o in shown["options"] if o["name"] == name)


async def test_a_french_player_sees_commands_and_replies_in_french(harness: Harness) -> None:
    alice = harness.user("alice")
    alice.locale = "fr"
    checkers = next(c for c in harness.emulator.registered_commands() if c.name == "checkers")
    assert checkers.localised("fr")["name"] == "dames"
    assert checkers.localised("en-US")["name"] == "checkers", "other languages see the English"
    play = _command(harness, "fr", "jouer")
    assert play["description"] == "Jouer contre l'IA"
    assert {o["name"] for o in play["options"]} >= {"niveau", "couleur", "variante", "réflexion"}
    colour = next(o for o in play["options"] if o["name"] == "couleur")
    assert [c["name"] for c in colour["choices"]] == ["Noir (joue en premier)", "Blanc", "Au hasard"]

    board = await play_ai(harness, alice)  # the server speaks English: the board is in English
    assert "Captured" in [f["name"] for f in board.embeds[0]["fields"]]
    refused = (await harness.command(alice, "move", {"move": "1-2"})).message
    assert refused.ephemeral and refused.content.startswith("1-2 n'est pas permis ici\u00a0; coups possibles\u00a0:")
    move = await play_first_move(harness, alice, board)
    await eventually(lambda: "your move" in board.content, what="alice's turn again")
    played = (await harness.command(alice, "move", {"move": board_move(board)})).message
    assert played.ephemeral and played.content.startswith("Vous avez joué "), played.content
    assert move
    help_embed = (await harness.command(alice, "help")).message.embeds[0]
    assert help_embed["title"] == "King Me\u00a0: les dames sur Discord"
    assert (
        "`/dames jouer [niveau] [couleur] [variante] [position] [réflexion]`: Jouer contre l'IA"
        in (help_embed["description"])
    )
    assert help_embed["fields"][0]["name"] == "Niveaux de l'IA"
    stats = (await harness.command(alice, "stats")).message.embeds
    assert stats[0]["title"] == "alice\u00a0: Dames anglaises (ce serveur)"
    assert [f["name"] for f in stats[0]["fields"]] == ["Classement", "Rang", "Parties classées"]


async def test_a_french_server_sees_its_boards_in_french(harness: Harness) -> None:
    await _speak(harness, "fr")
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    assert board.embeds[0]["title"].endswith("AI (easy)") and " contre " in board.embeds[0]["title"]
    assert [f["name"] for f in board.embeds[0]["fields"]] == ["Prises", "Légende"]
    assert component(board, "km:p:")["placeholder"] == "Choisissez une pièce à jouer"  # type: ignore[index]
    assert "à vous de jouer" in board.content and "pion noir" in description(board) + str(board.embeds[0]["fields"])
    await play_first_move(harness, alice, board)
    await eventually(lambda: "à vous de jouer" in board.content, what="alice's turn again")
    assert board.embeds[0]["fields"][0]["name"] == "Dernier coup"
    assert "Abandonner" in [b.get("label") for row in board.components for b in row["components"]]


def board_move(board: Message) -> str:
    """A legal move on the board, from its piece menu's first option (its moves are the option's description)."""
    piece = component(board, "km:p:")
    assert piece is not None
    return str(piece["options"][0]["description"]).split(", ")[0]
