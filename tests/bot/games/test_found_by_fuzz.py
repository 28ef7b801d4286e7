"""What the fuzz of the front end (tests/bot/fuzz) found in the Discord layer, each pinned by a small test."""

from __future__ import annotations

import logging

import pytest

from bot.emulator import Message
from tests.bot.games.conftest import Harness, board_state, component, play_ai


async def test_a_piece_menu_value_that_is_no_square_selects_nothing(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """A piece menu (``km:p:``) whose chosen value is no number (a board sent by a faulty or older version): the value
    was read with ``int()`` before the click's error handling, so the click raised, was logged at ERROR and never
    answered. Now it selects no piece and the current board is shown."""
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    piece = component(board, "km:p:")
    assert piece is not None
    odd = {**piece, "options": [{"label": "?", "value": "-"}]}
    old = emulator.state.add_message(
        Message(
            emulator.state.snowflake(),
            board.channel_id,
            board.guild_id,
            emulator.bot_user,
            content="an old board",
            components=[{"type": 1, "components": [odd]}],
        )
    )
    with caplog.at_level(logging.ERROR):
        reply = await emulator.select(alice, old, piece["custom_id"], ["-"])
    assert reply.messages and board_state(old) == board_state(board), "the clicked message shows the current board"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
