"""Games between two people: challenge, accept into a thread, moves by both, draw offers, resignation, ratings."""

from __future__ import annotations

import re

import pytest

from bot.emulator import Message, User
from bot.settings import Settings
from core.geometry import EIGHT
from tests.bot.games.conftest import (
    Harness,
    board_state,
    component,
    custom_ids,
    description,
    make_settings,
    play_first_move,
    resign,
)
from tests.support import eventually


def to_move(harness: Harness, board: Message) -> User:
    match = re.match(r"<@(\d+)>, your move", board.content)
    assert match, f"the board does not name the player to move: {board.content!r}"
    return harness.emulator.state.users[int(match[1])]


async def start_game(harness: Harness, threads: bool = True) -> tuple[Message, User, User]:
    """alice challenges bob, bob accepts; returns the board and (Black, White)."""
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    offer = (await harness.command(alice, "challenge", {"opponent": bob, "turn_time": 300})).message
    assert f"<@{bob.id}>" in offer.content and not offer.ephemeral
    accept = component(offer, "km:c:accept:")
    assert accept is not None

    refused = await emulator.click(carol, offer, accept["custom_id"])
    assert refused.message.ephemeral and "for bob" in refused.message.content
    assert component(offer, "km:c:accept:") is not None, "a refused click changes nothing"

    await emulator.click(bob, offer, accept["custom_id"])
    assert "accepted" in offer.content and custom_ids(offer) == []
    if threads:
        await eventually(lambda: len(emulator.threads()) == 1, what="the game's thread")
        [thread] = emulator.threads()
        await eventually(lambda: bool(emulator.messages(thread)), what="the board in the thread")
        board = emulator.messages(thread)[0]
        assert thread.name.startswith("alice vs bob") or thread.name.startswith("bob vs alice")
    else:
        await eventually(lambda: board_state(emulator.messages()[-1]) is not None, what="the board")
        board = emulator.messages()[-1]
    black = to_move(harness, board)
    white = bob if black is alice else alice
    return board, black, white


async def test_challenge_moves_draw_declined_resignation_and_leaderboard(harness: Harness) -> None:
    emulator = harness.emulator
    carol = harness.user("carol")
    board, black, white = await start_game(harness)
    thread = emulator.threads()[0]

    # the wrong player and a spectator cannot use the move controls
    piece = component(board, "km:p:")
    assert piece is not None
    before = board_state(board)
    for intruder, text in ((white, "turn"), (carol, "not playing")):
        refused = await emulator.select(intruder, board, piece["custom_id"], [piece["options"][0]["value"]])
        assert refused.message.ephemeral and text in refused.message.content
    assert board_state(board) == before and component(board, "km:m:") is None

    await play_first_move(harness, black, board)
    assert to_move(harness, board) is white, "the board mentions the next player"
    await eventually(lambda: any(f"<@{white.id}>" in m.content for m in emulator.messages(thread)[1:]))
    await play_first_move(harness, white, board)
    assert to_move(harness, board) is black

    # a draw offer, withdrawn by the one who made it
    draw = component(board, "km:b:draw:")
    assert draw is not None
    await emulator.click(black, board, draw["custom_id"])
    assert "offers a draw" in description(board)
    ping = lambda: [m for m in emulator.messages(thread) if "offers a draw" in m.content]  # noqa: E731
    await eventually(lambda: len(ping()) == 1, what="white told of the offer")
    withdraw = component(board, "km:b:drawno:")
    assert withdraw is not None
    await emulator.click(black, board, withdraw["custom_id"])
    assert "offers a draw" not in description(board) and component(board, "km:b:drawno:") is None
    await eventually(lambda: not ping(), what="the offer's ping gone with the offer")
    withdrawn = f"{black.name} withdraws the draw offer"
    await eventually(lambda: any(withdrawn in m.content for m in emulator.messages(thread)), what="the withdrawal told")

    # offered again: only White answers (anyone else is told whose button it is), and Black is told the answer
    draw = component(board, "km:b:draw:")
    assert draw is not None
    await emulator.click(black, board, draw["custom_id"])
    accept, decline = component(board, "km:b:drawyes:"), component(board, "km:b:drawno:")
    assert accept is not None and decline is not None
    for intruder, button in ((black, accept), (carol, decline)):
        refused = await emulator.click(intruder, board, button["custom_id"])
        assert refused.message.ephemeral and f"this button is for {white.name}" in refused.message.content.lower()
    assert "offers a draw" in description(board), "a refused click changes nothing"
    await emulator.click(white, board, decline["custom_id"])
    assert "offers a draw" not in description(board) and component(board, "km:b:drawno:") is None
    answer = f"<@{black.id}>: {white.name} declines the draw."
    await eventually(lambda: any(m.content == answer for m in emulator.messages(thread)), what="black told the answer")
    await eventually(lambda: not ping(), what="the offer's ping gone once answered")

    # the typed form of a move, and its autocomplete
    reply = await emulator.autocomplete(black, ["checkers", "move"], {"move": ""}, "move", channel=thread)
    legal = [c["value"] for c in reply.choices]
    assert legal
    played = await harness.command(black, "move", {"move": legal[0]}, channel=thread)
    assert played.message.ephemeral and legal[0] in played.message.content
    await eventually(lambda: to_move(harness, board) is white, what="the board after a typed move")

    # algebraic text plays the same move as the square numbers, typed and in the autocomplete
    numeric = (await emulator.autocomplete(white, ["checkers", "move"], {"move": ""}, "move", channel=thread)).choices
    first = numeric[0]["value"]
    named = re.sub(r"\d+", lambda n: EIGHT.square_name(int(n[0])), first)
    assert numeric[0]["name"] == f"{first} ({named})"
    found = await emulator.autocomplete(white, ["checkers", "move"], {"move": named[:2]}, "move", channel=thread)
    assert first in [c["value"] for c in found.choices]
    played = await harness.command(white, "move", {"move": named.upper()}, channel=thread)
    assert played.message.ephemeral and f"{first} ({named})" in played.message.content
    await eventually(lambda: to_move(harness, board) is black, what="the board after an algebraic move")

    # resignation by White ends the game with rating changes; the board loses its controls
    await resign(harness, white, channel=thread)
    await eventually(lambda: board.content == "Game over.", what="the finished board")
    assert custom_ids(board) == []
    await eventually(lambda: any("Ratings:" in m.content for m in emulator.messages(thread)), what="the result")
    result = next(m for m in emulator.messages(thread) if "Ratings:" in m.content)
    assert "resign" in result.content.lower() and "→" in result.content

    table = (await harness.command(carol, "leaderboard")).message
    text = table.embeds[0]["description"]
    assert black.name in text and white.name in text
    assert text.index(black.name) < text.index(white.name), "the winner ranks first"


