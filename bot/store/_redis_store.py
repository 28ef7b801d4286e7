"""The game store on Redis: every write is one guarded commit (``lua/commit.lua``, run with EVALSHA).

Key layout (``kingme:v1`` is the namespace and schema version; bump it for an incompatible change)::

    {ns}:game:{id}                     hash   v (version), state (JSON of GameState without moves),
                                              board (JSON of the board message's MessageRef, not versioned)
    {ns}:game:{id}:moves               list   PDN move texts
    {ns}:game:{id}:result              string PDN result, set once when the game ends
    {ns}:game:{id}:review              string JSON of the finished game's review (ai.review.GameReview), set once
    {ns}:challenge:{id}                hash   v, state (JSON of Challenge), message (JSON MessageRef, not versioned)
    {ns}:deadlines                     zset   active game id -> move deadline
    {ns}:ai:turns                      zset   active game id where an AI is to move -> when its turn began
    {ns}:challenges:expiry             zset   pending challenge id -> expiry
    {ns}:finished                      zset   finished game id -> end time (for the retention sweep)
    {ns}:user:{uid}:games              set    the user's active games
    {ns}:user:{uid}:challenges         set    the user's pending challenges (sent or received)
    {ns}:user:{uid}:closed             set    the user's closed challenges still kept (for their erasure)
    {ns}:user:{uid}:history            zset   finished game id -> end time
    {ns}:user:{uid}:guilds             set    the guilds the user finished games in (where their ratings are)
    {ns}:guild:{gid}:channel:{cid}:games set  the channel's active games
    {ns}:guild:{gid}:history           zset   finished game id -> end time
    {ns}:pair:{a}|{b}                  string the active game between two users (a < b)
    {ns}:pairday:{a}|{b}:{yyyymmdd}    string rated games of the pair that day (expires after two days)
    {ns}:rating:{scope}:{variant}:{uid} hash  r, rd, vol, games, wins, losses, draws (scope: global | guild:{gid})
    {ns}:lb:{scope}:{variant}          zset   uid -> rating (the human ladder)
    {ns}:vsbot:{scope}:{variant}:{uid} hash   {level}:wins|losses|draws -> count
    {ns}:names                         hash   uid -> display name
    {ns}:user:{uid}:ai                 set    the user's active games against the AI (bounded by ai_games_per_user)
    {ns}:guild:{gid}:exhibitions       set    the server's active exhibitions (bounded by exhibitions_per_guild)
    {ns}:user:{uid}:sent               zset   pending challenge id the user sent -> expiry (challenges_per_sender)
    {ns}:user:{uid}:received           zset   pending challenge id addressed to the user -> expiry (per target)

Games are keyed by id alone so a button that carries only a game id finds its game; the guild is in the state and in
every index that is per guild. A plain move is one EVALSHA: check the version, write the state, append the move,
move the deadline. Where a front end shows a game or challenge (``board``, ``message``) is written by its own small
guarded commit (the record must exist) and never changes the version, so recording it cannot outdate a board.

Nothing lives for ever by accident: a pending challenge's record and its users' challenge sets expire in Redis
:data:`CHALLENGE_GRACE` after the challenge does (the sweeper announces the expiry well before), a closed challenge a
week after it closed, a pair's daily count after two days; finished games stay (they are the history) until the
retention sweep (``GAME_RETENTION_DAYS``) or their player's erasure (``/checkers privacy``) removes or anonymises them.
Every public method raises :class:`~bot.service.StoreUnavailableError` when Redis cannot be reached
(:mod:`bot.store._connection`).

The bounds of :class:`~bot.service.Quotas` are checked inside the commit that creates the game or challenge, on the
``ai``, ``exhibitions``, ``sent`` and ``received`` indexes, so no two processes can both take the last free place; a
pending challenge counts until it is closed or its expiry passes, whether or not the sweeper has expired it yet.

The token buckets of the rate limits (``lua/bucket.lua``) are no game data: short-lived counters that expire by
themselves, they live beside the versioned namespace as ``kingme:rate:{user|guild}:{id}`` (hash: tokens, at) and
never need migrating.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Sequence
from importlib import resources
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis

from bot.service import (
    NO_QUOTAS,
    Bucket,
    Challenge,
    CommitConflict,
    GameKind,
    GameState,
    MessageRef,
    Quotas,
    Rating,
    Settlement,
    is_id,
)
from bot.store._connection import unavailable_as_service_error

NAMESPACE = "kingme:v1"
CHALLENGE_GRACE = 86400
"""Seconds a pending challenge's record outlives its expiry in Redis, so the sweeper can still announce the expiry
after an outage of up to a day; after that Redis drops it by itself."""
CLOSED_CHALLENGE_KEPT = 7 * 86400
"""Seconds a closed challenge's record is kept (its message may still be clicked)."""

