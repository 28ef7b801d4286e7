"""The store's puzzles (:class:`~bot.service.PuzzleRecords`). Every write is one guarded commit (``lua/commit.lua``).

Keys (beside those of :mod:`bot.store._redis_store`)::

    {ns}:user:{uid}:puzzle          hash   v (version), data (JSON of the PuzzleSession): the current or last puzzle
    {ns}:user:{uid}:puzzle-player   hash   r, rd, vol, games, wins, losses, draws, streak, best (the puzzle rating)
    {ns}:user:{uid}:puzzle-seen     zset   puzzle id -> when it was given (never given again while others are left)
    {ns}:user:{uid}:puzzle-own      hash   puzzle id -> JSON line of the person's own puzzle (from their reviews)
    {ns}:puzzle:{pid}:rating        hash   r, rd, vol, games, wins, losses, draws (from the puzzle's side)
    {ns}:puzzle:{pid}:votes         hash   uid -> 1 (up) or -1 (down)
    {ns}:puzzles:ratings            zset   puzzle id -> rating, of the puzzles someone tried

A session is written on its version; the end of a rated attempt also on the counts of rated attempts (``games``) of
the person's and the puzzle's ratings as read, so an attempt is applied once and a rating moved meanwhile by another
attempt is refused (``rating``) and computed again by the service. The person's keys go with their erasure.
"""

from __future__ import annotations

import logging

from bot.service import (
    ChannelId,
    CommitConflict,
    GuildId,
    PuzzleOutcome,
    PuzzlePlayer,
    PuzzleSession,
    Rating,
    Request,
    RequestId,
    UserId,
)
from bot.store._redis_base import RATING_FIELDS, Commit, RedisBase, awaitable, decoded, number

log = logging.getLogger(__name__)
SESSION_KEPT = 30 * 86400
"""Seconds a puzzle session is kept after its last change."""
OWN_KEPT = 100
"""A person's own puzzles kept at most (the newest)."""
PUZZLE_USER_KEYS = ("puzzle", "puzzle-player", "puzzle-seen", "puzzle-own")
"""The person's puzzle keys (``{ns}:user:{uid}:{name}``), deleted with their data."""


def _rating_fields(rating: Rating) -> list[str]:
    values = (rating.rating, rating.rd, rating.vol, rating.games, rating.wins, rating.losses, rating.draws)
    fields: list[str] = []
    for name, value in zip(RATING_FIELDS, values, strict=True):
        fields += [name, number(value) if isinstance(value, float) else str(value)]
    return fields


def _rating_of(values: list[object]) -> Rating | None:
    if values[0] is None:
        return None
    try:
        r, rd, vol = (float(decoded(v)) for v in values[:3])
        games, wins, losses, draws = (int(decoded(v or 0)) for v in values[3:7])
    except ValueError:
        return None
    return Rating(r, rd, vol, games, wins, losses, draws)


