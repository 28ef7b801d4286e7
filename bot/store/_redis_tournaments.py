"""The store's tournaments (:class:`~bot.service.TournamentRecords`): a hash per tournament (its version and its JSON
record), and the indexes of the live ones: by channel, by person, by server, and each game's tournament. Every write
is one guarded commit (:mod:`bot.store.lua` ``commit.lua``)."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.service import (
    ChannelId,
    GameId,
    GuildId,
    TournamentId,
    TournamentRecord,
    TournamentRecordError,
    UserId,
    is_ai_id,
)
from bot.store._lease import RedisLease
from bot.store._redis_base import Commit, RedisBase, awaitable, decoded

log = logging.getLogger(__name__)


class RedisTournaments(RedisBase):
    """:class:`~bot.service.TournamentRecords` (see the module)."""

    def _t_key(self, tournament_id: str) -> str:
        return self._k("tournament", tournament_id)

    def _player_key(self, user_id: str) -> str:
        return self._k("tournament-player", user_id)

    def _t_channel_key(self, guild_id: str, channel_id: str) -> str:
        return self._k("tournament-channel", guild_id, channel_id)

    async def create_tournament(self, record: TournamentRecord, *, per_guild: int) -> TournamentRecord:
        stored = _at(record, 1)
        commit = Commit()
        commit.check("exists", "exists", self._t_key(record.id), "", "0")
        commit.check("channel", "get", self._t_channel_key(record.guild_id, record.channel_id), "", "")
        commit.check("guild", "scard<", self._k("tournaments", "guild", record.guild_id), "", str(per_guild))
        for player in _people(record):
            commit.check("player", "get", self._player_key(player), "", "")
            commit.op("SET", self._player_key(player), record.id)
        commit.op("HSET", self._t_key(record.id), "v", "1", "data", stored.to_json())
        commit.op("SET", self._t_channel_key(record.guild_id, record.channel_id), record.id)
        commit.op("SADD", self._k("tournaments", "guild", record.guild_id), record.id)
        commit.op("SADD", self._k("tournaments", "live"), record.id)
        await self._run(commit)
        return stored

    async def load_tournament(self, tournament_id: TournamentId) -> TournamentRecord | None:
        version, data = await awaitable(self._r.hmget(self._t_key(tournament_id), ["v", "data"]))
        if version is None or data is None:
            return None
        try:
            return TournamentRecord.from_json(decoded(data), int(decoded(version)))
        except (TournamentRecordError, ValueError) as exc:
            log.warning("tournament %s is unreadable and left alone: %s", tournament_id, exc)
            return None

    async def save_tournament(self, before: TournamentRecord, after: TournamentRecord) -> TournamentRecord:
        stored = _at(after, before.version + 1)
        commit = Commit()
        key = self._t_key(after.id)
        commit.check("version", "hget", key, "v", str(before.version))
        was, now = set(_people(before)), set(_people(after)) if after.status.live else set()
        for player in sorted(now - was):
            commit.check("player", "get", self._player_key(player), "", "")
            commit.op("SET", self._player_key(player), after.id)
        for player in sorted(was - now):
            commit.op("DEL", self._player_key(player))
        known = {g.game_id for g in before.games}
        for game in after.games:
            if game.game_id not in known:
                commit.op("SET", self._k("tournament-game", game.game_id), after.id)
        if not after.status.live:
            commit.op("DEL", self._t_channel_key(after.guild_id, after.channel_id))
            commit.op("SREM", self._k("tournaments", "guild", after.guild_id), after.id)
            commit.op("SREM", self._k("tournaments", "live"), after.id)
        commit.op("HSET", key, "v", str(stored.version), "data", stored.to_json())
        await self._run(commit)
        return stored

    async def tournament_of_game(self, game_id: GameId) -> TournamentId | None:
        return await self._id_at(self._k("tournament-game", game_id))

    async def tournament_of_player(self, user_id: UserId) -> TournamentId | None:
        return await self._id_at(self._player_key(user_id))

    async def tournament_in_channel(self, guild_id: GuildId, channel_id: ChannelId) -> TournamentId | None:
        return await self._id_at(self._t_channel_key(guild_id, channel_id))

    async def live_tournaments(self) -> list[TournamentId]:
        live = await awaitable(self._r.smembers(self._k("tournaments", "live")))
        return sorted(TournamentId(decoded(i)) for i in live)

    def _pairing_lease(self, tournament_id: str, holder: str, ttl: float = 1.0) -> RedisLease:
        return RedisLease(self._r, f"tournament:{tournament_id}", ttl=ttl, holder=holder, namespace=self._ns)

    async def claim_tournament(self, tournament_id: TournamentId, holder: str, ttl: float) -> bool:
        return await self._pairing_lease(tournament_id, holder, ttl).hold()

    async def release_tournament(self, tournament_id: TournamentId, holder: str) -> None:
        await self._pairing_lease(tournament_id, holder).release()

    async def _id_at(self, key: str) -> TournamentId | None:
        value = await awaitable(self._r.get(key))
        return None if value is None else TournamentId(decoded(value))


def _people(record: TournamentRecord) -> list[UserId]:
    """The entrants who are people (an AI level may play in any number of tournaments at once)."""
    return [player for player in record.entrants if not is_ai_id(player)]


def _at(record: TournamentRecord, version: int) -> TournamentRecord:
    return replace(record, version=version)
