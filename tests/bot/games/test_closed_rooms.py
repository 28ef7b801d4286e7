"""A game's thread that the bot closes (its game was refused after the thread was opened) never holds a game: the
service closes the room in the same atomic write that files games (found by the Discord fuzz: a game played in a
thread the bot had archived and locked, which nobody could see or play again)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bot.emulator import EmulatorEvent
from bot.service import ChannelId, GuildId, RoomClosedError, User
from bot.settings import Settings
from tests.bot.games.conftest import Harness, make_settings, play_ai
from tests.support import eventually

RACES = 5
"""Tries of the race (a new player each time) before the test gives up on seeing both commands pass the early check."""


@pytest.fixture
def settings() -> Settings:
    return make_settings(ai_games_per_user=1)


async def test_a_game_started_in_a_thread_as_the_bot_closes_it_is_refused(harness: Harness) -> None:
    """Alice, allowed one AI game, runs ``/checkers play`` twice at once: both pass the early check of her limit, the
    bot opens two threads, one game is stored and the other refused by the atomic check, and the bot closes that
    one's thread. Bob starts a game in that thread just as it is being closed (the moment the archive reaches
    Discord): before, his game was filed in the closed thread; now it is refused, and nothing is left playing in a
    closed thread."""
    emulator, service = harness.emulator, harness.service
    assert service is not None
    alice, bob = harness.user("alice"), harness.user("bob")
    late: list[asyncio.Task[object]] = []

    def on_close(event: EmulatorEvent) -> None:
        thread = event.channel
        if event.kind == "thread_update" and thread is not None and thread.archived and not late:
            where = (GuildId(str(thread.guild_id)), ChannelId(str(thread.id)))
            late.append(asyncio.create_task(service.play_ai(*where, User(bob.id, bob.name), "easy")))

    unsubscribe = emulator.subscribe(on_close)
    try:
        for attempt in range(RACES):  # the two commands race: on a busy machine the second may lose it, and be
            player = alice if attempt == 0 else emulator.add_user(f"alice{attempt}")  # refused before any thread
            twice = [harness.command(player, "play", {"level": "easy"}) for _ in range(2)]
            await asyncio.gather(*twice)  # one game, one refusal: her limit
            with contextlib.suppress(AssertionError):
                await eventually(lambda: bool(late), within=2, what="a thread closed")
            if late:
                break
        assert late, f"the two commands never both passed the early check in {RACES} tries"
        await eventually(lambda: late[0].done(), what="bob's game in the closing thread")
    finally:
        unsubscribe()
    assert isinstance(late[0].exception(), RoomClosedError), "no game is started in a thread that is closing"
    for thread in emulator.threads():
        if thread.archived or thread.locked:
            room = (GuildId(str(thread.guild_id)), ChannelId(str(thread.id)))
            assert await service.channel_games(*room) == [], f"a game in closed {thread.name!r}"


async def test_a_player_at_the_ai_game_limit_opens_no_threads(harness: Harness) -> None:
    """The limit is checked before the game's thread is opened: ``/checkers play`` over the limit, again and again,
    leaves no archived, locked, empty threads behind (before: one per try)."""
    emulator, alice = harness.emulator, harness.user("alice")
    await play_ai(harness, alice)  # her one AI game, in its thread
    threads = len(emulator.threads())
    for _ in range(5):
        refusal = (await harness.command(alice, "play", {"level": "easy"})).message
        assert refusal.ephemeral and "against the AI" in refusal.content, refusal.content
    assert len(emulator.threads()) == threads, "no thread opened for a game that was refused"
