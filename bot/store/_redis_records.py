"""The store's records beside the games: ratings, ladders and records against the AI, the players' names, the games'
reviews, retention and a person's erasure, the rate limits' token buckets, and the front ends' marks."""

from __future__ import annotations

from collections.abc import Sequence

from bot.service import Bucket, GameId, GameState, GuildId, Rating, UserId, is_id
from bot.store._lease import RedisLease
from bot.store._redis_base import RATING_FIELDS, Commit, RedisBase, awaitable, decoded, number


class RedisRecords(RedisBase):
    """:class:`~bot.service.RatingRecords`, :class:`~bot.service.ReviewRecords`,
    :class:`~bot.service.ErasureRecords`, :class:`~bot.service.RateBuckets` and :class:`~bot.service.Marks`."""

    async def save_review(self, game_id: str, review: str) -> None:
        """Keep a finished game's review (JSON); ``finished`` if the game is not finished (or gone), ``exists`` if it
        has one already."""
        commit = Commit()
        key = self._game_key(game_id)
        commit.check("finished", "exists", key + ":result", "", "1")
        commit.check("exists", "exists", key + ":review", "", "0")
        commit.op("SET", key + ":review", review)
        await self._run(commit)

    async def load_review(self, game_id: str) -> str | None:
        if not is_id(game_id):
            return None
        value = await self._r.get(self._game_key(game_id) + ":review")
        return decoded(value) if value is not None else None

    async def finished_before(self, ended_before: float, limit: int) -> list[GameId]:
        ids = await self._r.zrangebyscore(self._k("finished"), "-inf", ended_before, start=0, num=limit)
        return [GameId(decoded(i)) for i in ids]

    async def delete_finished_game(self, game: GameState) -> None:
        commit = Commit()
        key = self._game_key(game.id)
        commit.check("version", "hget", key, "v", str(game.version))
        commit.op("DEL", key)
        commit.op("DEL", key + ":moves")
        commit.op("DEL", key + ":result")
        commit.op("DEL", key + ":review")
        commit.op("ZREM", self._k("finished"), game.id)
        commit.op("ZREM", self._k("guild", game.guild_id, "history"), game.id)
        for player in game.humans():
            commit.op("ZREM", self._k("user", player.id, "history"), game.id)
        await self._run(commit)

    async def rewrite_finished_game(self, before: GameState, after: GameState) -> None:
        commit = Commit()
        commit.check("finished", "exists", self._game_key(after.id) + ":result", "", "1")
        self._write_state(commit, before, after)
        await self._run(commit)

    async def erase_user(
        self,
        user_id: str,
        scopes: Sequence[str],
        variants: Sequence[str],
        pair_days: Sequence[tuple[str, str]],
        *,
        finished: int,
    ) -> None:
        commit = Commit()
        commit.check("games", "scard", self._k("user", user_id, "games"), "", "0")
        commit.check("challenges", "scard", self._k("user", user_id, "challenges"), "", "0")
        commit.check("history", "zcount<", self._k("user", user_id, "history"), "-inf", str(finished + 1))
        for challenge_id in await awaitable(self._r.smembers(self._k("user", user_id, "closed"))):
            commit.op("DEL", self._k("challenge", decoded(challenge_id)))
        commit.op("HDEL", self._k("names"), user_id)
        for index in ("games", "challenges", "closed", "history", "guilds"):
            commit.op("DEL", self._k("user", user_id, index))
        for scope in scopes:
            for variant in variants:
                commit.op("DEL", self._rating_key(scope, variant, user_id))
                commit.op("ZREM", self._k("lb", scope, variant), user_id)
                commit.op("DEL", self._k("vsbot", scope, variant, user_id))
        for other, day in pair_days:
            commit.op("DEL", self._pair_day_key(user_id, other, day))
        await self._run(commit)

    async def read_ratings(self, keys: Sequence[tuple[str, str, str]]) -> list[Rating]:
        async with self._r.pipeline(transaction=True) as pipe:
            for scope, variant, user_id in keys:
                pipe.hmget(self._rating_key(scope, variant, user_id), list(RATING_FIELDS))
            replies = await pipe.execute()
        ratings = []
        for values in replies:
            if values[0] is None:
                ratings.append(Rating())
                continue
            r, rd, vol = (float(v) for v in values[:3])
            games, wins, losses, draws = (int(v) for v in values[3:])
            ratings.append(Rating(r, rd, vol, games, wins, losses, draws))
        return ratings

    async def pair_day_count(self, a: str, b: str, day: str) -> int:
        value = await self._r.get(self._pair_day_key(a, b, day))
        return int(value) if value is not None else 0

    async def leaderboard(self, scope: str, variant: str, limit: int) -> list[tuple[UserId, float]]:
        # redis-py leaves its replies untyped: what ZREVRANGE WITHSCORES answers, typed and converted here
        rows: list[tuple[bytes | str, float]] = await self._r.zrevrange(
            self._k("lb", scope, variant), 0, limit - 1, withscores=True
        )
        return [(UserId(decoded(uid)), float(score)) for uid, score in rows]

    async def rank(self, scope: str, variant: str, user_id: str) -> int | None:
        place: int | None = await self._r.zrevrank(self._k("lb", scope, variant), user_id)
        return None if place is None else int(place) + 1

    async def bot_record(self, scope: str, variant: str, user_id: str) -> dict[str, tuple[int, int, int]]:
        raw = await awaitable(self._r.hgetall(self._k("vsbot", scope, variant, user_id)))
        counts: dict[str, dict[str, int]] = {}
        for field, value in raw.items():
            level, _, outcome = decoded(field).rpartition(":")
            counts.setdefault(level, {})[outcome] = int(value)
        return {lv: (c.get("wins", 0), c.get("losses", 0), c.get("draws", 0)) for lv, c in sorted(counts.items())}

    async def set_names(self, names: dict[str, str]) -> None:
        if names:
            await awaitable(self._r.hset(self._k("names"), mapping=names))

    async def names(self, user_ids: Sequence[str]) -> dict[str, str]:
        if not user_ids:
            return {}
        values = await awaitable(self._r.hmget(self._k("names"), list(user_ids)))
        return {uid: decoded(v) for uid, v in zip(user_ids, values, strict=True) if v is not None}

    async def set_guild_names(self, names: dict[GuildId, str]) -> None:
        if names:
            await awaitable(self._r.hset(self._k("guildnames"), mapping=dict(names)))

    async def guild_name(self, guild_id: GuildId) -> str | None:
        value = await awaitable(self._r.hget(self._k("guildnames"), guild_id))
        return decoded(value) if value is not None else None

    async def take_token(self, buckets: Sequence[Bucket], now: float) -> tuple[int, float] | None:
        keys = [f"{self._rate_ns}:{bucket.key}" for bucket in buckets]
        args = [number(now)] + [x for b in buckets for x in (number(b.rate), str(b.burst))]
        reply = await self._bucket_script(keys=keys, args=args)
        if int(reply[0]) == 0:
            return None
        return int(reply[0]) - 1, float(decoded(reply[1]))

    async def swap_mark(self, name: str, value: str) -> str | None:
        old = await awaitable(self._r.set(self._k("mark", name), value, get=True))
        return None if old is None else decoded(old)

    async def drop_mark(self, name: str) -> None:
        await awaitable(self._r.delete(self._k("mark", name)))

    # -- AI turns' leases ---------------------------------------------------------------------------------------

    def _turn_lease(self, game_id: str, version: int, holder: str, ttl: float = 1.0) -> RedisLease:
        """The lease of the AI's turn in a game at ``version`` (one process at a time works on it)."""
        return RedisLease(self._r, f"ai-turn:{game_id}:{version}", ttl=ttl, holder=holder, namespace=self._ns)

    async def claim_turn(self, game_id: GameId, version: int, holder: str, ttl: float) -> bool:
        return await self._turn_lease(game_id, version, holder, ttl).hold()

    async def release_turn(self, game_id: GameId, version: int, holder: str) -> None:
        await self._turn_lease(game_id, version, holder).release()

    # -- the posts still to edit after an erasure ---------------------------------------------------------------

    async def save_tidying(self, user_id: UserId, record: str) -> None:
        await awaitable(self._r.hset(self._k("tidying"), user_id, record))

    async def tidying_records(self) -> dict[UserId, str]:
        rows = await awaitable(self._r.hgetall(self._k("tidying")))
        return {UserId(decoded(user)): decoded(record) for user, record in rows.items()}

    async def drop_tidying(self, user_id: UserId) -> None:
        await awaitable(self._r.hdel(self._k("tidying"), user_id))

    def _tidying_lease(self, user_id: str, holder: str, ttl: float = 1.0) -> RedisLease:
        return RedisLease(self._r, f"tidying:{user_id}", ttl=ttl, holder=holder, namespace=self._ns)

    async def claim_tidying(self, user_id: UserId, holder: str, ttl: float) -> bool:
        return await self._tidying_lease(user_id, holder, ttl).hold()

    async def release_tidying(self, user_id: UserId, holder: str) -> None:
        await self._tidying_lease(user_id, holder).release()

    # -- seasons ------------------------------------------------------------------------------------------------

    async def current_season(self, guild_id: GuildId) -> int:
        value = await awaitable(self._r.hget(self._k("guild", guild_id, "seasons"), "current"))
        return int(decoded(value)) if value is not None else 0

    async def start_season(self, guild_id: GuildId, record: str) -> int:
        key = self._k("guild", guild_id, "seasons")
        number = int(await awaitable(self._r.hincrby(key, "current", 1)))
        await awaitable(self._r.hset(key, str(number), record))
        return number

    async def seasons(self, guild_id: GuildId) -> dict[int, str]:
        rows = await awaitable(self._r.hgetall(self._k("guild", guild_id, "seasons")))
        found = {decoded(k): decoded(v) for k, v in rows.items()}
        return {int(k): v for k, v in found.items() if k.isdigit()}
