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
    {ns}:guild:{gid}:channel:{cid}:closed string a room closed to new games (a thread whose game did not start; 30 days)
    {ns}:guild:{gid}:history           zset   finished game id -> end time
    {ns}:pair:{a}|{b}                  string the active game between two users (a < b)
    {ns}:pairday:{a}|{b}:{yyyymmdd}    string rated games of the pair that day (expires after two days)
    {ns}:rating:{scope}:{variant}:{uid} hash  r, rd, vol, games, wins, losses, draws (scope: global | guild:{gid})
    {ns}:lb:{scope}:{variant}          zset   uid -> rating (the human ladder)
    {ns}:vsbot:{scope}:{variant}:{uid} hash   {level}:wins|losses|draws -> count
    {ns}:names                         hash   uid -> display name
    {ns}:mark:{name}                   string a front end's note shared by its processes (commands:{app}:{guild}: the
                                              digest of the commands last synced)
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

from collections.abc import Sequence

from bot.service import (
    NO_QUOTAS,
    Challenge,
    ChallengeId,
    ChannelId,
    CommitConflict,
    GameId,
    GameState,
    GameStore,
    GuildId,
    MessageRef,
    Quotas,
    Request,
    Settlement,
    UserId,
    is_id,
)
from bot.store._connection import unavailable_as_service_error
from bot.store._redis_base import CLOSED_ROOM_TTL, NAMESPACE, RATING_FIELDS, Commit, awaitable, decoded, number
from bot.store._redis_puzzles import RedisDaily, RedisPuzzles
from bot.store._redis_records import RedisRecords
from bot.store._redis_tournaments import RedisTournaments

__all__ = ["NAMESPACE", "RedisGameStore"]


