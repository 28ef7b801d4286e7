"""Links to the public pages: the result message links to the game's replay and the leaderboard to its page, only
when ``PUBLIC_BASE_URL`` is set."""

from __future__ import annotations

import pytest

from bot.service import ChannelId, GuildId
from bot.settings import Settings
from tests.bot.games.conftest import Harness, board_state, game_thread, make_settings, play_ai, resign
from tests.support import eventually

BASE = "https://kingme.example/"


async def _finish_a_game(harness: Harness) -> tuple[str, str]:
    """Play easy and resign at once; returns the game id and the result message's text."""
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    state = board_state(board)
    assert state is not None
    await resign(harness, alice)
    thread = game_thread(harness, board)
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages(thread)), what="the result message")
    result = next(m for m in emulator.messages(thread) if "🏁" in m.content)
    return state[0], result.content


@pytest.mark.parametrize("settings", [make_settings(public_base_url=BASE)])
async def test_links_to_the_public_pages_when_the_base_url_is_set(harness: Harness, settings: Settings) -> None:
    game_id, result = await _finish_a_game(harness)
    assert result.splitlines()[-1] == f"Replay: <https://kingme.example/games/{game_id}>"

    carol = harness.user("carol")
    here = (await harness.command(carol, "leaderboard")).message
    assert here.guild_id is not None
    assert here.embeds[0]["url"] == f"https://kingme.example/leaderboard/{here.guild_id}/american"
    everyone = (await harness.command(carol, "leaderboard", {"scope": "global", "variant": "mini"})).message
    assert everyone.embeds[0]["url"] == "https://kingme.example/leaderboard/global/mini"
    history = (await harness.command(harness.user("alice"), "history")).message
    assert f"[`{game_id}`](https://kingme.example/games/{game_id})" in history.embeds[0]["description"]


async def test_no_links_without_a_base_url(harness: Harness) -> None:
    assert harness.settings.public_base_url is None
    _, result = await _finish_a_game(harness)
    assert "http" not in result and "Replay" not in result
    table = (await harness.command(harness.user("carol"), "leaderboard")).message
    assert "url" not in table.embeds[0] or not table.embeds[0]["url"]
    history = (await harness.command(harness.user("alice"), "history")).message
    assert "http" not in history.embeds[0]["description"] and "`" in history.embeds[0]["description"]


@pytest.mark.parametrize("settings", [make_settings(public_base_url=BASE)])
async def test_a_tournaments_announcement_links_to_its_page(harness: Harness, settings: Settings) -> None:
    alice = harness.user("alice")
    reply = await harness.emulator.invoke(alice, ["tournament", "create"], {"name": "Autumn Swiss"})
    announcement = reply.message
    assert harness.service is not None and announcement.guild_id is not None
    where = GuildId(str(announcement.guild_id)), ChannelId(str(announcement.channel_id))
    record = await harness.service.tournaments.in_channel(*where)
    assert record is not None
    assert announcement.embeds[0]["url"] == f"https://kingme.example/tournaments/{record.id}"
