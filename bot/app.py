"""The Discord client of King Me, and the event relay between the game service and it.

The composition root builds the parts and injects them; :class:`KingMeBot` builds nothing itself::

    relay = EventRelay()
    service = GameService(store, pool, settings, sink=relay)
    bot = KingMeBot(service, settings, metrics=metrics, relay=relay)
    await service.start()
    await bot.start(token)

The service needs its event sink when it is constructed, before the bot exists, and the bot may be replaced while the
service runs on; :class:`EventRelay` is that sink, and the running bot attaches to it in ``setup_hook``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict, Unpack

import discord
from discord.ext import commands

from bot.games import DYNAMIC_ITEMS, CommandTranslator, GamesCog, TournamentCog
from bot.metrics import Metrics
from bot.public import game_path, leaderboard_path, public_url, puzzle_path, tournament_path
from bot.service import Event, EventSink, GameId, GameService, GameView, GuildId, ServiceError, TournamentId
from bot.settings import Settings

log = logging.getLogger(__name__)


class EventRelay:
    """An :class:`~bot.service.EventSink` that forwards to whichever front end is attached.

    Events published while nothing is attached (between a bot's close and the next one's start) wait in a bounded
    backlog and are delivered when a front end attaches. A failing front end is logged; the service never sees it.
    """

    def __init__(self, backlog: int = 200) -> None:
        self._target: EventSink | None = None
        self._backlog: collections.deque[tuple[GameView | None, tuple[Event, ...]]] = collections.deque(maxlen=backlog)
        self._tasks: set[asyncio.Task[None]] = set()

    def attach(self, target: EventSink) -> None:
        """Deliver events to ``target`` from now on, starting with the backlog."""
        self._target = target
        if self._backlog:
            pending = list(self._backlog)
            self._backlog.clear()
            task = asyncio.get_running_loop().create_task(self._replay(target, pending), name="kingme-event-backlog")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def detach(self, target: EventSink | None = None) -> None:
        """Stop delivering (to ``target`` only, when given)."""
        if target is None or self._target is target:
            self._target = None

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        target = self._target
        if target is None:
            self._backlog.append((game, tuple(events)))
            return
        try:
            await target.publish(game, events)
        except Exception:
            log.exception("the front end failed to show %d events", len(events))

    async def _replay(self, target: EventSink, pending: list[tuple[GameView | None, tuple[Event, ...]]]) -> None:
        for game, events in pending:
            try:
                await target.publish(game, events)
            except Exception:
                log.exception("the front end failed to show %d events from the backlog", len(events))


@dataclass(frozen=True)
class FrontEnds:
    """Several sinks of one front end as one :class:`~bot.service.EventSink`: each hears every event, in order, and
    shows the kinds that are its own (the games' announcer, the tournaments' news); one failing does not stop the
    next."""

    sinks: tuple[EventSink, ...]

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        for sink in self.sinks:
            try:
                await sink.publish(game, events)
            except Exception:
                log.exception("%s failed to show %d events", type(sink).__name__, len(events))


@dataclass(frozen=True)
class PublicPages:
    """Links to the public pages under the operator's ``PUBLIC_BASE_URL``; none when it is not set."""

    base_url: str | None

    def game(self, game_id: GameId) -> str | None:
        return self._url(game_path(game_id))

    def leaderboard(self, guild_id: GuildId | None, variant: str) -> str | None:
        return self._url(leaderboard_path(guild_id, variant))

    def tournament(self, tournament_id: TournamentId) -> str | None:
        return self._url(tournament_path(tournament_id))

    def puzzle(self, puzzle_id: str) -> str | None:
        return self._url(puzzle_path(puzzle_id))

    def _url(self, path: str) -> str | None:
        return public_url(self.base_url, path) if self.base_url else None


class BotOptions(TypedDict, total=False):
    """The options of :class:`discord.ext.commands.Bot` that King Me sets (the shards' from the settings, the rest
    below) or that tests pass."""

    intents: discord.Intents
    help_command: commands.HelpCommand | None
    max_ratelimit_timeout: float
    shard_count: int
    shard_ids: list[int]
    guild_ready_timeout: float


class KingMeBot(commands.Bot):
    """King Me on Discord: the ``/checkers`` and ``/tournament`` commands and their restart-proof components.

    ``options`` go to :class:`discord.ext.commands.Bot` (tests pass ``guild_ready_timeout``). No privileged intent is
    used: slash commands and components need none.
    """

    def __init__(
        self,
        service: GameService,
        settings: Settings,
        *,
        metrics: Metrics | None = None,
        relay: EventRelay | None = None,
        **options: Unpack[BotOptions],
    ) -> None:
        options.setdefault("intents", discord.Intents.default())
        options.setdefault("help_command", None)
        # a rate limit longer than this (discord.py's minimum) raises discord.RateLimited instead of holding the
        # request: a board that cannot be edited that soon is replaced by a fresh one (bot.games._keeper)
        options.setdefault("max_ratelimit_timeout", 30.0)
        # shard_ids is AutoShardedBot's: this call reaches it through the MRO of ShardedKingMeBot (bot.runtime)
        super().__init__(command_prefix=commands.when_mentioned, **options)  # type: ignore[misc]
        self.service = service
        self.settings = settings
        self.metrics = metrics
        self.relay = relay
        self.games: GamesCog | None = None
        self.tournaments: TournamentCog | None = None
        self._sinks: FrontEnds | None = None

    async def setup_hook(self) -> None:
        pages = PublicPages(self.settings.public_base_url)
        self.games = GamesCog(self, self.service, self.settings, pages)
        await self.add_cog(self.games)
        self.tournaments = TournamentCog(self, self.service, self.settings, pages)
        await self.add_cog(self.tournaments)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.relay is not None:
            self._sinks = FrontEnds((self.games.events, self.tournaments.news, self.games.puzzles))
            self.relay.attach(self._sinks)
        await self.tree.set_translator(CommandTranslator())  # the commands in every language of the catalogue
        await self._sync_commands()

    async def _sync_commands(self) -> None:
        """Register the commands with Discord when they changed since the last time: a digest of what was synced is
        kept in Redis per application (and guild), so a restart, or many shard processes starting together, sync at
        most once (Discord rate-limits syncing)."""
        guild = None
        if self.settings.discord_guild_id is not None:
            guild = discord.Object(id=self.settings.discord_guild_id)
            self.tree.copy_global_to(guild=guild)
        translator = self.tree.translator
        payload = [
            await command.get_translated_payload(self.tree, translator) if translator else command.to_dict(self.tree)
            for command in self.tree.get_commands(guild=guild)
        ]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
        name = f"commands:{self.application_id}:{guild.id if guild is not None else 'global'}"
        if not await self.service.claim_change(name, digest):
            log.info("the commands are as last synced: not synced again")
            return
        try:
            await self.tree.sync(guild=guild)
        except BaseException:
            with contextlib.suppress(Exception):
                await self.service.forget_change(name)
            raise
        log.info("synced %d commands", len(payload))

    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self._remember(guild)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._remember(guild)

    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        if before.name != after.name:
            await self._remember(after)

    async def _remember(self, guild: discord.Guild) -> None:
        """Keep the server's name for its public leaderboard (a failure only leaves the page showing its id)."""
        try:
            await self.service.remember_guilds({GuildId(str(guild.id)): guild.name})
        except ServiceError as exc:
            log.warning("could not record the name of server %s: %s", guild.id, exc)

    async def close(self) -> None:
        if self.relay is not None and self._sinks is not None:
            self.relay.detach(self._sinks)
        await super().close()