@unavailable_as_service_error
class RedisGameStore(RedisRecords, RedisTournaments, RedisPuzzles, RedisDaily):
    """:class:`bot.service.GameStore` on a ``redis.asyncio.Redis`` client (bytes or decoded replies): the games,
    challenges and their indexes here, the other records in :class:`~bot.store._redis_records.RedisRecords`."""

    async def create_game(
        self,
        game: GameState,
        *,
        one_per_channel: bool,
        challenge: tuple[Challenge, Challenge] | None = None,
        quotas: Quotas = NO_QUOTAS,
        request: Request | None = None,
    ) -> None:
        commit = Commit()
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
        commit.op("ZADD", self._k("deadlines"), number(game.deadline), game.id)
        await self._run(commit, request)

    async def bound_reached(self, game: GameState, quotas: Quotas) -> str | None:
        for tag, key, bound in self._counted(game, quotas):
            if bound is not None and int(await awaitable(self._r.scard(key))) >= bound:
                return tag
        return None

    async def close_room(self, guild_id: str, channel_id: str) -> bool:
        commit = Commit()
        commit.check("channel", "scard", self._channel_key(guild_id, channel_id), "", "0")
        commit.op("SET", self._closed_key(guild_id, channel_id), "1", "EX", str(CLOSED_ROOM_TTL))
        try:
            await self._run(commit)
        except CommitConflict:
            return False
        return True

    async def save_game(self, before: GameState, after: GameState, request: Request | None = None) -> None:
        commit = Commit()
        self._write_state(commit, before, after)
        if after.deadline != before.deadline:
            commit.op("ZADD", self._k("deadlines"), number(after.deadline), after.id)
        await self._run(commit, request)

    async def finish_game(
        self, before: GameState, after: GameState, settlement: Settlement, request: Request | None = None
    ) -> None:
        commit = Commit()
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
        ended = number(after.ended_at if after.ended_at is not None else after.updated_at)
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
            fields = [str(x) for pair_ in zip(RATING_FIELDS, values, strict=True) for x in pair_]
            commit.op("HSET", key, *fields)
            commit.op("ZADD", self._k("lb", update.scope, update.variant), number(new.rating), update.user_id)
        for record in settlement.bot_records:
            key = self._k("vsbot", record.scope, record.variant, record.user_id)
            commit.op("HINCRBY", key, f"{record.level}:{record.outcome}", "1")
        if settlement.pair_day is not None:
            first, second, day, count = settlement.pair_day
            day_key = self._pair_day_key(first, second, day)
            commit.check("pair-day", "get", day_key, "", str(count) if count else "")
            commit.op("INCR", day_key)
            commit.op("EXPIRE", day_key, str(2 * 86400))
        await self._run(commit, request)

    async def save_challenge(
        self,
        before: Challenge | None,
        after: Challenge,
        quotas: Quotas = NO_QUOTAS,
        request: Request | None = None,
    ) -> None:
        commit = Commit()
        self._challenge_ops(commit, before, after, quotas)
        await self._run(commit, request)

    async def set_board_message(self, game_id: str, where: MessageRef) -> None:
        await self._set_field(game_id, self._game_key(game_id), "board", where)

    async def set_result_message(self, game_id: GameId, where: MessageRef) -> None:
        await self._set_field(game_id, self._game_key(game_id), "result", where)

    async def result_message(self, game_id: GameId) -> MessageRef | None:
        if not is_id(game_id):
            return None
        return MessageRef.from_json(await awaitable(self._r.hget(self._game_key(game_id), "result")))

    async def set_challenge_message(self, challenge_id: str, where: MessageRef) -> None:
        await self._set_field(challenge_id, self._k("challenge", challenge_id), "message", where)

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
            moves_ = tuple(decoded(m) for m in moves)
            games.append(GameState.from_json(state, moves_, int(version), MessageRef.from_json(board)))
        return games

    async def load_challenge(self, challenge_id: str) -> Challenge | None:
        if not is_id(challenge_id):
            return None
        version, state, message = await awaitable(
            self._r.hmget(self._k("challenge", challenge_id), ["v", "state", "message"])
        )
        if version is None or state is None:
            return None
        return Challenge.from_json(state, int(version), MessageRef.from_json(message))

    async def due_games(self, now: float, limit: int) -> list[GameId]:
        ids = await self._r.zrangebyscore(self._k("deadlines"), "-inf", now, start=0, num=limit)
        return [GameId(decoded(i)) for i in ids]

    async def due_challenges(self, now: float, limit: int) -> list[ChallengeId]:
        """Pending challenges whose time is up; one whose record Redis already dropped (see :data:`CHALLENGE_GRACE`)
        leaves the index here."""
        expiry = self._k("challenges", "expiry")
        ids = [ChallengeId(decoded(i)) for i in await self._r.zrangebyscore(expiry, "-inf", now, start=0, num=limit)]
        alive = await self._exist([self._k("challenge", i) for i in ids])
        gone = [i for i, there in zip(ids, alive, strict=True) if not there]
        if gone:
            await self._r.zrem(expiry, *gone)
        return [i for i in ids if i not in gone]

    async def ai_turns(self, began_before: float, limit: int) -> list[GameId]:
        ids = await self._r.zrangebyscore(self._k("ai", "turns"), "-inf", began_before, start=0, num=limit)
        return [GameId(decoded(i)) for i in ids]

    async def active_game_ids(self) -> list[GameId]:
        return [GameId(decoded(i)) for i in await self._r.zrange(self._k("deadlines"), 0, -1)]

    async def user_games(self, user_id: UserId) -> list[GameId]:
        return sorted(GameId(decoded(i)) for i in await awaitable(self._r.smembers(self._k("user", user_id, "games"))))

    async def channel_games(self, guild_id: GuildId, channel_id: ChannelId) -> list[GameId]:
        return sorted(
            GameId(decoded(i)) for i in await awaitable(self._r.smembers(self._channel_key(guild_id, channel_id)))
        )

    async def user_challenges(self, user_id: UserId) -> list[ChallengeId]:
        return sorted(
            ChallengeId(decoded(i)) for i in await awaitable(self._r.smembers(self._k("user", user_id, "challenges")))
        )

    async def user_guilds(self, user_id: UserId) -> list[GuildId]:
        return sorted(
            GuildId(decoded(i)) for i in await awaitable(self._r.smembers(self._k("user", user_id, "guilds")))
        )

    async def history(self, user_id: UserId, limit: int) -> list[GameId]:
        ids = await self._r.zrevrange(self._k("user", user_id, "history"), 0, limit - 1)
        return [GameId(decoded(i)) for i in ids]


def _implements(store: RedisGameStore) -> GameStore:
    """Never called: mypy checks here that the Redis store implements every port of the service's store."""
    return store
