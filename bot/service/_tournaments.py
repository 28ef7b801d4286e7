"""Tournaments run by the service, from the entries to the podium: Swiss and round robin, in ballot matches (each
pairing plays one ACF three-move ballot twice, colours swapped) or single games.

A tournament is one stored record (:class:`~bot.service._tournament_record.TournamentRecord`) changed by
compare-and-set: entries, the start, each result and each new round are one guarded write each, so two processes
never pair a round twice. The games of a round are ordinary games (the ballot's opening already played), opened
through the service's pipeline with ids and request keys derived from the tournament, the round and the board: a
process that dies between opening them and saving the round opens the same games again, never others.

What moves a tournament on is :meth:`Tournaments.advance`: it records the result of every finished game of the round
being played, and once the round is over pairs the next (or ends the tournament). It runs when a game of a
tournament ends in this process (:meth:`observe`), and for every running tournament at each sweep (:meth:`sweep`), so
a result that a stopped process did not record is recorded by the next sweep of any process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections.abc import Callable, Sequence

from bot.i18n import _
from bot.locks import KeyedLocks
from bot.service import _options
from bot.service._errors import (
    AlreadyPlayingError,
    InvalidRequestError,
    NotAPlayerError,
    ServiceError,
)
from bot.service._events import Event
from bot.service._ids import ChannelId, GuildId, MessageId, TournamentId, UserId
from bot.service._models import MessageRef, PlayerRef, User, new_id
from bot.service._pipeline import Pipeline
from bot.service._ports import CommitConflict, EventSink
from bot.service._tournament_games import finished_news
from bot.service._tournament_model import (
    Entrant,
    MatchKind,
    Tournament,
    TournamentFormat,
)
from bot.service._tournament_record import (
    ARENA_MINUTES,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MAX_WAIT,
    MIN_PLAYERS,
    TournamentRecord,
    TournamentStatus,
)
from bot.service._tournament_rules import busy, check_creator, check_open, entered, refusal
from bot.service._tournament_runner import ATTEMPTS, RoomMaker, TournamentRunner, TournamentStore
from bot.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_RATING = 1500
CONFLICT_PAUSE = 0.02
"""Seconds (at most, doubled after each conflict) a change waits before it tries again after another process's."""
AI_RATINGS = {"easy": 1000, "medium": 1450, "hard": 1700, "master": 1850}
"""A seed rating for AI entrants (close enough for seeding)."""

