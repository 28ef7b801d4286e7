"""Discord's limits on editing messages, as the emulator answers them to the real discord.py: messages dated by a
clock the test moves, a rate-limit bucket per channel that discord.py waits out, and error 30046 for an old message
edited once too often."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import aiohttp
import discord
import pytest

from bot.emulator import DiscordEmulator, EditLimits
from bot.emulator._limits import OLD_MESSAGE_EDITS, RATE_LIMITED
from tests.support import Clock

HOUR = 3600.0
START = 1_800_000_000.0  # a fixed moment, so the test clock stands still unless the test moves it


@pytest.fixture
async def client(emulator: DiscordEmulator) -> AsyncIterator[discord.Client]:
    """A discord.py client logged in over REST only, with the bot's own limit on how long it waits out a 429."""
    bot = discord.Client(intents=discord.Intents.none(), max_ratelimit_timeout=30.0)
    await bot.login(emulator.token)
    try:
        yield bot
    finally:
        await bot.close()


async def test_messages_are_dated_by_the_emulators_clock(emulator: DiscordEmulator, client: discord.Client) -> None:
    clock = Clock(START)
    emulator.state.clock = clock
    sent = await client.get_partial_messageable(emulator.channel.id).send("hello")
    message = emulator.state.messages[sent.id]
    assert message.created_at == datetime.fromtimestamp(START, UTC) and emulator.state.age(message) == 0
    assert emulator.message_json(message)["timestamp"] == message.created_at.isoformat()

    clock.advance(2 * HOUR)
    edited = await sent.edit(content="later")
    assert emulator.state.age(message) == 2 * HOUR
    assert edited.edited_at == datetime.fromtimestamp(START + 2 * HOUR, UTC), "as discord.py reads it"
    assert abs(sent.created_at.timestamp() - time.time()) < HOUR, "ids stay on real time, like the bot's own clock"


async def test_edits_carry_discords_rate_limit_headers_and_a_burst_gets_429(emulator: DiscordEmulator) -> None:
    emulator.rest.edits.limits = EditLimits(edits=2, per=60.0)
    message = emulator.state.add_message(emulator.rest.writer.create(emulator.channel, {"content": "x"}, {}))
    url = f"{emulator.api_url}/channels/{emulator.channel.id}/messages/{message.id}"
    headers = {"Authorization": f"Bot {emulator.token}"}
    async with aiohttp.ClientSession(headers=headers) as http:
        answers = []
        for n in range(3):
            async with http.patch(url, json={"content": f"edit {n}"}) as response:
                answers.append((response.status, dict(response.headers), await response.json()))

    (first, h1, _), (second, h2, _), (third, h3, body) = answers
    assert (first, second, third) == (200, 200, 429)
    assert (h1["X-RateLimit-Limit"], h1["X-RateLimit-Remaining"], h2["X-RateLimit-Remaining"]) == ("2", "1", "0")
    assert h1["X-RateLimit-Bucket"] == h2["X-RateLimit-Bucket"] and 0 < float(h2["X-RateLimit-Reset-After"]) <= 60
    assert body["global"] is False and 0 < body["retry_after"] <= 60 and "rate limited" in body["message"]
    assert h3["X-RateLimit-Scope"] == "user" and h3["Via"] and int(h3["Retry-After"]) >= body["retry_after"]
    assert message.content == "edit 1", "the refused edit changed nothing"
    assert [(r.code, r.message_id) for r in emulator.rest.edits.refusals] == [(RATE_LIMITED, message.id)]


async def test_discordpy_waits_out_the_channels_bucket_even_when_another_process_emptied_it(
    emulator: DiscordEmulator, client: discord.Client
) -> None:
    """Two clients with one token (two processes of one bot) edit in one channel: the second does not know the first
    emptied the bucket, so it gets 429s; discord.py waits them out and every edit lands."""
    emulator.rest.edits.limits = EditLimits(edits=2, per=0.5)
    other = discord.Client(intents=discord.Intents.none())
    await other.login(emulator.token)
    try:
        channel = client.get_partial_messageable(emulator.channel.id)
        mine, theirs = await channel.send("mine"), await channel.send("theirs")
        their_copy = other.get_partial_messageable(emulator.channel.id).get_partial_message(theirs.id)

        async def edits(message: discord.Message | discord.PartialMessage, name: str) -> None:
            for n in range(4):
                await message.edit(content=f"{name} {n}")

        await asyncio.gather(edits(mine, "mine"), edits(their_copy, "theirs"))
    finally:
        await other.close()
    assert emulator.state.messages[mine.id].content == "mine 3"
    assert emulator.state.messages[theirs.id].content == "theirs 3"
    assert any(r.code == RATE_LIMITED for r in emulator.rest.edits.refusals), "the burst met the limit"


async def test_an_old_message_takes_a_few_edits_then_30046(emulator: DiscordEmulator, client: discord.Client) -> None:
    clock = Clock(START)
    emulator.state.clock = clock
    emulator.rest.edits.limits = EditLimits(edits=100, per=1.0, old_edits=2)
    channel = client.get_partial_messageable(emulator.channel.id)
    sent = await channel.send("board")
    for n in range(5):  # a young message is never counted
        await sent.edit(content=f"young {n}")

    clock.advance(HOUR + 1)
    await sent.edit(content="old 1")
    await sent.edit(content="old 2")
    with pytest.raises(discord.RateLimited) as limited:  # "try again later": in up to an hour, beyond the client's 30 s
        await sent.edit(content="old 3")
    assert limited.value.retry_after == pytest.approx(HOUR, abs=1)
    assert emulator.state.messages[sent.id].content == "old 2"
    refusal = emulator.rest.edits.refusals[-1]
    assert (refusal.code, refusal.message_id, refusal.channel_id) == (OLD_MESSAGE_EDITS, sent.id, emulator.channel.id)

    young = await channel.send("a new board")
    await young.edit(content="a new board, edited")  # only old messages are limited
    clock.advance(HOUR)
    await sent.edit(content="old, an hour later")  # the window has passed
    assert emulator.state.messages[sent.id].content == "old, an hour later"


async def test_discordpy_surfaces_30046_as_an_http_exception_when_it_waited_in_vain(
    emulator: DiscordEmulator, client: discord.Client
) -> None:
    """With a short window discord.py waits ``retry_after`` and tries again, five times; the clock stands still, so
    every try is refused, and it raises ``HTTPException`` with Discord's status, code and message."""
    emulator.state.clock = Clock(START)
    emulator.rest.edits.limits = EditLimits(edits=100, per=1.0, old_after=0.0, old_edits=1, old_window=0.05)
    sent = await client.get_partial_messageable(emulator.channel.id).send("board")
    await sent.edit(content="edited once")
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(content="edited twice")
    assert (refused.value.status, refused.value.code) == (429, OLD_MESSAGE_EDITS)
    assert "Maximum number of edits to messages older than 1 hour reached" in refused.value.text
    assert [r.code for r in emulator.rest.edits.refusals] == [OLD_MESSAGE_EDITS] * 5
