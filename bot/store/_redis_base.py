"""What every part of the Redis store shares: the client and its scripts, the key names, and the guarded commit
(``lua/commit.lua``): a list of checks and writes run as one EVALSHA, all or nothing. The key layout is documented in
:mod:`bot.store._redis_store`."""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Sequence
from importlib import resources
from typing import TypeVar, cast

import redis.asyncio as aioredis

from bot.service import (
    NO_QUOTAS,
    Challenge,
    CommitConflict,
    GameKind,
    GameState,
    MessageRef,
    Quotas,
    Request,
    RequestId,
    is_id,
)

NAMESPACE = "kingme:v1"
CHALLENGE_GRACE = 86400
"""Seconds a pending challenge's record outlives its expiry in Redis, so the sweeper can still announce the expiry
after an outage of up to a day; after that Redis drops it by itself."""
CLOSED_CHALLENGE_KEPT = 7 * 86400
"""Seconds a closed challenge's record is kept (its message may still be clicked)."""

RATING_FIELDS = ("r", "rd", "vol", "games", "wins", "losses", "draws")
REQUEST_KEPT = 3600
"""Seconds a request's outcome is kept (an interaction's answers can come for 15 minutes)."""
VOID = "void"
"""The outcome recorded for a request found not committed: the commit, if it arrives after all, writes nothing."""


def decoded(value: object) -> str:
    """A Redis reply as text (the client may answer bytes or str)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def number(value: float) -> str:
    """A number as Redis reads it back exactly (a score, a time)."""
    return repr(float(value))


def pair_key(a: str, b: str) -> str:
    """The order-independent name of a pair of users."""
    return "|".join(sorted((a, b)))


CLOSED_ROOM_TTL = 30 * 86400
"""Seconds a closed room stays closed to new games (Discord keeps an archived, locked thread read-only anyway)."""
T = TypeVar("T")


def awaitable(value: Awaitable[T] | T) -> Awaitable[T]:
    """A command's reply, typed for the asyncio client: redis-py types its commands once for both of its clients
    (a value, or an awaitable of it), and this client's are always awaitable."""
    return cast("Awaitable[T]", value)


class Commit:
    """Builds one guarded commit: numbered keys, checks and write ops."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._index: dict[str, int] = {}
        self.checks: list[list[str | int]] = []
        """Each a list: the refusal tag, the kind of check, the key's number, a field and the value expected."""
        self.ops: list[list[str | int]] = []
        """Each a list: the Redis command, the key's number, then the command's arguments."""
        self._once: dict[str, str | int] = {}

    def once(self, key: str, outcome: str) -> None:
        """Make the commit at most once for the request recorded under ``key``, recording ``outcome`` with it."""
        self._once = {"k": self.key(key), "r": outcome, "t": REQUEST_KEPT}

    def key(self, name: str) -> int:
        if name not in self._index:
            self.keys.append(name)
            self._index[name] = len(self.keys)
        return self._index[name]

    def check(self, tag: str, kind: str, key: str, field: str, expected: str) -> None:
        self.checks.append([tag, kind, self.key(key), field, expected])

    def op(self, command: str, key: str, *args: str) -> None:
        self.ops.append([command, self.key(key), *args])

    def payload(self) -> str:
        return json.dumps({"c": self.checks, "o": self.ops, **self._once}, separators=(",", ":"))