async def test_outdated_board_click_gets_a_fresh_board(harness: Harness) -> None:
    emulator = harness.emulator
    board, black, white = await start_game(harness)
    thread = emulator.threads()[0]
    second = (await harness.command(white, "board", channel=thread)).message
    assert board_state(second) == board_state(board)
    await play_first_move(harness, black, board)

    stale = component(second, "km:p:")
    assert stale is not None
    await emulator.select(white, second, stale["custom_id"], [stale["options"][0]["value"]])
    await eventually(
        lambda: any(
            "position changed" in m.content for m in emulator.messages(thread, visible_to=white) if m.ephemeral
        ),
        what="the ephemeral note",
    )
    assert board_state(second) == board_state(board), "the outdated board now shows the current position"


@pytest.mark.parametrize("settings", [make_settings(game_threads=False)])
async def test_no_thread_when_threads_are_off(harness: Harness, settings: Settings) -> None:
    board, black, _ = await start_game(harness, threads=False)
    assert harness.emulator.threads() == [] and board.channel_id == harness.emulator.channel.id
    await play_first_move(harness, black, board)


async def test_timeout_and_expired_challenge_are_announced(harness: Harness) -> None:
    emulator = harness.emulator
    assert harness.service is not None
    alice, carol = harness.user("alice"), harness.user("carol")
    board, black, _ = await start_game(harness)
    thread = emulator.threads()[0]
    busy = (await harness.command(carol, "challenge", {"opponent": alice}, channel=thread)).message
    assert busy.ephemeral and "already has a game" in busy.content, "one game per channel: the thread has one"
    offer = (await harness.command(carol, "challenge", {"opponent": alice})).message
    assert not offer.ephemeral, "the parent channel is not blocked by the game in its thread"

    harness.clock.advance(harness.settings.turn_time_max + 1)
    await harness.service.sweep()
    await eventually(lambda: board.content == "Game over.", what="the timed-out board")
    assert "time" in description(board).lower()
    await eventually(lambda: "expired" in offer.content, what="the expired challenge")
    assert custom_ids(offer) == []
    assert black is not None
