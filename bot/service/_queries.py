"""The game service's reads: games, histories, ladders, statistics and reviews (the :class:`GameService`'s queries,
written here so the service's own module holds its commands)."""

from __future__ import annotations

from ai.review import GameReview
from bot.service import _models as models
from bot.service import _options
from bot.service._ids import ChannelId, GameId, GuildId, UserId
from bot.service._models import GameState, GameView, User
from bot.service._pdn import game_pdn
from bot.service._pipeline import Clock, Pipeline
from bot.service._ports import GameStore
from bot.service._review import Analysis, Reviews
from bot.service._seasons import Seasons
from bot.service._standings import Standings, scope_of


class Queries:
    """What the service answers without changing anything; :class:`GameService` sets the parts it reads."""

    _store: GameStore
    _clock: Clock
    _pipe: Pipeline
    _standings: Standings
    _reviews: Reviews
    seasons: Seasons

    # -- queries --------------------------------------------------------------------------------------------------

    def now(self) -> float:
        """The service's time in epoch seconds (the clock its deadlines are kept on)."""
        return self._clock()

    async def state(self, game_id: GameId, guild_id: GuildId | None = None) -> GameView:
        """The game as it is stored now (position, legal moves, clock, whose turn)."""
        return GameView.of(await self._pipe.load(game_id, guild_id), self._clock())

    async def user_games(self, user_id: UserId) -> list[GameView]:
        """A user's active games."""
        return await self._views(await self._store.user_games(user_id))

    async def channel_games(self, guild_id: GuildId, channel_id: ChannelId) -> list[GameView]:
        """A channel's active games."""
        return await self._views(await self._store.channel_games(guild_id, channel_id))

    async def _views(self, game_ids: list[GameId]) -> list[GameView]:
        now = self._clock()
        return [GameView.of(game, now) for game in await self._store.load_games(game_ids)]

    async def guild_name(self, guild_id: GuildId) -> str | None:
        """The server's name as the front end last told it (:meth:`GameService.remember_guilds`), if ever."""
        return await self._store.guild_name(guild_id)

    async def history(self, user_id: UserId, limit: int = 10) -> list[GameState]:
        """A user's finished games, newest first."""
        return await self._store.load_games(await self._store.history(user_id, max(1, min(limit, 100))))

    async def pdn(self, game_id: GameId, guild_id: GuildId | None = None) -> str:
        """The game as PDN (with result ``*`` while it is being played)."""
        game = await self._pipe.load(game_id, guild_id)
        return game.pdn if game.pdn is not None else game_pdn(game)

    async def leaderboard(
        self, variant: str = "american", guild_id: GuildId | None = None, limit: int = 10, season: int | None = None
    ) -> list[models.LeaderboardEntry]:
        """The human ladder of a guild (or the global one), best first; with ``season``, that season's ladder of the
        guild (refused when it has none of that number)."""
        variant_name = _options.variant_name(variant)
        scope = scope_of(guild_id)
        if season is not None and guild_id is not None:
            scope = (await self.seasons.get(guild_id, season)).scope
        return await self._standings.leaderboard(scope, variant_name, max(1, min(limit, 100)))

    async def stats(
        self, user_id: UserId, variant: str = "american", guild_id: GuildId | None = None
    ) -> models.PlayerStats:
        """A player's rating, record, rank and versus-the-bot record in a guild (or globally)."""
        return await self._standings.stats(user_id, scope_of(guild_id), _options.variant_name(variant))

    async def analyse(self, game_id: GameId, requester: User, guild_id: GuildId | None = None) -> Analysis:
        """The review of a finished game (``/checkers analyse``): stored with the game once computed by the AI pool at
        low priority (see :mod:`ai.review` for what it holds). Refused while the game is being played, and while the
        requester has another review running."""
        game = await self._pipe.load(game_id, guild_id)
        return Analysis(game, await self._reviews.analyse(game, requester))

    async def stored_review(self, game_id: GameId) -> GameReview | None:
        """A game's review if one was computed (the replay page draws its graph), never computing one."""
        return await self._reviews.stored(game_id)
