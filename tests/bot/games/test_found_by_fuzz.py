"""What the fuzz of the front end (tests/bot/fuzz) found in the Discord layer, each pinned by a small test."""

from __future__ import annotations

import asyncio
import logging

import pytest

from ai.api import GameInput
from ai.review import GameReview
from bot.emulator import EmulatorEvent, Message
from bot.pool import AiPool
from bot.service import ChannelId, GuildId, User
from tests.bot.games.conftest import Harness, board_state, component, play_ai
from tests.support import eventually


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


async def test_a_thread_someone_started_a_game_in_first_is_not_closed(harness: Harness) -> None:
    """``/checkers play`` opens a thread, then stores its game there; a game started in the new thread in between
    (someone typed a command in it at once) took the thread, the first game was refused, and the bot then archived
    and locked the thread with the other game in it, which could never be shown or played again. Now the thread is
    left open to the game that took it."""
    emulator, service = harness.emulator, harness.service
    assert service is not None
    alice, bob = harness.user("alice"), harness.user("bob")
    intruders: list[asyncio.Task[object]] = []

    def first_in(event: EmulatorEvent) -> None:
        if event.kind == "thread_create" and event.channel is not None and not intruders:
            where = (GuildId(str(event.channel.guild_id)), ChannelId(str(event.channel.id)))
            intruders.append(asyncio.create_task(service.play_ai(*where, User(bob.id, bob.name), "easy")))

    unsubscribe = emulator.subscribe(first_in)
    try:
        answer = (await harness.command(alice, "play", {"level": "easy"})).message
        await eventually(lambda: bool(intruders) and intruders[0].done(), what="the game started in the new thread")
    finally:
        unsubscribe()
    thread = emulator.threads()[0]
    assert intruders[0].exception() is None, "the game started in the thread first is stored"
    await eventually(lambda: answer.id not in emulator.state.messages, what="the refused game's message tidied up")
    assert not thread.archived and not thread.locked, "the thread of the game played in it stays open"
    room = (GuildId(str(thread.guild_id)), ChannelId(str(thread.id)))
    assert [v.game.black.id for v in await service.channel_games(*room)] == [str(bob.id)]


class GatedReviews(AiPool):
    """The real pool, whose reviews wait until the test opens the gate (a review that takes long, as a game's first
    one does on a busy machine)."""

    gate: asyncio.Event

    async def review(self, game: GameInput) -> GameReview:
        await self.gate.wait()
        return await super().review(game)


@pytest.fixture
def pool_type() -> type[AiPool]:
    GatedReviews.gate = asyncio.Event()
    return GatedReviews


async def test_a_review_page_that_must_be_computed_is_deferred_in_time(harness: Harness) -> None:
    """Previous or Next under a review (``km:rv:``) answered only when the review was there: one that had to be
    computed (never stored, or a board of a faulty version) answered after Discord's 3 seconds, "Unknown
    interaction", logged at ERROR. Now the click is deferred first, and the page comes when the review does."""
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    shown = board_state(board)
    assert shown is not None and harness.service is not None
    game_id = shown[0]
    await harness.service.resign(game_id, GuildId(str(emulator.guild.id)), User(alice.id, alice.name))
    page = emulator.state.add_message(
        Message(
            emulator.state.snowflake(),
            board.channel_id,
            board.guild_id,
            emulator.bot_user,
            content="an old review",
            components=[
                {"type": 1, "components": [{"type": 2, "style": 2, "label": "Next", "custom_id": f"km:rv:{game_id}:1"}]}
            ],
        )
    )
    handle = emulator.click(alice, page, f"km:rv:{game_id}:1")
    await eventually(lambda: handle.record.answered, what="the click deferred (the emulator refuses it after 3 s)")
    GatedReviews.gate.set()
    await handle
    await eventually(lambda: bool(page.embeds), what="the review's page on the clicked message")
