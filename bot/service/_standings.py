"""Ratings and records: what a game's end changes (the settlement, written with the game's final state in one step)
and how the standings read (leaderboards, a player's stats). The rating maths is :mod:`bot.service._ratings`."""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from typing import Protocol

from bot.i18n import _
from bot.service import _ratings
from bot.service._errors import StoreUnavailableError
from bot.service._events import Event, RatingChanged
from bot.service._ids import GuildId, RequestId, UserId
from bot.service._models import (
    GameKind,
    GameState,
    LeaderboardEntry,
    PlayerRef,
    PlayerStats,
    RatingChange,
    parse_color,
)
from bot.service._pdn import game_pdn
from bot.service._places import NO_GUILD
from bot.service._ports import BotRecordUpdate, CommitConflict, GameRecords, RatingRecords, RatingUpdate, Settlement
from bot.service._requests import once
from core import Termination

GLOBAL_SCOPE = "global"
SETTLE_ATTEMPTS = 8
"""Times an ending is settled again when a player's rating changed meanwhile (another of their games ended)."""
SHORT_GAME_PLIES = 2
"""A game resigned, lost on time or agreed drawn before this many plies is not rated."""
_UNRATED_SHORT = (Termination.RESIGNATION.value, Termination.TIME.value, Termination.AGREEMENT.value)


def guild_scope(guild_id: GuildId) -> str:
    return f"guild:{guild_id}"


def season_scope(guild_id: GuildId, number: int) -> str:
    """The ladder of a server's season (:mod:`bot.service._seasons`)."""
    return f"season:{guild_id}:{number}"


def scope_of(guild_id: GuildId | None) -> str:
    """The ladder of a guild, or the global one for None."""
    return guild_scope(guild_id) if guild_id is not None else GLOBAL_SCOPE


def ladders_of(guild_id: GuildId) -> tuple[str, ...]:
    """The ladders a game of ``guild_id`` counts on: the global one and the server's; a game of no server
    (:data:`~bot.service._places.NO_GUILD`: a DM, a group DM, a server without the bot) the global one alone."""
    return (GLOBAL_SCOPE,) if guild_id == NO_GUILD else (GLOBAL_SCOPE, guild_scope(guild_id))


def score(game: GameState, player: PlayerRef) -> float:
    """1, 0.5 or 0: how ``player`` did in the finished ``game``."""
    if game.winner is None:
        return 0.5
    return 1.0 if game.player(parse_color(game.winner)) is player else 0.0


class StandingsStore(GameRecords, RatingRecords, Protocol):
    """The ports a game's end is settled through: the game's final write, ratings, ladders and records."""


class Standings:
    """Settles finished games into ratings and records, and reads the standings back.

    Args:
        store: where ratings, records and leaderboards live.
        pair_limit: rated games two players may have a day (``RATED_GAMES_PER_PAIR_PER_DAY``).
    """

    def __init__(self, store: StandingsStore, pair_limit: int) -> None:
        self._store = store
        self._pair_limit = pair_limit

    async def finish(
        self, before: GameState, after: GameState, request: RequestId | None = None
    ) -> tuple[GameState, list[Event]]:
        """Store the end of a game with its settlement in one guarded write; returns the settled state and the rating
        events. A conflict on a rating or the pair's daily count settles again; any other propagates."""
        for _attempt in range(SETTLE_ATTEMPTS):
            settled, settlement, events = await self.settle(after)
            try:
                await once(self._store, request, settled, partial(self._store.finish_game, before, settled, settlement))
            except CommitConflict as exc:
                if exc.tag in ("rating", "pair-day"):
                    continue  # a rating moved meanwhile (another game of a player ended): recompute
                raise
            return settled, events
        raise StoreUnavailableError(_("ratings kept changing while this game ended; try again"))

    async def settle(self, game: GameState) -> tuple[GameState, Settlement, list[Event]]:
        """The game's final state with PDN and rating changes, and the writes that go with it."""
        game = replace(game, pdn=game_pdn(game))
        scopes = ladders_of(game.guild_id)
        ranked = len(scopes) > 1 and game.kind is GameKind.HUMAN and game.rated  # a server's game: its season too
        if ranked and (season := await self._store.current_season(game.guild_id)):
            scopes = (*scopes, season_scope(game.guild_id, season))
        if game.kind is GameKind.AI:
            human = game.humans()[0]
            ai = game.white if human is game.black else game.black
            assert ai.level is not None
            outcome = {1.0: "wins", 0.0: "losses", 0.5: "draws"}[score(game, human)]
            records = tuple(BotRecordUpdate(s, game.variant, human.id, ai.level, outcome) for s in scopes)
            return game, Settlement(bot_records=records), []
        if game.kind is not GameKind.HUMAN or not game.rated:
            return game, Settlement(), []
        if len(game.moves) < SHORT_GAME_PLIES and game.termination in _UNRATED_SHORT:
            return replace(game, rated=False, unrated_reason=_("too short to rate")), Settlement(), []
        day = time.strftime("%Y%m%d", time.gmtime(game.ended_at))
        a, b = game.black.id, game.white.id
        count = await self._store.pair_day_count(a, b, day)
        if count >= self._pair_limit:
            reason = _("these two players have had their rated games for today")
            return replace(game, rated=False, unrated_reason=reason), Settlement(), []
        keys = [(scope, game.variant, p.id) for scope in scopes for p in (game.black, game.white)]
        before = await self._store.read_ratings(keys)
        updates: list[RatingUpdate] = []
        changes: list[RatingChange] = []
        events: list[Event] = []
        for i in range(0, len(keys), 2):
            pair = ((game.black, before[i], before[i + 1]), (game.white, before[i + 1], before[i]))
            for player, mine, theirs in pair:
                new = _ratings.after_game(mine, theirs, score(game, player))
                scope = keys[i][0]
                updates.append(RatingUpdate(scope, game.variant, player.id, mine, new))
                change = RatingChange(
                    player.id, scope, game.variant, mine.rating, new.rating, new.rd, _ratings.is_provisional(new)
                )
                changes.append(change)
                if scope == GLOBAL_SCOPE:
                    text = f"{player.name}: {round(mine.rating)} → {round(new.rating)} ({change.delta:+.0f})"
                    events.append(RatingChanged(text, game.id, change=change))
        settled = replace(game, rating_changes=tuple(changes))
        return settled, Settlement(ratings=tuple(updates), pair_day=(a, b, day, count)), events

    async def leaderboard(self, scope: str, variant: str, limit: int) -> list[LeaderboardEntry]:
        """The human ladder of ``scope``, best first."""
        rows = await self._store.leaderboard(scope, variant, limit)
        ids = [uid for uid, _ in rows]
        ratings = await self._store.read_ratings([(scope, variant, uid) for uid in ids])
        names = await self._store.names(ids)
        return [
            LeaderboardEntry(i + 1, uid, names.get(uid, uid), r.rating, r.rd, _ratings.is_provisional(r), r.games)
            for i, (uid, r) in enumerate(zip(ids, ratings, strict=True))
        ]

    async def stats(self, user_id: UserId, scope: str, variant: str) -> PlayerStats:
        """A player's rating, record, rank and versus-the-bot record in ``scope``."""
        (rating,) = await self._store.read_ratings([(scope, variant, user_id)])
        rank = await self._store.rank(scope, variant, user_id)
        name = (await self._store.names([user_id])).get(user_id, user_id)
        bot = await self._store.bot_record(scope, variant, user_id)
        return PlayerStats(user_id, name, variant, scope, rating, _ratings.is_provisional(rating), rank, bot)