class RedisPuzzles(RedisBase):
    """:class:`~bot.service.PuzzleRecords` (see the module)."""

    def _u(self, user_id: str, name: str) -> str:
        return self._k("user", user_id, name)

    def _puzzle_key(self, puzzle_id: str, name: str) -> str:
        return self._k("puzzle", puzzle_id, name)

    async def load_puzzle_session(self, user_id: UserId) -> PuzzleSession | None:
        version, data = await awaitable(self._r.hmget(self._u(user_id, "puzzle"), ["v", "data"]))
        if version is None or data is None:
            return None
        try:
            return PuzzleSession.from_json(decoded(data), int(decoded(version)))
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("the puzzle of %s is unreadable and left alone: %s", user_id, exc)
            return None

    async def save_puzzle_session(
        self,
        before: PuzzleSession | None,
        after: PuzzleSession,
        *,
        outcome: PuzzleOutcome | None = None,
        request: RequestId | None = None,
    ) -> PuzzleSession:
        key = self._u(after.user_id, "puzzle")
        version = (before.version if before is not None else 0) + 1
        stored = PuzzleSession.from_json(after.to_json(), version)
        commit = Commit()
        commit.check("version", "hget", key, "v", str(before.version) if before is not None else "")
        commit.op("HSET", key, "v", str(version), "data", stored.to_json())
        commit.op("EXPIRE", key, str(SESSION_KEPT))
        if before is None or not before.active:  # a puzzle opened: given to the person now
            commit.op("ZADD", self._u(after.user_id, "puzzle-seen"), number(after.started_at), after.puzzle_id)
        if outcome is not None:
            self._outcome_ops(commit, after, outcome)
        outcome_tag = f"puzzle:{after.user_id}:{version}"
        await self._run(commit, Request(request, outcome_tag) if request is not None else None)
        if request is not None:  # sent again after a lost reply, it wrote nothing: the first write's record is the one
            current = await self.load_puzzle_session(after.user_id)
            if current is not None and current.version == version:
                return current
        return stored

    def _outcome_ops(self, commit: Commit, after: PuzzleSession, outcome: PuzzleOutcome) -> None:
        player_key = self._u(after.user_id, "puzzle-player")
        rating_key = self._puzzle_key(after.puzzle_id, "rating")
        before_games = outcome.player_before.rating.games
        commit.check("rating", "hget", player_key, "games", str(before_games) if before_games else "")
        puzzle_games = outcome.puzzle_before.games
        commit.check("rating", "hget", rating_key, "games", str(puzzle_games) if puzzle_games else "")
        player = outcome.player_after
        streaks = ["streak", str(player.streak), "best", str(player.best_streak)]
        commit.op("HSET", player_key, *_rating_fields(player.rating), *streaks)
        commit.op("HSET", rating_key, *_rating_fields(outcome.puzzle_after))
        commit.op("ZADD", self._k("puzzles", "ratings"), number(outcome.puzzle_after.rating), after.puzzle_id)

    async def load_puzzle_player(self, user_id: UserId) -> PuzzlePlayer:
        values = await awaitable(self._r.hmget(self._u(user_id, "puzzle-player"), [*RATING_FIELDS, "streak", "best"]))
        rating = _rating_of(list(values))
        if rating is None:
            return PuzzlePlayer()
        try:
            streak, best = (int(decoded(v or 0)) for v in values[7:9])
        except ValueError:
            streak = best = 0
        return PuzzlePlayer(rating, streak, best)

    async def load_puzzle_rating(self, puzzle_id: str) -> Rating | None:
        values = await awaitable(self._r.hmget(self._puzzle_key(puzzle_id, "rating"), list(RATING_FIELDS)))
        return _rating_of(list(values))

    async def puzzle_ratings(self) -> dict[str, float]:
        pairs = await awaitable(self._r.zrange(self._k("puzzles", "ratings"), 0, -1, withscores=True))
        return {decoded(member): float(score) for member, score in pairs}

    async def seen_puzzles(self, user_id: UserId) -> dict[str, float]:
        pairs = await awaitable(self._r.zrange(self._u(user_id, "puzzle-seen"), 0, -1, withscores=True))
        return {decoded(member): float(score) for member, score in pairs}

    async def vote_puzzle(self, puzzle_id: str, user_id: UserId, up: bool) -> tuple[int, int]:
        key = self._puzzle_key(puzzle_id, "votes")
        commit = Commit()
        commit.op("HSET", key, user_id, "1" if up else "-1")
        await self._run(commit)
        votes = [decoded(v) for v in await awaitable(self._r.hvals(key))]
        return votes.count("1"), votes.count("-1")

    async def add_own_puzzles(self, user_id: UserId, puzzles: dict[str, str]) -> int:
        key = self._u(user_id, "puzzle-own")
        known = {decoded(k) for k in await awaitable(self._r.hkeys(key))}
        new = {pid: line for pid, line in puzzles.items() if pid not in known}
        room = max(0, OWN_KEPT - len(known))
        new = dict(list(new.items())[:room])
        if not new:
            return 0
        commit = Commit()
        commit.op("HSET", key, *(part for pair in new.items() for part in pair))
        await self._run(commit)
        return len(new)

    async def erase_puzzle_data(self, user_id: UserId) -> None:
        commit = Commit()
        for puzzle_id in await self.seen_puzzles(user_id):
            commit.op("HDEL", self._puzzle_key(puzzle_id, "votes"), user_id)
        for guild in await awaitable(self._r.smembers(self._k("daily", "guilds"))):
            guild_id = decoded(guild)
            commit.op("HDEL", self._k("guild", guild_id, "daily-streaks"), user_id)
            for day in await awaitable(self._r.hkeys(self._k("guild", guild_id, "daily-history"))):
                commit.op("HDEL", self._k("guild", guild_id, "daily", decoded(day), "results"), user_id)
        for name in PUZZLE_USER_KEYS:
            commit.op("DEL", self._u(user_id, name))
        await self._run(commit)

    async def own_puzzles(self, user_id: UserId) -> dict[str, str]:
        found = await awaitable(self._r.hgetall(self._u(user_id, "puzzle-own")))
        return {decoded(k): decoded(v) for k, v in found.items()}


DAILY_KEPT = 40 * 86400
"""Seconds a server's day of the daily puzzle (its puzzle, its results) is kept."""


