"""Games in their own thread, challenges from a position, resigning in two steps, and a restarted bot that still
shows timeouts and expired challenges on the messages people are looking at."""

from __future__ import annotations

from bot.emulator import Message
from tests.bot.games.conftest import (
    Harness,
    board_state,
    component,
    custom_ids,
    description,
    game_thread,
    play_ai,
)
from tests.bot.games.test_challenge import start_game
from tests.support import eventually

SET_UP = "W:W18,K30:B14,3"


async def test_a_game_in_its_thread_is_filed_there_and_leaves_the_channel_free(harness: Harness) -> None:
    assert harness.service is not None
    emulator = harness.emulator
    board, _, _ = await start_game(harness)
    [thread] = emulator.threads()
    state = board_state(board)
    assert state is not None
    view = await harness.service.state(state[0])
    assert view.game.channel_id == str(thread.id), "the game is filed under its thread"
    assert view.game.board_message is not None and view.game.board_message.message_id == str(board.id)

    carol = harness.user("carol")
    refused = (await harness.command(carol, "play", {"level": "easy"}, channel=thread)).message
    assert refused.ephemeral and "already has a game" in refused.content
    here = await play_ai(harness, carol)
    assert board_state(here) is not None, "the parent channel takes a game of its own"


async def test_when_the_thread_cannot_be_opened_the_game_is_played_in_the_channel(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob = harness.user("alice"), harness.user("bob")
    offer = (await harness.command(alice, "challenge", {"opponent": bob})).message
    # someone already opened a thread on the challenge message: Discord refuses a second one
    chat = emulator.state.add_thread(emulator.channel, "chat", bob, thread_id=offer.id)
    offer.thread_id = chat.id
    accept = component(offer, "km:c:accept:")
    assert accept is not None
    await emulator.click(bob, offer, accept["custom_id"])
    assert "accepted" in offer.content
    await eventually(lambda: board_state(emulator.messages()[-1]) is not None, what="the board in the channel")
    board = emulator.messages()[-1]
    assert board.channel_id == emulator.channel.id and emulator.messages(chat) == []
    assert harness.service is not None
    state = board_state(board)
    assert state is not None
    assert (await harness.service.state(state[0])).game.channel_id == str(emulator.channel.id)


async def test_a_challenge_from_a_position(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob = harness.user("alice"), harness.user("bob")
    bad = (await harness.command(alice, "challenge", {"opponent": bob, "position": "W:nonsense"})).message
    assert bad.ephemeral and "not a fen" in bad.content.lower()
    offer = (await harness.command(alice, "challenge", {"opponent": bob, "position": SET_UP})).message
    assert "unrated" in offer.content and "W:W18,K30:B3,14" in offer.content, offer.content
    accept = component(offer, "km:c:accept:")
    assert accept is not None
    await emulator.click(bob, offer, accept["custom_id"])
    [thread] = emulator.threads()
    await eventually(lambda: bool(emulator.messages(thread)), what="the board")
    board = emulator.messages(thread)[0]
    assert harness.service is not None
    state = board_state(board)
    assert state is not None
    game = (await harness.service.state(state[0])).game
    assert game.initial_fen == "W:W18,K30:B3,14" and not game.rated


async def test_the_resign_button_asks_first(harness: Harness) -> None:
    emulator = harness.emulator
    board, _, white = await start_game(harness)
    carol = harness.user("carol")
    resign = component(board, "km:b:resign:")
    assert resign is not None
    nosy = (await emulator.click(carol, board, resign["custom_id"])).message
    assert nosy.ephemeral and "not playing" in nosy.content

    asked = (await emulator.click(white, board, resign["custom_id"])).message
    assert asked.ephemeral and "Really resign" in asked.content
    assert board_state(board) is not None, "nothing happened yet"
    confirm = component(asked, "km:r:")
    assert confirm is not None
    await harness.restart()  # the confirmation button is a DynamicItem: it works after a restart too
    await emulator.click(white, asked, confirm["custom_id"])
    assert asked.content == "You resigned."
    await eventually(lambda: board.content == "Game over.", what="the finished board")
    assert "resign" in description(board).lower()


def _public(messages: list[Message]) -> list[Message]:
    return [m for m in messages if not m.ephemeral]


async def test_after_a_restart_a_timeout_edits_the_old_board(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    assert board_state(board) is not None
    thread = game_thread(harness, board)
    posted = len(_public(emulator.messages(thread)))

    await harness.restart()
    assert harness.service is not None
    harness.clock.advance(harness.settings.turn_time_max + 1)
    await harness.service.sweep()
    await eventually(lambda: board.content == "Game over.", what="the old board showing the timeout")
    assert "time" in description(board).lower() and custom_ids(board) == []
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages(thread)), what="the result")
    extra = _public(emulator.messages(thread))[posted:]
    assert [m for m in extra if board_state(m) is not None or m.embeds] == [], "no second board was posted"


async def test_after_a_restart_an_expired_challenge_is_struck_out(harness: Harness) -> None:
    alice, bob = harness.user("alice"), harness.user("bob")
    offer = (await harness.command(alice, "challenge", {"opponent": bob})).message
    await harness.restart()
    assert harness.service is not None
    harness.clock.advance(harness.settings.challenge_ttl + 1)
    await harness.service.sweep()
    await eventually(lambda: "expired" in offer.content, what="the expired challenge")
    assert offer.content.startswith("~~") and custom_ids(offer) == []