_RATING_FIELDS = ("r", "rd", "vol", "games", "wins", "losses", "draws")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _num(value: float) -> str:
    return repr(float(value))


def pair_key(a: str, b: str) -> str:
    """The order-independent name of a pair of users."""
    return "|".join(sorted((a, b)))


CLOSED_ROOM_TTL = 30 * 86400
"""Seconds a closed room stays closed to new games (Discord keeps an archived, locked thread read-only anyway)."""
T = TypeVar("T")


def _reply(reply: Awaitable[T] | T) -> Awaitable[T]:
    """A command's reply, typed for the asyncio client: redis-py types its commands once for both of its clients
    (a value, or an awaitable of it), and this client's are always awaitable."""
    return cast("Awaitable[T]", reply)


class _Commit:
    """Builds one guarded commit: numbered keys, checks and write ops."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._index: dict[str, int] = {}
        self.checks: list[list[Any]] = []
        self.ops: list[list[Any]] = []

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
        return json.dumps({"c": self.checks, "o": self.ops}, separators=(",", ":"))


@unavailable_as_service_error
class RedisGameStore:
    """:class:`bot.service.GameStore` on a ``redis.asyncio.Redis`` client (bytes or decoded replies)."""

    def __init__(self, client: aioredis.Redis, namespace: str = NAMESPACE) -> None:
        self._r = client
        self._ns = namespace
        self._rate_ns = namespace.rsplit(":", 1)[0] + ":rate"
        scripts = resources.files("bot.store").joinpath("lua")
        self._commit_script = client.register_script(scripts.joinpath("commit.lua").read_text(encoding="utf-8"))
        self._bucket_script = client.register_script(scripts.joinpath("bucket.lua").read_text(encoding="utf-8"))

    # -- keys -----------------------------------------------------------------------------------------------------

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

    # -- commits --------------------------------------------------------------------------------------------------

    async def _run(self, commit: _Commit) -> None:
        reply = await self._commit_script(keys=commit.keys, args=[commit.payload()])
        if int(reply[0]) != 1:
            raise CommitConflict(_text(reply[1]), _text(reply[2]))

    def _write_state(self, commit: _Commit, before: GameState | None, after: GameState) -> None:
        key = self._game_key(after.id)
        if before is None:
            commit.check("exists", "exists", key, "", "0")
        else:
            commit.check("version", "hget", key, "v", str(before.version))
        commit.op("HSET", key, "v", str(after.version), "state", after.to_json())
        if after.awaiting_ai:
            commit.op("ZADD", self._k("ai", "turns"), _num(after.updated_at), after.id)
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

    async def create_game(
        self,
        game: GameState,
        *,
        one_per_channel: bool,
        challenge: tuple[Challenge, Challenge] | None = None,
        quotas: Quotas = NO_QUOTAS,
    ) -> None:
        commit = _Commit()
        for tag, key, bound in self._counted(game, quotas):
            if bound is not None:
                commit.check(tag, "scard<", key, "", str(bound))
            commit.op("SADD", key, game.id)
        channel_key = self._channel_key(game.guild_id, game.channel_id)
        commit.check("closed", "exists", self._closed_key(game.guild_id, game.channel_id), "", "0")
        if one_per_channel:
            commit.check("channel", "scard", channel_key, "", "0")
        pair = self._pair_key(game)
        if pair is not None:
            commit.check("pair", "exists", pair, "", "0")
            commit.op("SET", pair, game.id)
        if challenge is not None:
            self._challenge_ops(commit, *challenge)
        self._write_state(commit, None, game)
        commit.op("SADD", channel_key, game.id)
        for player in game.humans():
            commit.op("SADD", self._k("user", player.id, "games"), game.id)
        commit.op("ZADD", self._k("deadlines"), _num(game.deadline), game.id)
        await self._run(commit)

    async def close_room(self, guild_id: str, channel_id: str) -> bool:
        commit = _Commit()
        commit.check("channel", "scard", self._channel_key(guild_id, channel_id), "", "0")
        commit.op("SET", self._closed_key(guild_id, channel_id), "1", "EX", str(CLOSED_ROOM_TTL))
        try:
            await self._run(commit)
        except CommitConflict:
            return False
        return True

    async def save_game(self, before: GameState, after: GameState) -> None:
        commit = _Commit()
        self._write_state(commit, before, after)
        if after.deadline != before.deadline:
            commit.op("ZADD", self._k("deadlines"), _num(after.deadline), after.id)
        await self._run(commit)

    async def finish_game(self, before: GameState, after: GameState, settlement: Settlement) -> None:
        commit = _Commit()
        result_key = self._game_key(after.id) + ":result"
        commit.check("finished", "exists", result_key, "", "0")
        self._write_state(commit, before, after)
        commit.op("SET", result_key, after.result or "*")
        commit.op("ZREM", self._k("deadlines"), after.id)
        commit.op("SREM", self._channel_key(after.guild_id, after.channel_id), after.id)
        for _, key, _ in self._counted(after, NO_QUOTAS):
            commit.op("SREM", key, after.id)
        pair = self._pair_key(after)
        if pair is not None:
            commit.op("DEL", pair)
        ended = _num(after.ended_at if after.ended_at is not None else after.updated_at)
        commit.op("ZADD", self._k("guild", after.guild_id, "history"), ended, after.id)
        commit.op("ZADD", self._k("finished"), ended, after.id)
        for player in after.humans():
            commit.op("SREM", self._k("user", player.id, "games"), after.id)
            commit.op("ZADD", self._k("user", player.id, "history"), ended, after.id)
            commit.op("SADD", self._k("user", player.id, "guilds"), after.guild_id)
        for update in settlement.ratings:
            key = self._rating_key(update.scope, update.variant, update.user_id)
            commit.check("rating", "hget", key, "games", str(update.before.games) if update.before.games else "")
            new = update.after
            values = (new.rating, new.rd, new.vol, new.games, new.wins, new.losses, new.draws)
            fields = [str(x) for pair_ in zip(_RATING_FIELDS, values, strict=True) for x in pair_]
            commit.op("HSET", key, *fields)
            commit.op("ZADD", self._k("lb", update.scope, update.variant), _num(new.rating), update.user_id)
        for record in settlement.bot_records:
            key = self._k("vsbot", record.scope, record.variant, record.user_id)
            commit.op("HINCRBY", key, f"{record.level}:{record.outcome}", "1")
        if settlement.pair_day is not None:
            first, second, day, count = settlement.pair_day
            day_key = self._pair_day_key(first, second, day)
            commit.check("pair-day", "get", day_key, "", str(count) if count else "")
            commit.op("INCR", day_key)
            commit.op("EXPIRE", day_key, str(2 * 86400))
        await self._run(commit)

    def _challenge_ops(
        self, commit: _Commit, before: Challenge | None, after: Challenge, quotas: Quotas = NO_QUOTAS
    ) -> None:
        key = self._k("challenge", after.id)
        if before is None:
            commit.check("exists", "exists", key, "", "0")
            for tag, index, bound in self._challenge_indexes(after, quotas):
                if bound is not None:
                    commit.check(tag, "zcount<", index, f"({_num(after.created_at)}", str(bound))
                commit.op("ZREMRANGEBYSCORE", index, "-inf", _num(after.created_at))  # the expired ones
        else:
            commit.check("version", "hget", key, "v", str(before.version))
        commit.op("HSET", key, "v", str(after.version), "state", after.to_json())
        users = [after.challenger.id] + ([after.opponent.id] if after.opponent is not None else [])
        indexes = [index for _, index, _ in self._challenge_indexes(after, NO_QUOTAS)]
        if after.is_pending:
            # Seconds measured by Redis's own clock from now: the service's clock may be a test's, far in the past.
            lifetime = str(math.ceil(max(0.0, after.expires_at - after.created_at)) + CHALLENGE_GRACE)
            commit.op("ZADD", self._k("challenges", "expiry"), _num(after.expires_at), after.id)
            commit.op("EXPIRE", key, lifetime)
            for user in users:
                commit.op("SADD", self._k("user", user, "challenges"), after.id)
                commit.op("EXPIRE", self._k("user", user, "challenges"), lifetime)  # the newest expires last
            for index in indexes:
                commit.op("ZADD", index, _num(after.expires_at), after.id)
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

    async def save_challenge(self, before: Challenge | None, after: Challenge, quotas: Quotas = NO_QUOTAS) -> None:
        commit = _Commit()
        self._challenge_ops(commit, before, after, quotas)
        await self._run(commit)

    async def set_board_message(self, game_id: str, where: MessageRef) -> None:
        await self._set_field(game_id, self._game_key(game_id), "board", where)

    async def set_challenge_message(self, challenge_id: str, where: MessageRef) -> None:
        await self._set_field(challenge_id, self._k("challenge", challenge_id), "message", where)

    async def _set_field(self, record_id: str, key: str, field: str, where: MessageRef) -> None:
        """Write an unversioned display field of an existing record (``missing`` when there is none, or when
        ``record_id`` is not shaped like an id: ``<id>:moves`` names a list, no record)."""
        if not is_id(record_id):
            raise CommitConflict("missing")
        commit = _Commit()
        commit.check("missing", "exists", key, "", "1")
        commit.op("HSET", key, field, where.to_json())
        await self._run(commit)

    async def save_review(self, game_id: str, review: str) -> None:
        """Keep a finished game's review (JSON); ``finished`` if the game is not finished (or gone), ``exists`` if it
        has one already."""
        commit = _Commit()
        key = self._game_key(game_id)
        commit.check("finished", "exists", key + ":result", "", "1")
        commit.check("exists", "exists", key + ":review", "", "0")
        commit.op("SET", key + ":review", review)
        await self._run(commit)

    async def load_review(self, game_id: str) -> str | None:
        if not is_id(game_id):
            return None
        value = await self._r.get(self._game_key(game_id) + ":review")
        return _text(value) if value is not None else None

    # -- retention and erasure -------------------------------------------------------------------------------------

    async def finished_before(self, ended_before: float, limit: int) -> list[str]:
        ids = await self._r.zrangebyscore(self._k("finished"), "-inf", ended_before, start=0, num=limit)
        return [_text(i) for i in ids]

    async def delete_finished_game(self, game: GameState) -> None:
        commit = _Commit()
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
        commit = _Commit()
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
        commit = _Commit()
        commit.check("games", "scard", self._k("user", user_id, "games"), "", "0")
        commit.check("challenges", "scard", self._k("user", user_id, "challenges"), "", "0")
        commit.check("history", "zcount<", self._k("user", user_id, "history"), "-inf", str(finished + 1))
        for challenge_id in await _reply(self._r.smembers(self._k("user", user_id, "closed"))):
            commit.op("DEL", self._k("challenge", _text(challenge_id)))
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

    # -- reads ----------------------------------------------------------------------------------------------------

    async def load_game(self, game_id: str) -> GameState | None:
        games = await self.load_games([game_id])
        return games[0] if games else None

    async def load_games(self, game_ids: Sequence[str]) -> list[GameState]:
        """The games that exist among ``game_ids``, in order; each read is consistent (one MULTI). Text not shaped
        like an id (:func:`~bot.service.is_id`) names no game: no key is built from it."""
        game_ids = [game_id for game_id in game_ids if is_id(game_id)]
        if not game_ids:
            return []
        async with self._r.pipeline(transaction=True) as pipe:
            for game_id in game_ids:
                key = self._game_key(game_id)
                pipe.hmget(key, ["v", "state", "board"])
                pipe.lrange(key + ":moves", 0, -1)
            replies = await pipe.execute()
        games = []
        for i in range(0, len(replies), 2):
            (version, state, board), moves = replies[i], replies[i + 1]
            if version is None or state is None:
                continue
            moves_ = tuple(_text(m) for m in moves)
            games.append(GameState.from_json(state, moves_, int(version), MessageRef.from_json(board)))
        return games

    async def load_challenge(self, challenge_id: str) -> Challenge | None:
        if not is_id(challenge_id):
            return None
        version, state, message = await _reply(
            self._r.hmget(self._k("challenge", challenge_id), ["v", "state", "message"])
        )
        if version is None or state is None:
            return None
        return Challenge.from_json(state, int(version), MessageRef.from_json(message))

    async def due_games(self, now: float, limit: int) -> list[str]:
        ids = await self._r.zrangebyscore(self._k("deadlines"), "-inf", now, start=0, num=limit)
        return [_text(i) for i in ids]

    async def due_challenges(self, now: float, limit: int) -> list[str]:
        """Pending challenges whose time is up; one whose record Redis already dropped (see :data:`CHALLENGE_GRACE`)
        leaves the index here."""
        expiry = self._k("challenges", "expiry")
        ids = [_text(i) for i in await self._r.zrangebyscore(expiry, "-inf", now, start=0, num=limit)]
        alive = await self._exist([self._k("challenge", i) for i in ids])
        gone = [i for i, there in zip(ids, alive, strict=True) if not there]
        if gone:
            await self._r.zrem(expiry, *gone)
        return [i for i in ids if i not in gone]

    async def _exist(self, keys: Sequence[str]) -> list[bool]:
        if not keys:
            return []
        async with self._r.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.exists(key)
            return [bool(n) for n in await pipe.execute()]

    async def ai_turns(self, began_before: float, limit: int) -> list[str]:
        ids = await self._r.zrangebyscore(self._k("ai", "turns"), "-inf", began_before, start=0, num=limit)
        return [_text(i) for i in ids]

    async def active_game_ids(self) -> list[str]:
        return [_text(i) for i in await self._r.zrange(self._k("deadlines"), 0, -1)]

    async def user_games(self, user_id: str) -> list[str]:
        return sorted(_text(i) for i in await _reply(self._r.smembers(self._k("user", user_id, "games"))))

    async def channel_games(self, guild_id: str, channel_id: str) -> list[str]:
        return sorted(_text(i) for i in await _reply(self._r.smembers(self._channel_key(guild_id, channel_id))))

    async def user_challenges(self, user_id: str) -> list[str]:
        return sorted(_text(i) for i in await _reply(self._r.smembers(self._k("user", user_id, "challenges"))))

    async def user_guilds(self, user_id: str) -> list[str]:
        return sorted(_text(i) for i in await _reply(self._r.smembers(self._k("user", user_id, "guilds"))))

    async def history(self, user_id: str, limit: int) -> list[str]:
        ids = await self._r.zrevrange(self._k("user", user_id, "history"), 0, limit - 1)
        return [_text(i) for i in ids]

    async def read_ratings(self, keys: Sequence[tuple[str, str, str]]) -> list[Rating]:
        async with self._r.pipeline(transaction=True) as pipe:
            for scope, variant, user_id in keys:
                pipe.hmget(self._rating_key(scope, variant, user_id), list(_RATING_FIELDS))
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

    async def leaderboard(self, scope: str, variant: str, limit: int) -> list[tuple[str, float]]:
        rows: Any = await self._r.zrevrange(self._k("lb", scope, variant), 0, limit - 1, withscores=True)
        return [(_text(uid), float(score)) for uid, score in rows]

    async def rank(self, scope: str, variant: str, user_id: str) -> int | None:
        place: Any = await self._r.zrevrank(self._k("lb", scope, variant), user_id)
        return None if place is None else int(place) + 1

    async def bot_record(self, scope: str, variant: str, user_id: str) -> dict[str, tuple[int, int, int]]:
        raw = await _reply(self._r.hgetall(self._k("vsbot", scope, variant, user_id)))
        counts: dict[str, dict[str, int]] = {}
        for field, value in raw.items():
            level, _, outcome = _text(field).rpartition(":")
            counts.setdefault(level, {})[outcome] = int(value)
        return {lv: (c.get("wins", 0), c.get("losses", 0), c.get("draws", 0)) for lv, c in sorted(counts.items())}

    async def swap_mark(self, name: str, value: str) -> str | None:
        old = await _reply(self._r.set(self._k("mark", name), value, get=True))
        return None if old is None else _text(old)

    async def drop_mark(self, name: str) -> None:
        await _reply(self._r.delete(self._k("mark", name)))

    async def set_names(self, names: dict[str, str]) -> None:
        if names:
            await _reply(self._r.hset(self._k("names"), mapping=names))

    async def take_token(self, buckets: Sequence[Bucket], now: float) -> tuple[int, float] | None:
        keys = [f"{self._rate_ns}:{bucket.key}" for bucket in buckets]
        args = [_num(now)] + [x for b in buckets for x in (_num(b.rate), str(b.burst))]
        reply = await self._bucket_script(keys=keys, args=args)
        if int(reply[0]) == 0:
            return None
        return int(reply[0]) - 1, float(_text(reply[1]))

    async def names(self, user_ids: Sequence[str]) -> dict[str, str]:
        if not user_ids:
            return {}
        values = await _reply(self._r.hmget(self._k("names"), list(user_ids)))
        return {uid: _text(v) for uid, v in zip(user_ids, values, strict=True) if v is not None}
