"""The daily puzzle of a server over three days of a test clock, with two solvers: set up by a manager, posted by the
sweep at its hour once (a second process sweeping finds it posted), solved privately through its button, yesterday's
line and solvers in the next day's post, and the server's table of streaks; and a post whose process stopped between
claiming the day and posting it (or between posting it and marking it posted) made once all the same."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from ai.puzzles import Puzzle, puzzle
from bot.emulator import Channel, Message, User
from bot.service import DailyPuzzlePosted, GameService, GuildId, UserId, day_of
from bot.service import _daily as daily_module
from bot.store import RedisGameStore
from tests.bot.games.conftest import Harness, component, description
from tests.bot.games.test_puzzles_discord import fields, play_move
from tests.bot.service.conftest import EventLog
from tests.bot.service.test_puzzles import wrong_first_move
from tests.support import Clock, eventually

START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC).timestamp()
"""A Monday, 08:00 UTC: an hour before the server's daily puzzle."""


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


def posts(harness: Harness, channel: Channel) -> list[Message]:
    return [m for m in harness.emulator.messages(channel) if component(m, "km:zd:") is not None]


async def answer(harness: Harness, user: User, post: Message, solve: bool) -> Puzzle:
    """``user`` opens the day's puzzle with the post's button and solves it, or plays a wrong first move."""
    button = component(post, "km:zd:")
    assert button is not None
    board = (await harness.emulator.click(user, post, button["custom_id"])).message
    assert board is not None and board.ephemeral, "the board is the solver's alone"
    assert harness.service is not None
    session = await harness.service.puzzles.current(UserId(str(user.id)))
    assert session is not None and session.daily is not None
    found = puzzle(session.puzzle_id)
    assert found is not None
    if solve:
        for move in found.solver_moves:
            await play_move(harness, user, board, move)
        assert "Solved!" in description(board)
        following = component(board, "km:zb:next:")  # a daily puzzle's Next is one of the set
        assert following is not None
        await harness.emulator.click(user, board, following["custom_id"])
        nxt = await harness.service.puzzles.current(UserId(str(user.id)))
        assert nxt is not None and nxt.source == "set" and nxt.active
        await harness.emulator.click(user, board, component(board, "km:zb:giveup:")["custom_id"])  # type: ignore[index]
    else:
        await play_move(harness, user, board, wrong_first_move(found))
        assert "is not the move" in description(board)
    return found


async def test_three_days_of_the_daily_puzzle_with_two_solvers(harness: Harness, clock: Clock) -> None:
    emulator = harness.emulator
    boss, ann, ben = harness.user("carol"), harness.user("alice"), harness.user("bob")
    room = emulator.channel  # #checkers
    refused = (await harness.command(ann, "daily", {"channel": room})).message
    assert refused.ephemeral and "Only a member who can manage the server" in refused.content
    emulator.guild.manager_ids.append(boss.id)
    done = (await harness.command(boss, "daily", {"channel": room, "hour": 9})).message
    assert done.ephemeral and "every day at 9:00 UTC" in done.content

    other_sink = EventLog()
    other = GameService(RedisGameStore(harness.redis), harness.pool, harness.settings, clock=clock, sink=other_sink)
    guild = GuildId(str(emulator.guild.id))
    assert harness.service is not None
    seen: list[Puzzle] = []
    try:
        for day in range(3):
            await harness.service.sweep()
            assert len(posts(harness, room)) == day, "nothing before the hour"
            clock.advance(3600)  # 09:00
            await harness.service.sweep()
            await other.sweep()  # another process: the day is posted already
            await harness.service.sweep()
            await eventually(lambda d=day: len(posts(harness, room)) == d + 1, what="the day's post")
            assert len(posts(harness, room)) == day + 1 and not other_sink.events, "posted once"
            post = posts(harness, room)[-1]
            assert post.embeds[0]["title"].startswith("Puzzle of the day · 2026-03-0")
            if day == 0:
                assert "Yesterday" not in fields(post)
            else:
                yesterday = fields(post)["Yesterday"]
                assert f"Puzzle {seen[-1].id}: {' '.join(seen[-1].solution)}" in yesterday
                solved_by = f"<@{ann.id}>, <@{ben.id}> (2 of 2)" if day == 1 else f"<@{ann.id}> (1 of 2)"
                assert f"Solved by {solved_by}" in yesterday, yesterday
            if day == 2:
                table = fields(post)["This server's solvers"]
                assert table.splitlines() == [
                    f"1. <@{ann.id}>: streak 2 · solved 2",
                    f"2. <@{ben.id}>: streak 0 · solved 1",
                ], table
            today = await answer(harness, ann, post, solve=True)
            await answer(harness, ben, post, solve=day != 1)  # Ben fails the second day's
            assert today.id not in {p.id for p in seen}, "a new puzzle each day"
            seen.append(today)
            clock.advance(23 * 3600)  # the next day, 08:00
        table = await harness.service.daily.table(guild)
        assert [(row.user_id, row.streak, row.solved) for row in table] == [
            (UserId(str(ann.id)), 3, 3),
            (UserId(str(ben.id)), 1, 2),
        ]
        stale = posts(harness, room)[0]  # the first day's post, two days on
        refused_click = await emulator.click(ann, stale, component(stale, "km:zd:")["custom_id"])  # type: ignore[index]
        assert refused_click.message is not None and "no longer open" in refused_click.message.content
    finally:
        await other.close()


async def test_a_post_whose_process_stopped_is_made_once_by_a_later_sweep(
    harness: Harness, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    lease = 0.3
    monkeypatch.setattr(daily_module, "POST_LEASE", lease)
    emulator, room = harness.emulator, harness.emulator.channel
    boss = harness.user("carol")
    emulator.guild.manager_ids.append(boss.id)
    await harness.command(boss, "daily", {"channel": room, "hour": 9})
    clock.advance(3600)  # 09:00
    guild = GuildId(str(emulator.guild.id))
    assert harness.service is not None
    gone_sink = EventLog()  # a process that claims the day and stops before posting: its events go nowhere
    gone = GameService(RedisGameStore(harness.redis), harness.pool, harness.settings, clock=clock, sink=gone_sink)
    try:
        await gone.sweep()
    finally:
        await gone.close()
    claimed = [e for e in gone_sink.events if isinstance(e, DailyPuzzlePosted)]
    assert len(claimed) == 1
    await harness.service.sweep()
    assert posts(harness, room) == [], "the claim's lease still holds"

    marks: list[str] = []

    async def stops_before_marking(guild_id: GuildId, day: str) -> None:
        marks.append(day)  # the post is made, and the process stops before marking it posted

    with monkeypatch.context() as patch:
        patch.setattr(harness.service.daily, "posted", stops_before_marking)
        await asyncio.sleep(lease * 1.5)
        await harness.service.sweep()  # the lease is over: this process posts the day's puzzle, the same one
        await eventually(lambda: len(posts(harness, room)) == 1 and marks, what="the day's post")
    today = day_of(clock())
    assert await harness.service.daily.puzzle_of(guild, today) == claimed[0].puzzle, "the claimed day's puzzle"
    store = harness.service._store
    assert await store.daily_pending(guild, today)

    await asyncio.sleep(lease * 1.5)
    await harness.service.sweep()  # pending still: posted again with the same nonce, and Discord returns the first

    async def marked() -> bool:
        return not await store.daily_pending(guild, today)

    await eventually(marked, what="the day marked posted")
    await harness.service.sweep()
    await asyncio.sleep(0.1)
    assert len(posts(harness, room)) == 1, "one post for the day"