class RedisBase:
    """The client, the scripts, the keys and the commits that the store's parts build on."""

    def __init__(self, client: aioredis.Redis, namespace: str = NAMESPACE) -> None:
        self._r = client
        self._ns = namespace
        self._rate_ns = namespace.rsplit(":", 1)[0] + ":rate"
        scripts = resources.files("bot.store").joinpath("lua")
        self._commit_script = client.register_script(scripts.joinpath("commit.lua").read_text(encoding="utf-8"))
        self._bucket_script = client.register_script(scripts.joinpath("bucket.lua").read_text(encoding="utf-8"))

    def _k(self, *parts: str) -> str:
        return ":".join((self._ns, *parts))

    def _game_key(self, game_id: str) -> str:
        return self._k("game", game_id)

    def _channel_key(self, guild_id: str, channel_id: str) -> str:
        return self._k("guild", guild_id, "channel", channel_id, "games")

    def _closed_key(self, guild_id: str, channel_id: str) -> str:
        return self._k("guild", guild_id, "channel", channel_id, "closed")

    def _pair_key(self, game: GameState) -> str | None:
        if game.black.is_ai or game.white.is_ai or game.black.id == game.white.id:
            return None
        return self._k("pair", pair_key(game.black.id, game.white.id))

    def _pair_day_key(self, a: str, b: str, day: str) -> str:
        return self._k("pairday", pair_key(a, b), day)

    def _rating_key(self, scope: str, variant: str, user_id: str) -> str:
        return self._k("rating", scope, variant, user_id)

    def _counted(self, game: GameState, quotas: Quotas) -> list[tuple[str, str, int | None]]:
        """The bounded indexes a game is in: (refusal tag, set key, bound) for each."""
        if game.kind is GameKind.AI:
            return [("ai-games", self._k("user", p.id, "ai"), quotas.ai_games_per_user) for p in game.humans()]
        if game.kind is GameKind.EXHIBITION:
            return [("exhibitions", self._k("guild", game.guild_id, "exhibitions"), quotas.exhibitions_per_guild)]
        return []

    def _challenge_indexes(self, challenge: Challenge, quotas: Quotas) -> list[tuple[str, str, int | None]]:
        """The bounded indexes of a challenge's pending state: (refusal tag, zset key, bound) for each."""
        found = [("sent", self._k("user", challenge.challenger.id, "sent"), quotas.challenges_per_sender)]
        if challenge.opponent is not None:
            found.append(("received", self._k("user", challenge.opponent.id, "received"), quotas.challenges_per_target))
        return found

    def _request_key(self, request: str) -> str:
        return self._k("request", request)

    async def _run(self, commit: Commit, request: Request | None = None) -> None:
        """Run ``commit``; with ``request`` (its key and the outcome it records), at most once for that key: sent again
        after a lost reply it writes nothing and returns as applied; a key recorded with another outcome (a request
        that made another commit, or was settled as not committed) raises :class:`CommitConflict` ``request``."""
        if request is not None:
            commit.once(self._request_key(request.key), request.outcome)
        reply = await self._commit_script(keys=commit.keys, args=[commit.payload()])
        status = int(reply[0])
        if status == 2 and request is not None:
            if decoded(reply[1]) == request.outcome:
                return
            raise CommitConflict("request", decoded(reply[1]))
        if status != 1:
            raise CommitConflict(decoded(reply[1]), decoded(reply[2]))

    async def settle_request(self, key: RequestId) -> str:
        """The outcome recorded for the request ``key``, or :data:`VOID` recorded now if none is: from then on the
        request's commit, should it still reach Redis, writes nothing. Either way the answer is final."""
        commit = Commit()
        try:
            await self._run(commit, Request(key, VOID))
        except CommitConflict as exc:
            return exc.actual
        return VOID

    def _write_state(self, commit: Commit, before: GameState | None, after: GameState) -> None:
        key = self._game_key(after.id)
        if before is None:
            commit.check("exists", "exists", key, "", "0")
        else:
            commit.check("version", "hget", key, "v", str(before.version))
        commit.op("HSET", key, "v", str(after.version), "state", after.to_json())
        if after.awaiting_ai:
            commit.op("ZADD", self._k("ai", "turns"), number(after.updated_at), after.id)
        elif before is not None:
            commit.op("ZREM", self._k("ai", "turns"), after.id)
        moves_key = key + ":moves"
        old = before.moves if before is not None else ()
        if after.moves[: len(old)] == old:
            if len(after.moves) > len(old):
                commit.op("RPUSH", moves_key, *after.moves[len(old) :])
        else:
            if old[: len(after.moves)] != after.moves:
                raise ValueError("a game's new move list must extend or shorten the old one")
            if after.moves:
                commit.op("LTRIM", moves_key, "0", str(len(after.moves) - 1))
            else:  # LTRIM 0 -1 would keep the whole list
                commit.op("DEL", moves_key)

    def _challenge_ops(
        self, commit: Commit, before: Challenge | None, after: Challenge, quotas: Quotas = NO_QUOTAS
    ) -> None:
        key = self._k("challenge", after.id)
        if before is None:
            commit.check("exists", "exists", key, "", "0")
            for tag, index, bound in self._challenge_indexes(after, quotas):
                if bound is not None:
                    commit.check(tag, "zcount<", index, f"({number(after.created_at)}", str(bound))
                commit.op("ZREMRANGEBYSCORE", index, "-inf", number(after.created_at))  # the expired ones
        else:
            commit.check("version", "hget", key, "v", str(before.version))
        commit.op("HSET", key, "v", str(after.version), "state", after.to_json())
        users = [after.challenger.id] + ([after.opponent.id] if after.opponent is not None else [])
        indexes = [index for _, index, _ in self._challenge_indexes(after, NO_QUOTAS)]
        if after.is_pending:
            # Seconds measured by Redis's own clock from now: the service's clock may be a test's, far in the past.
            lifetime = str(math.ceil(max(0.0, after.expires_at - after.created_at)) + CHALLENGE_GRACE)
            commit.op("ZADD", self._k("challenges", "expiry"), number(after.expires_at), after.id)
            commit.op("EXPIRE", key, lifetime)
            for user in users:
                commit.op("SADD", self._k("user", user, "challenges"), after.id)
                commit.op("EXPIRE", self._k("user", user, "challenges"), lifetime)  # the newest expires last
            for index in indexes:
                commit.op("ZADD", index, number(after.expires_at), after.id)
                commit.op("EXPIRE", index, lifetime)  # the newest expires last
        else:
            commit.op("ZREM", self._k("challenges", "expiry"), after.id)
            for user in users:
                commit.op("SREM", self._k("user", user, "challenges"), after.id)
                commit.op("SADD", self._k("user", user, "closed"), after.id)
                commit.op("EXPIRE", self._k("user", user, "closed"), str(CLOSED_CHALLENGE_KEPT))
            commit.op("EXPIRE", key, str(CLOSED_CHALLENGE_KEPT))
            for index in indexes:
                commit.op("ZREM", index, after.id)

    async def _set_field(self, record_id: str, key: str, field: str, where: MessageRef) -> None:
        """Write an unversioned display field of an existing record (``missing`` when there is none, or when
        ``record_id`` is not shaped like an id: ``<id>:moves`` names a list, no record)."""
        if not is_id(record_id):
            raise CommitConflict("missing")
        commit = Commit()
        commit.check("missing", "exists", key, "", "1")
        commit.op("HSET", key, field, where.to_json())
        await self._run(commit)

    async def _exist(self, keys: Sequence[str]) -> list[bool]:
        if not keys:
            return []
        async with self._r.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.exists(key)
            return [bool(n) for n in await pipe.execute()]
