"""What a new user tripped over: a stranger's statistics titled with an id, "1 games", a resignation that could not be
called off and threatened a loss in an unrated game, a takeback acknowledged in the third person, and Python's own
words about an option value."""

from __future__ import annotations

import pytest
from discord import AppCommandOptionType

from bot.games import _messages as say
from bot.i18n import _n
from bot.service import duration
from bot.settings import Settings
from tests.bot.games.conftest import (
    Harness,
    board_state,
    component,
    custom_ids,
    game_thread,
    make_settings,
    play_ai,
    play_first_move,
    resign,
)
from tests.bot.games.test_challenge import start_game, to_move
from tests.support import eventually


async def test_stats_of_someone_who_never_played_shows_their_name(harness: Harness) -> None:
    alice, dave = harness.user("alice"), harness.emulator.add_user("dave")
    stats = (await harness.command(alice, "stats", {"user": dave})).message
    assert stats.ephemeral and len(stats.embeds) == 2
    for embed in stats.embeds:
        assert embed["title"].startswith("dave: "), embed["title"]
        assert str(dave.id) not in embed["title"]


@pytest.mark.parametrize("settings", [make_settings(ai_think_time_max=1.0)])
async def test_counts_are_in_the_singular_for_one(harness: Harness, settings: Settings) -> None:
    games = [_n("{count} game", "{count} games", n) for n in (1, 2, 0)]
    assert games == ["1 game", "2 games", "0 games"]
    assert (duration(1), duration(90), duration(60)) == ("1 second", "90 seconds", "1 minute")

    alice = harness.user("alice")
    refused = (await harness.command(alice, "play", {"level": "easy", "think": 2.0})).message
    assert refused.ephemeral and "between 0 and 1 second a move" in refused.content, refused.content

    board, black, white = await start_game(harness)
    await play_first_move(harness, black, board)
    await play_first_move(harness, white, board)  # two plies: long enough to be rated
    await resign(harness, black, channel=game_thread(harness, board))
    await eventually(lambda: board.content == "Game over.", what="the finished rated game")
    table = (await harness.command(alice, "leaderboard")).message.embeds[0]["description"]
    assert table.count("(1 game)") == 2 and "games)" not in table, table


async def test_resigning_can_be_called_off_and_speaks_of_ratings_only_when_rated(harness: Harness) -> None:
    emulator = harness.emulator
    rated, black, _ = await start_game(harness)
    question = (await harness.command(black, "resign", channel=game_thread(harness, rated))).message
    assert "counts as a loss" in question.content and "rating" in question.content, question.content

    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    thread = game_thread(harness, board)
    asked = (await harness.command(alice, "resign", channel=thread)).message
    assert asked.ephemeral and "Really resign" in asked.content
    assert "loss" not in asked.content and "unrated" in asked.content, "a game against the AI is unrated"
    cancel = component(asked, "km:rc:")
    assert cancel is not None and cancel["label"] == "Cancel"
    assert component(asked, "km:r:") is not None, "beside the Really resign? button"

    state = board_state(board)
    await harness.restart()  # the Cancel button is a DynamicItem too
    await emulator.click(alice, asked, cancel["custom_id"])
    assert asked.content == "You play on." and custom_ids(asked) == []
    assert board_state(board) == state, "the game goes on"
    await play_first_move(harness, alice, board)


async def test_the_player_asking_for_a_takeback_is_told_you_asked(harness: Harness) -> None:
    emulator = harness.emulator
    board, black, white = await start_game(harness)
    thread = game_thread(harness, board)
    await play_first_move(harness, black, board)
    assert to_move(harness, board) is white

    asked = (await harness.command(black, "takeback", channel=thread)).message
    assert asked.ephemeral
    assert asked.content == f"You asked to take your last move back: {white.name} must agree.", asked.content
    await eventually(
        lambda: any(f"<@{white.id}>: {black.name} asks" in m.content for m in emulator.messages(thread)),
        what="the opponent's ping in the thread",
    )


def test_an_option_value_that_does_not_convert_is_answered_in_our_words() -> None:
    assert say.bad_option("nobody", AppCommandOptionType.user) == (
        "`nobody` does not fit that option: it takes a member of this server: pick one from the list"
    )
    assert say.bad_option("abc", AppCommandOptionType.number).endswith("it takes a number")
    assert say.bad_option("x", AppCommandOptionType.string) == say.BAD_OPTION