class RedisDaily(RedisBase):
    """:class:`~bot.service.DailyRecords`. Keys::

    {ns}:daily:guilds                     set    the servers with a daily puzzle
    {ns}:guild:{gid}:daily                hash   channel, hour
    {ns}:guild:{gid}:daily:{day}          string the day's puzzle id (claimed once; 40 days)
    {ns}:guild:{gid}:daily:{day}:pending  string while the day's post is claimed but not known to be posted (40 days)
    {ns}:guild:{gid}:daily:{day}:posting  string the lease of the process posting it (expires by itself)
    {ns}:guild:{gid}:daily:{day}:results  hash   uid -> 1 solved, 0 not (the first answer only; 40 days)
    {ns}:guild:{gid}:daily-history        hash   day -> puzzle id
    {ns}:guild:{gid}:daily-streaks        hash   uid -> "streak:last day:solved count"
    """

    def _daily(self, guild_id: str, *parts: str) -> str:
        return self._k("guild", guild_id, *parts)

    async def set_daily(self, guild_id: GuildId, channel_id: ChannelId, hour: int) -> None:
        commit = Commit()
        commit.op("HSET", self._daily(guild_id, "daily"), "channel", channel_id, "hour", str(hour))
        commit.op("SADD", self._k("daily", "guilds"), guild_id)
        await self._run(commit)

    async def drop_daily(self, guild_id: GuildId) -> None:
        commit = Commit()
        commit.op("DEL", self._daily(guild_id, "daily"))
        commit.op("SREM", self._k("daily", "guilds"), guild_id)
        await self._run(commit)

    async def daily_servers(self) -> dict[GuildId, tuple[ChannelId, int]]:
        guilds = sorted(decoded(g) for g in await awaitable(self._r.smembers(self._k("daily", "guilds"))))
        found: dict[GuildId, tuple[ChannelId, int]] = {}
        for guild in guilds:
            channel, hour = await awaitable(self._r.hmget(self._daily(guild, "daily"), ["channel", "hour"]))
            if channel is None or hour is None or not decoded(hour).isdecimal():
                continue
            found[GuildId(guild)] = (ChannelId(decoded(channel)), int(decoded(hour)))
        return found

    async def claim_daily(self, guild_id: GuildId, day: str, puzzle_id: str, lease: float) -> str | None:
        puzzle_key = self._daily(guild_id, "daily", day)
        pending_key = self._daily(guild_id, "daily", day, "pending")
        lease_key = self._daily(guild_id, "daily", day, "posting")
        for _attempt in range(2):  # the day's state may change between the read and the commit: look again once
            chosen, pending = await awaitable(self._r.mget([puzzle_key, pending_key]))
            commit = Commit()
            commit.check("posting", "exists", lease_key, "", "0")
            commit.op("SET", lease_key, "1", "PX", str(max(1, round(lease * 1000))))
            if chosen is None:  # the day's first claim: its puzzle, pending until posted
                commit.check("claimed", "exists", puzzle_key, "", "0")
                commit.op("SET", puzzle_key, puzzle_id, "EX", str(DAILY_KEPT))
                commit.op("SET", pending_key, "1", "EX", str(DAILY_KEPT))
                commit.op("HSET", self._daily(guild_id, "daily-history"), day, puzzle_id)
            elif pending is not None:  # claimed, never posted (its process stopped): post the same puzzle again
                commit.check("posted", "exists", pending_key, "", "1")
            else:
                return None  # posted
            try:
                await self._run(commit)
            except CommitConflict as exc:
                if exc.tag == "posting":
                    return None  # another process is posting it
                continue
            return puzzle_id if chosen is None else decoded(chosen)
        return None

    async def daily_pending(self, guild_id: GuildId, day: str) -> bool:
        return bool(await awaitable(self._r.exists(self._daily(guild_id, "daily", day, "pending"))))

    async def daily_posted(self, guild_id: GuildId, day: str) -> None:
        keys = (self._daily(guild_id, "daily", day, part) for part in ("pending", "posting"))
        await awaitable(self._r.delete(*keys))

    async def daily_puzzle(self, guild_id: GuildId, day: str) -> str | None:
        value = await awaitable(self._r.get(self._daily(guild_id, "daily", day)))
        return None if value is None else decoded(value)

    async def daily_history(self, guild_id: GuildId) -> dict[str, str]:
        found = await awaitable(self._r.hgetall(self._daily(guild_id, "daily-history")))
        return {decoded(k): decoded(v) for k, v in found.items()}

    async def record_daily(self, guild_id: GuildId, day: str, user_id: UserId, solved: bool) -> bool:
        key = self._daily(guild_id, "daily", day, "results")
        added = await awaitable(self._r.hsetnx(key, user_id, "1" if solved else "0"))
        await awaitable(self._r.expire(key, DAILY_KEPT))
        return bool(added)

    async def daily_results(self, guild_id: GuildId, day: str) -> dict[UserId, bool]:
        found = await awaitable(self._r.hgetall(self._daily(guild_id, "daily", day, "results")))
        return {UserId(decoded(k)): decoded(v) == "1" for k, v in found.items()}

    async def daily_streaks(self, guild_id: GuildId) -> dict[UserId, tuple[int, str, int]]:
        found = await awaitable(self._r.hgetall(self._daily(guild_id, "daily-streaks")))
        streaks: dict[UserId, tuple[int, str, int]] = {}
        for key, value in found.items():
            parts = decoded(value).split(":")
            if len(parts) == 3 and parts[0].isdecimal() and parts[2].isdecimal():
                streaks[UserId(decoded(key))] = (int(parts[0]), parts[1], int(parts[2]))
        return streaks

    async def set_daily_streak(self, guild_id: GuildId, user_id: UserId, streak: int, last: str, solved: int) -> None:
        await awaitable(self._r.hset(self._daily(guild_id, "daily-streaks"), user_id, f"{streak}:{last}:{solved}"))
