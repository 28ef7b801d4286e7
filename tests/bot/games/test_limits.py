"""Fair AI and limits on Discord, with the shipped settings and the AI pool the runtime builds from them (one worker
on a 2-core host): one person filling their AI games does not freeze anyone else's, a challenge flood pings its
target at most the limit's number of times, every refusal names its limit, and going too fast is told when to go on.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator

import pytest

from bot.emulator import Channel, Message, User
from bot.pool import AiPool
from bot.runtime import AI_QUEUE_PER_WORKER
from bot.settings import Settings
from tests.bot.games.conftest import Harness, board_state, component, play_ai, running
from tests.support import Clock, eventually, settings_with

FIRST_AI_MOVE_WITHIN = 15.0
"""Seconds within which a second person's AI must make its first move (the issue's acceptance figure)."""


@pytest.fixture
def settings() -> Settings:
    """The shipped settings (the shared fixture's shortcuts off): think times, limits and rate limits as shipped."""
    return settings_with({"discord_guild_id": None})


@pytest.fixture
async def pool(settings: Settings) -> AsyncIterator[AiPool]:
    """The AI pool as the runtime builds it from the settings."""
    async with running(AiPool(settings.ai_workers, queue_limit=AI_QUEUE_PER_WORKER * settings.ai_workers)) as workers:
        yield workers


@pytest.fixture
def clock() -> Clock:
    """Standing still, so that the rate limits refill only when the test moves time on."""
    return Clock(time.time())


async def new_thread(harness: Harness, owner: User, name: str) -> Channel:
    """A thread under the game channel that the bot has seen (a game of its own may be played there)."""
    thread = harness.emulator.state.add_thread(harness.emulator.channel, name, owner)
    bot = harness.bot
    assert bot is not None
    await eventually(lambda: bot.get_channel(thread.id) is not None, what=f"the bot seeing thread {name}")
    return thread


def pings(harness: Harness, user: User) -> list[Message]:
    """The public messages that mention ``user``."""
    return [m for m in harness.emulator.messages() if not m.ephemeral and f"<@{user.id}>" in m.content]


async def test_one_player_at_the_ai_game_limit_does_not_hold_up_another_players_ai(harness: Harness) -> None:
    settings = harness.settings
    alice, bob = harness.user("alice"), harness.user("bob")
    slowest = {"level": "master", "colour": "white", "think": settings.ai_think_time_max}  # the AI opens every game
    for i in range(settings.ai_games_per_user):
        thread = await new_thread(harness, alice, f"alice {i}")
        board = (await harness.command(alice, "play", slowest, channel=thread)).message
        assert not board.ephemeral and board_state(board) is None, "the AI is thinking its first move"

    spare = await new_thread(harness, alice, "alice spare")
    refusal = (await harness.command(alice, "play", slowest, channel=spare)).message
    limit = settings.ai_games_per_user
    assert refusal.ephemeral and f"You already have {limit} games against the AI" in refusal.content
    assert "finish or resign one" in refusal.content

    board = await play_ai(harness, bob, {"colour": "white"})
    assert not board.ephemeral, board.content
    await eventually(
        lambda: board_state(board) is not None, within=FIRST_AI_MOVE_WITHIN, what="the AI's first move in Bob's game"
    )


async def test_a_challenge_flood_is_refused_past_the_limit_and_pings_at_most_that_often(harness: Harness) -> None:
    settings = harness.settings
    alice, bob = harness.user("alice"), harness.user("bob")
    flood = settings.rate_user_burst  # as many as the rate limits let through at once, all in flight together
    replies = await asyncio.gather(*(harness.command(alice, "challenge", {"opponent": bob}) for _ in range(flood)))
    shown = [r.message for r in replies if not r.message.ephemeral]
    refused = [r.message.content for r in replies if r.message.ephemeral]
    limit = settings.challenges_per_sender
    assert len(shown) == limit and len(refused) == flood - limit
    assert all(f"You already have {limit} challenges waiting for an answer" in text for text in refused), refused
    assert len(pings(harness, bob)) == limit, "the target is pinged once per challenge that stands"


async def test_challenges_to_one_person_are_limited(harness: Harness) -> None:
    emulator, bob = harness.emulator, harness.user("bob")
    limit = harness.settings.challenges_per_target
    senders = [emulator.add_user(f"sender{i}") for i in range(limit + 2)]
    replies = [await harness.command(sender, "challenge", {"opponent": bob}) for sender in senders]
    refused = [r.message.content for r in replies if r.message.ephemeral]
    assert len(refused) == 2, refused
    assert all(f"Bob already has {limit} challenges waiting" in text for text in refused), refused
    assert len(pings(harness, bob)) == limit


def retry_time(message: Message) -> int:
    """The Discord timestamp in a "slow down" answer."""
    found = re.search(r"<t:(\d+):R>", message.content)
    assert found is not None, message.content
    return int(found[1])


async def test_going_too_fast_is_told_when_to_go_on_and_tokens_refill(harness: Harness, clock: Clock) -> None:
    emulator, carol = harness.emulator, harness.user("carol")
    board = await play_ai(harness, carol, {"level": "easy"})
    for _ in range(harness.settings.rate_user_burst - 1):  # the game took the first token
        assert (await harness.command(carol, "help")).message.embeds, "help answers while within the limits"

    slow = (await harness.command(carol, "help")).message
    assert slow.ephemeral and slow.content.startswith("Slow down: you are going too fast"), slow.content
    assert retry_time(slow) >= clock()

    piece = component(board, "km:p:")
    assert piece is not None
    before = board_state(board)
    clicked = await emulator.select(carol, board, piece["custom_id"], [piece["options"][0]["value"]])
    assert clicked.message.ephemeral and clicked.message.content.startswith("Slow down"), clicked.message.content
    assert board_state(board) == before and component(board, "km:m:") is None, "a refused click changes nothing"

    typed = await emulator.autocomplete(carol, ["checkers", "play"], {"level": "master"}, "level")
    assert "master" in [c["value"] for c in typed.choices], "autocomplete is not rate limited"

    clock.advance(1 / harness.settings.rate_user)  # one token back
    chosen = await emulator.select(carol, board, piece["custom_id"], [piece["options"][0]["value"]])
    assert component(board, "km:m:") is not None, [m.content for m in chosen.messages]  # the piece's moves
    again = (await harness.command(carol, "help")).message
    assert again.content.startswith("Slow down"), "that was the only token"


async def _flood(
    harness: Harness, user: User, message: Message, custom_id: str, clicks: int = 30, within: float = 1.0
) -> list[Message]:
    """``clicks`` clicks on one button within ``within`` seconds, all in flight together; the first message of each
    answer."""
    handles = []
    for _ in range(clicks):
        handles.append(harness.emulator.click(user, message, custom_id))
        await asyncio.sleep(within / clicks)
    return [(await handle).message for handle in handles]


async def test_thirty_clicks_a_second_on_the_review_and_privacy_buttons_are_told_to_slow_down(
    harness: Harness, clock: Clock
) -> None:
    """Every click goes through the one dispatcher that counts it against the rate limits: the review's Analyse
    button and the privacy summary's delete button too (they were not counted before)."""
    emulator, dave = harness.emulator, harness.user("carol")
    board = await play_ai(harness, dave, {"level": "easy"})
    asked = (await harness.command(dave, "resign", channel=board.channel_id)).message
    confirm = component(asked, "km:r:")
    assert confirm is not None
    await emulator.click(dave, asked, confirm["custom_id"])
    await eventually(
        lambda: any(component(m, "km:a:") for m in emulator.messages(board.channel_id)), what="the result"
    )
    result = next(m for m in emulator.messages(board.channel_id) if component(m, "km:a:") is not None)
    analyse = component(result, "km:a:")
    assert analyse is not None

    answers = await _flood(harness, dave, result, analyse["custom_id"])
    slow = [m for m in answers if m.ephemeral and m.content.startswith("Slow down")]
    assert len(slow) >= 30 - harness.settings.rate_user_burst, [m.content[:60] for m in answers]
    assert len(slow) < 30, "the clicks within the burst are answered with the review"

    clock.advance(harness.settings.rate_user_burst / harness.settings.rate_user)  # the bucket full again
    shown = (await harness.command(dave, "privacy")).message
    delete = component(shown, "km:privacy:")
    assert delete is not None, shown.content
    answers = await _flood(harness, dave, shown, delete["custom_id"], within=0)  # before the first one removes it
    slow = [m for m in answers if m.ephemeral and m.content.startswith("Slow down")]
    assert len(slow) >= 30 - harness.settings.rate_user_burst, [m.content[:60] for m in answers]
    assert shown.content.startswith("Your data is deleted"), "the clicks within the burst delete the data"