class Tournaments:
    """Creates, enters, starts, runs and ends tournaments (see the module)."""

    def __init__(
        self, store: TournamentStore, pipe: Pipeline, settings: Settings, clock: Callable[[], float], sink: EventSink
    ) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        self._runner = TournamentRunner(store, pipe, clock, sink)
        self._changing = KeyedLocks()

    @property
    def rooms(self) -> RoomMaker | None:
        """Set by a front end that gives each game a room of its own."""
        return self._runner.rooms

    @rooms.setter
    def rooms(self, maker: RoomMaker | None) -> None:
        self._runner.rooms = maker

    # -- reading --------------------------------------------------------------------------------------------------

    async def get(self, tournament_id: TournamentId) -> TournamentRecord:
        return await self._runner.get(tournament_id)

    async def in_channel(self, guild_id: GuildId, channel_id: ChannelId) -> TournamentRecord | None:
        """The open or running tournament of a channel, if any."""
        found = await self._store.tournament_in_channel(guild_id, channel_id)
        return await self._store.load_tournament(found) if found is not None else None

    # -- before the start -----------------------------------------------------------------------------------------

    async def create(
        self,
        guild_id: GuildId,
        channel_id: ChannelId,
        creator: User,
        *,
        name: str | None = None,
        format: TournamentFormat = TournamentFormat.SWISS,
        rounds: int = 3,
        match: MatchKind = MatchKind.BALLOT,
        variant: str = "american",
        turn_time: float | None = None,
        rated: bool = True,
        max_players: int = 32,
        ai_allowed: bool = False,
        minutes: float = 30.0,
        starts_at: float | None = None,
    ) -> TournamentRecord:
        """Open a tournament for entries in a channel (one live tournament a channel, ``TOURNAMENTS_PER_GUILD`` a
        server); its creator is its first entrant. An arena lasts ``minutes`` from its start. With ``starts_at``
        (epoch seconds) it starts by itself then, or is called off if fewer than two have entered."""
        variant = _options.variant_name(variant)
        if match is MatchKind.BALLOT and variant == "mini":
            raise InvalidRequestError(_("ballot matches need the 8×8 board: choose single games for mini"))
        if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
            raise InvalidRequestError(
                _("a tournament takes {low} to {high} players", low=MIN_PLAYERS, high=MAX_PLAYERS)
            )
        if format is TournamentFormat.SWISS and not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidRequestError(_("a Swiss tournament has 1 to {high} rounds", high=MAX_ROUNDS))
        low, high = ARENA_MINUTES
        if format is TournamentFormat.ARENA and not low <= minutes <= high:
            raise InvalidRequestError(_("an arena lasts {low} to {high} minutes", low=low, high=high))
        now = self._clock()
        if starts_at is not None and not now < starts_at <= now + MAX_WAIT:
            raise InvalidRequestError(_("a tournament starts within the next 30 days"))
        tournament_id = TournamentId(new_id())
        me = UserId(creator.id)
        record = TournamentRecord(
            id=tournament_id,
            guild_id=guild_id,
            channel_id=channel_id,
            creator=me,
            name=(name or _("{name}'s tournament", name=creator.name))[:100],
            variant=variant,
            turn_time=_options.turn_time_of(self._settings, turn_time),
            rated=rated,
            rounds_planned=rounds if format is TournamentFormat.SWISS else 0,
            max_players=max_players,
            ai_allowed=ai_allowed,
            created_at=now,
            model=Tournament(format, match, (Entrant(me, DEFAULT_RATING),), seed=int(tournament_id, 16)),
            names={me: creator.name},
            duration=minutes * 60.0 if format is TournamentFormat.ARENA else 0.0,
            starts_at=starts_at,
        )
        try:
            return await self._store.create_tournament(record, per_guild=self._settings.tournaments_per_guild)
        except CommitConflict as exc:
            raise refusal(exc.tag, self._settings) from None

    async def join(self, tournament_id: TournamentId, user: User) -> TournamentRecord:
        """Enter an open tournament (a person enters one live tournament at a time)."""
        me = UserId(user.id)

        def enter(record: TournamentRecord) -> TournamentRecord:
            check_open(record)
            if me in record.entrants:
                raise AlreadyPlayingError(_("you are already entered in this tournament"))
            return entered(record, Entrant(me, DEFAULT_RATING), user.name)

        return await self._change(tournament_id, enter)

    async def add_ai(self, tournament_id: TournamentId, user: User, level: str) -> TournamentRecord:
        """The creator enters an AI level (where the tournament allows it)."""
        ai = PlayerRef.ai(_options.level_name(level))

        def enter(record: TournamentRecord) -> TournamentRecord:
            check_open(record)
            check_creator(record, user)
            if not record.ai_allowed:
                raise InvalidRequestError(_("this tournament is for people only"))
            if ai.id in record.entrants:
                raise AlreadyPlayingError(_("{name} is already entered", name=ai.name))
            level_name = ai.level or ""
            return entered(record, Entrant(ai.id, AI_RATINGS.get(level_name, DEFAULT_RATING)), ai.name)

        return await self._change(tournament_id, enter)

    async def leave(self, tournament_id: TournamentId, user: User) -> TournamentRecord:
        """Leave an open tournament (its creator cancels it instead)."""
        me = UserId(user.id)

        def leave(record: TournamentRecord) -> TournamentRecord:
            check_open(record)
            if me not in record.entrants:
                raise NotAPlayerError(_("you are not entered in this tournament"))
            if me == record.creator:
                raise InvalidRequestError(_("you created this tournament: cancel it instead"))
            model = dataclasses.replace(record.model, players=tuple(e for e in record.model.players if e.id != me))
            names = {k: v for k, v in record.names.items() if k != me}
            return dataclasses.replace(record, model=model, names=names)

        return await self._change(tournament_id, leave)

    async def set_message(
        self, tournament_id: TournamentId, channel_id: ChannelId, message_id: MessageId
    ) -> TournamentRecord:
        """Record the message that announces the tournament (its entrants and Join button), so a front end edits it
        as the tournament goes on, also after a restart or in another process."""
        where = MessageRef(channel_id, message_id)
        return await self._change(tournament_id, lambda record: dataclasses.replace(record, message=where))

    # -- running it -----------------------------------------------------------------------------------------------

    async def start(self, tournament_id: TournamentId, user: User, *, manager: bool = False) -> TournamentRecord:
        """Start an open tournament (its creator, or a manager of the server): round 1 is paired and its games open."""

        def started(record: TournamentRecord) -> TournamentRecord:
            check_open(record)
            check_creator(record, user, manager)
            if len(record.entrants) < MIN_PLAYERS:
                raise InvalidRequestError(_("a tournament needs at least two players to start"))
            rounds = record.rounds_planned
            if record.format is TournamentFormat.ROUND_ROBIN:
                rounds = len(record.entrants) - 1 + len(record.entrants) % 2
            elif record.format is TournamentFormat.ARENA:
                rounds = 0  # waves, as long as it lasts
            status, now = TournamentStatus.RUNNING, self._clock()
            return dataclasses.replace(record, status=status, started_at=now, rounds_planned=rounds)

        await self._change(tournament_id, started)
        return await self.advance(tournament_id)

    async def withdraw(self, tournament_id: TournamentId, user: User) -> TournamentRecord:
        """Leave a running tournament: your games being played are resigned, you are paired no more."""
        me = UserId(user.id)

        def withdrawn(record: TournamentRecord) -> TournamentRecord:
            if record.status is not TournamentStatus.RUNNING:
                raise InvalidRequestError(_("the tournament is not running"))
            if me not in record.entrants or record.model.entrant(me).withdrawn:
                raise NotAPlayerError(_("you are not playing in this tournament"))
            return dataclasses.replace(record, model=record.model.withdraw(me))

        record = await self._change(tournament_id, withdrawn)
        await self._runner.resign_games(record, user)
        return await self.advance(tournament_id)

    async def cancel(self, tournament_id: TournamentId, user: User, *, manager: bool = False) -> TournamentRecord:
        """Call a tournament off (its creator, or a manager of the server); games being played go on, unscored."""

        def cancelled(record: TournamentRecord) -> TournamentRecord:
            if not record.status.live:
                raise InvalidRequestError(_("the tournament is over"))
            check_creator(record, user, manager)
            return dataclasses.replace(record, status=TournamentStatus.CANCELLED, ended_at=self._clock())

        record = await self._change(tournament_id, cancelled)
        await self._runner.publish(record, [finished_news(record, cancelled=True)])
        return record

    async def advance(self, tournament_id: TournamentId) -> TournamentRecord:
        """Record the finished games' results and move the tournament on (:mod:`._tournament_runner`)."""
        return await self._runner.advance(tournament_id)

    def observe(self, events: Sequence[Event]) -> None:
        self._runner.observe(events)

    async def sweep(self) -> None:
        """Start the tournaments whose time has come (or call them off: fewer than two entered), then move every
        live one on."""
        now = self._clock()
        for tournament_id in await self._store.live_tournaments():
            record = await self._store.load_tournament(tournament_id)
            if record is None or record.status is not TournamentStatus.OPEN or (record.starts_at or now + 1) > now:
                continue
            creator = User(record.creator, record.name_of(record.creator))
            try:
                if len(record.entrants) >= MIN_PLAYERS:
                    await self.start(tournament_id, creator, manager=True)
                else:
                    await self.cancel(tournament_id, creator, manager=True)
            except ServiceError as exc:
                log.warning("tournament %s did not start on time: %s", tournament_id, exc)
        await self._runner.sweep()

    async def close(self) -> None:
        await self._runner.close()

    # -- inside ---------------------------------------------------------------------------------------------------

    async def _change(
        self, tournament_id: TournamentId, change: Callable[[TournamentRecord], TournamentRecord]
    ) -> TournamentRecord:
        """Apply ``change`` to the stored tournament by compare-and-set, reading it again when another process
        changed it first. This process's changes of one tournament are made one at a time (sixty Join clicks at once
        would otherwise overtake each other until some gave up), and another process's are waited out a little
        longer after each conflict."""
        async with self._changing.hold(tournament_id):
            for attempt in range(ATTEMPTS):
                record = await self.get(tournament_id)
                try:
                    return await self._store.save_tournament(record, change(record))
                except CommitConflict as exc:
                    if exc.tag != "version":
                        raise refusal(exc.tag, self._settings) from None
                await asyncio.sleep(random.uniform(0, CONFLICT_PAUSE * 2**attempt))
        raise busy()
