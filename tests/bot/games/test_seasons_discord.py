"""Seasons on Discord: ``/checkers season start`` (a server manager's), ``/checkers season list``, and
``/checkers leaderboard season:N``, on the emulator with the real bot, store and AI pool: a rated game played during
season 1 counts on its ladder and on the all-time one; season 2 starts empty while season 1 keeps its ladder; a season
the server never had, and a season asked of everyone's ladder, are refused plainly; in French, and every word from
the catalogue."""

from __future__ import annotations

from typing import Any

from bot.emulator import Message, User
from tests.bot.games.conftest import Harness, description, game_thread, play_first_move, resign
from tests.bot.games.test_challenge import start_game
from tests.bot.games.test_languages import PSEUDO_LOCALE, _speak, bypassing
from tests.support import eventually


async def season(harness: Harness, user: User, name: str, options: dict[str, Any] | None = None) -> Message:
    """``/checkers season <name>``; returns its answer."""
    return (await harness.emulator.invoke(user, ["checkers", "season", name], options or {})).message


async def leaderboard(harness: Harness, user: User, **options: Any) -> Message:
    return (await harness.command(user, "leaderboard", options)).message


def refused(message: Message, text: str) -> None:
    assert message.ephemeral and not message.embeds and text.lower() in message.content.lower(), message.content


async def test_a_manager_starts_seasons_and_each_season_has_its_own_ladder(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")

    refused(await season(harness, carol, "start"), "only a member who can manage the server starts a season")
    listed = await season(harness, carol, "list")
    assert listed.ephemeral and "No season yet" in description(listed), description(listed)

    emulator.guild.manager_ids.append(carol.id)  # Manage Server
    started = await season(harness, carol, "start")
    assert not started.ephemeral, "the channel is told"
    assert started.content.startswith("🏆 **Season 1** starts now:"), started.content
    assert "`/checkers leaderboard season:1`" in started.content and "kept" not in started.content

    board, black, white = await start_game(harness)
    await play_first_move(harness, black, board)
    await play_first_move(harness, white, board)  # two plies: long enough to be rated
    await resign(harness, black, channel=game_thread(harness, board))
    await eventually(lambda: board.content == "Game over.", what="the finished rated game")

    first = await leaderboard(harness, carol, season=1)
    assert first.embeds[0]["title"] == "Leaderboard: English draughts, Season 1", first.embeds[0]["title"]
    assert "url" not in first.embeds[0] or first.embeds[0]["url"] is None, "a season has no public page"
    table = description(first)
    assert "alice" in table and "bob" in table and table.count("(1 game)") == 2, table
    all_time = await leaderboard(harness, carol)
    assert all_time.embeds[0]["title"] == "Leaderboard: English draughts, this server"
    assert "alice" in description(all_time) and "bob" in description(all_time)

    second = await season(harness, carol, "start", {"name": "Spring cup"})
    assert second.content.startswith("🏆 **Season 2: Spring cup** starts now:"), second.content
    assert second.content.endswith("Season 1 is kept as it ended."), second.content
    empty = await leaderboard(harness, alice, season=2)
    assert empty.embeds[0]["title"] == "Leaderboard: English draughts, Season 2: Spring cup"
    assert "Nobody has a rating here yet" in description(empty), description(empty)
    kept = description(await leaderboard(harness, alice, season=1))
    assert "alice" in kept and "bob" in kept, kept

    listed = await season(harness, bob, "list")
    assert listed.ephemeral
    lines = description(listed).splitlines()
    assert lines[0].startswith("**Season 2: Spring cup** · <t:") and lines[0].endswith(":D> · current"), lines
    assert lines[1].startswith("**Season 1** · <t:") and "current" not in lines[1], lines

    refused(await leaderboard(harness, alice, season=9), "this server has no season 9")
    refused(await leaderboard(harness, alice, scope="global", season=1), "a season's ladder is this server's own")
    everyone = await leaderboard(harness, alice, scope="global")
    assert everyone.embeds[0]["title"] == "Leaderboard: English draughts, everyone"

    reply = await emulator.autocomplete(alice, ["checkers", "leaderboard"], {"season": ""}, "season")
    assert [(c["name"], c["value"]) for c in reply.choices] == [("Season 2: Spring cup", 2), ("Season 1", 1)]
    reply = await emulator.autocomplete(alice, ["checkers", "leaderboard"], {"season": "spring"}, "season")
    assert [c["value"] for c in reply.choices] == [2]


async def test_the_season_commands_speak_french(harness: Harness) -> None:
    emulator = harness.emulator
    carol = harness.user("carol")
    carol.locale = "fr"
    refused(await season(harness, carol, "start"), "seul un membre qui peut gérer le serveur lance une saison")
    emulator.guild.manager_ids.append(carol.id)
    await season(harness, carol, "start", {"name": "Printemps"})
    listed = await season(harness, carol, "list")
    assert description(listed).startswith("**Saison 1 : Printemps** · <t:"), description(listed)
    assert description(listed).endswith(" · en cours")


async def test_no_season_reply_bypasses_the_catalogue(harness: Harness) -> None:
    alice, carol = harness.user("alice"), harness.user("carol")
    await _speak(harness, PSEUDO_LOCALE)
    await season(harness, alice, "start")  # refused: not a manager
    await season(harness, alice, "list")  # none yet
    harness.emulator.guild.manager_ids.append(carol.id)
    await season(harness, carol, "start")
    await season(harness, carol, "start")
    await season(harness, alice, "list")
    await leaderboard(harness, alice, season=1)
    await leaderboard(harness, alice, season=9)
    await leaderboard(harness, alice, scope="global", season=1)
    found = bypassing(harness)
    assert found == [], "\n".join(f"{word!r} in {text!r}" for word, text in found)
