"""What players complain about elsewhere: dead buttons after a restart, and "interaction failed" when the AI is busy.

Discord refuses an answer later than 3 seconds ("interaction failed"), and so does the emulator: an interaction that
was ``answered`` was answered in time. How fast the answers are is a benchmark's figure, not a test's."""

from __future__ import annotations

import asyncio

import pytest

from ai.api import GameInput, Limits
from bot.games import _respond
from core import get_variant
from tests.bot.games.conftest import Harness, board_state, game_board, play_ai, play_first_move
from tests.support import eventually


async def test_a_click_on_the_old_board_works_after_a_restart(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    first = board_state(board)
    await play_first_move(harness, alice, board)
    await eventually(lambda: board_state(board) not in (None, first), what="the AI's first answer")
    before = board_state(board)

    await harness.restart()
    assert emulator.gateway.identifies == 2

    await play_first_move(harness, alice, board)  # the message was sent by the previous bot process
    await eventually(
        lambda: board_state(board) not in (None, before) and "thinking" not in board.content,
        what="the AI's answer after the restart",
    )
    state = board_state(board)
    assert state is not None and before is not None and state[0] == before[0] and state[1] == before[1] + 2


async def test_answers_at_once_while_every_ai_worker_is_busy(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    start = GameInput("american", get_variant("american").start_fen, ("11-15", "23-19"))
    busy = [  # steady has no opening book: it searches its whole 1.5 s
        asyncio.create_task(harness.pool.choose("steady", start, Limits(time=1.5), seed))
        for seed in range(harness.pool.workers)
    ]
    await eventually(lambda: harness.pool.busy_workers == harness.pool.workers, what="busy workers")

    reply = await harness.command(alice, "play", {"level": "easy", "colour": "white"})
    board = await game_board(harness, reply)
    assert "thinking" in board.content and board_state(board) is None, "the AI moves first and is thinking"
    assert reply.interaction.response_type == 4, "answered at once with the link to the game's thread, not deferred"
    assert not any(task.done() for task in busy), "the workers were still busy when the bot answered"
    await eventually(lambda: board_state(board) is not None, within=10, what="the AI's first move")
    assert any(task.done() for task in busy), "the AI's move waited for a free worker"
    assert "Last move" in str(board.embeds[0]["fields"])
    await asyncio.gather(*busy)

    records = list(emulator.state.interactions.values())
    assert records and all(r.answered for r in records), "every interaction was answered in time"
    metrics = harness.metrics.render().decode()
    assert 'kingme_interaction_seconds_count{kind="command"} 1.0' in metrics


async def test_slow_answers_are_deferred_then_filled_in(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_respond, "DEFER_AFTER", 0.0)  # every handler is "slow": it defers first
    emulator = harness.emulator
    alice = harness.user("alice")
    reply = await harness.command(alice, "play", {"level": "easy"})
    assert reply.interaction.response_type == 5, 'a deferred command shows "thinking…"'
    assert not reply.message.loading
    board = await game_board(harness, reply)
    assert board_state(board) is not None
    first = board_state(board)
    await play_first_move(harness, alice, board)  # each select gets a deferred update, then an edit
    await eventually(lambda: board_state(board) not in (None, first), what="the AI's answer")
    types = {r.response_type for r in emulator.state.interactions.values()}
    assert types == {5, 6}
    bad = await harness.command(alice, "move", {"move": "hello"})
    assert bad.message.ephemeral and "not a move" in bad.message.content
