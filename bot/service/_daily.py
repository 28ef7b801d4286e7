"""The daily puzzle of a server: one puzzle a day posted in a channel at a set hour (UTC), answered privately by
anyone there, with the server's table of solvers and streaks, and yesterday's solution in today's post.

A server manager sets the channel and the hour (:meth:`DailyPuzzles.configure`). The sweep (:meth:`due`, called by
``GameService.sweep`` in the one process that holds the sweeper's lease) posts each server's puzzle once its hour has
come: the day's post is claimed with one guarded write on a key per server and day, with a lease of
:data:`POST_LEASE`, so two processes (or a sweep run twice) post it once. Its :class:`DailyPuzzlePosted` event goes to
the event sink, which posts it and then marks it posted (:meth:`DailyPuzzles.posted`). A process that stops between the
claim and the post leaves the day pending: once the lease is over, the next sweep posts it (with the same nonce, so
Discord returns the first message rather than a second if the post had been made after all). The day's puzzle is
drawn from the shipped set by the server and the day (the same for every process), among the puzzles the server did not
have in the last :data:`NOT_AGAIN_DAYS` days.

A person answers with the post's button: their puzzle session (``source="daily"``) is an ordinary one, rated as any
puzzle of the set; when it ends, their first result of the day is recorded for the server (solved or not, once), and
their server streak counts the days in a row they solved it (a hint counts as not solved).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ai.puzzles import Puzzle, load_puzzles, puzzle
from bot.i18n import _
from bot.service._errors import InvalidRequestError
from bot.service._events import Event
from bot.service._ids import ChannelId, GuildId, UserId
from bot.service._puzzle_ports import DailyRecords

log = logging.getLogger(__name__)
NOT_AGAIN_DAYS = 60
POST_LEASE = 120.0
"""Seconds a process has to post a day's puzzle it claimed; past them, a sweep (this process's or another's) posts it
(the same message: the post's nonce makes Discord return the first one if it was made after all)."""
TABLE_SIZE = 10
NO_DAILY = _("this daily puzzle is no longer open")


def day_of(when: float) -> str:
    """The UTC day of ``when`` as ``yyyymmdd``."""
    return datetime.fromtimestamp(when, UTC).strftime("%Y%m%d")


def day_before(day: str) -> str:
    return (datetime.strptime(day, "%Y%m%d").replace(tzinfo=UTC) - timedelta(days=1)).strftime("%Y%m%d")


@dataclass(frozen=True)
class DailyStanding:
    """One person in a server's table: their current streak of daily puzzles solved, and how many they solved."""

    user_id: UserId
    streak: int
    solved: int


@dataclass(frozen=True)
class DailyDay:
    """A past day's daily puzzle: what it was and who solved it."""

    day: str
    puzzle_id: str
    solution: tuple[str, ...]
    solvers: tuple[UserId, ...]
    tried: int


@dataclass(frozen=True, kw_only=True)
class DailyPuzzlePosted(Event):
    """A server's puzzle of the day is due in its channel (posted once per server and day)."""

    guild_id: GuildId
    channel_id: ChannelId
    day: str
    puzzle: Puzzle
    yesterday: DailyDay | None
    table: tuple[DailyStanding, ...]


class DailyPuzzles:
    """Daily puzzles of servers (see the module)."""

    def __init__(self, store: DailyRecords, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock

    async def configure(self, guild_id: GuildId, channel_id: ChannelId, hour: int) -> None:
        """Post the server's daily puzzle in ``channel_id`` at ``hour`` (0-23, UTC) from now on."""
        if not 0 <= hour <= 23:
            raise InvalidRequestError(_("the hour is a whole number from 0 to 23"))
        await self._store.set_daily(guild_id, channel_id, hour)

    async def stop(self, guild_id: GuildId) -> None:
        await self._store.drop_daily(guild_id)

    async def puzzle_of(self, guild_id: GuildId, day: str) -> Puzzle:
        """The server's puzzle of ``day``, while it is the day's (refused for another day or none)."""
        puzzle_id = await self._store.daily_puzzle(guild_id, day)
        if puzzle_id is None or day != day_of(self._clock()):
            raise InvalidRequestError(NO_DAILY)
        return _shipped(puzzle_id)

    async def due(self) -> list[DailyPuzzlePosted]:
        """The daily posts whose hour has come and that no process has posted yet (each claimed now, once)."""
        now = self._clock()
        today, hour = day_of(now), datetime.fromtimestamp(now, UTC).hour
        posts = []
        for guild_id, (channel_id, at) in sorted((await self._store.daily_servers()).items()):
            if hour < at:
                continue
            claimed_before = await self._store.daily_puzzle(guild_id, today)
            if claimed_before is not None and not await self._store.daily_pending(guild_id, today):
                continue  # posted
            proposed = claimed_before or self._choose(guild_id, today, await self._store.daily_history(guild_id)).id
            claimed = await self._store.claim_daily(guild_id, today, proposed, POST_LEASE)
            if claimed is None:
                continue  # posted, or another process is posting it
            chosen = puzzle(claimed)
            if chosen is None:  # a pending day's puzzle left the set (a new version shipped): the day is not posted
                log.warning("the daily puzzle %s of server %s is no longer in the set: not posted", claimed, guild_id)
                await self._store.daily_posted(guild_id, today)
                continue
            posts.append(
                DailyPuzzlePosted(
                    text=f"daily puzzle {chosen.id}",
                    guild_id=guild_id,
                    channel_id=channel_id,
                    day=today,
                    puzzle=chosen,
                    yesterday=await self.day(guild_id, day_before(today)),
                    table=await self.table(guild_id),
                )
            )
        return posts

    async def posted(self, guild_id: GuildId, day: str) -> None:
        """The day's post is made, or cannot be (the channel is gone or closed to the bot): not posted again."""
        await self._store.daily_posted(guild_id, day)

    async def day(self, guild_id: GuildId, day: str) -> DailyDay | None:
        puzzle_id = await self._store.daily_puzzle(guild_id, day)
        if puzzle_id is None:
            return None
        found = puzzle(puzzle_id)
        if found is None:  # no longer in the set: the day's line is not shown
            return None
        results = await self._store.daily_results(guild_id, day)
        solvers = tuple(sorted(UserId(u) for u, solved in results.items() if solved))
        return DailyDay(day, puzzle_id, found.solution, solvers, len(results))

    async def table(self, guild_id: GuildId) -> tuple[DailyStanding, ...]:
        """The server's solvers, by current streak, then by puzzles solved (a streak not extended yesterday or today is
        over)."""
        today = day_of(self._clock())
        alive = {today, day_before(today)}
        rows = [
            DailyStanding(user_id, streak if last in alive else 0, solved)
            for user_id, (streak, last, solved) in (await self._store.daily_streaks(guild_id)).items()
            if solved
        ]
        rows.sort(key=lambda r: (-r.streak, -r.solved, r.user_id))
        return tuple(rows[:TABLE_SIZE])

    async def record(self, guild_id: GuildId, day: str, user_id: UserId, solved: bool) -> None:
        """A person's result of the day's puzzle: their first only, and their streak with it."""
        if not await self._store.record_daily(guild_id, day, user_id, solved):
            return
        streak, last, count = (await self._store.daily_streaks(guild_id)).get(user_id, (0, "", 0))
        if solved:
            streak = streak + 1 if last == day_before(day) else 1
            await self._store.set_daily_streak(guild_id, user_id, streak, day, count + 1)
        else:
            await self._store.set_daily_streak(guild_id, user_id, 0, day, count)

    def _choose(self, guild_id: GuildId, day: str, history: dict[str, str]) -> Puzzle:
        recent = {pid for d, pid in history.items() if d >= _days_before(day, NOT_AGAIN_DAYS)}
        puzzles = [p for p in load_puzzles() if p.id not in recent] or list(load_puzzles())
        digest = hashlib.sha256(f"{guild_id}:{day}".encode()).digest()
        return puzzles[int.from_bytes(digest[:8], "big") % len(puzzles)]


def _days_before(day: str, days: int) -> str:
    return (datetime.strptime(day, "%Y%m%d").replace(tzinfo=UTC) - timedelta(days=days)).strftime("%Y%m%d")


def _shipped(puzzle_id: str) -> Puzzle:
    found = puzzle(puzzle_id)
    if found is None:
        raise InvalidRequestError(NO_DAILY)
    return found
