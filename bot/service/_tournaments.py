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
import secrets
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Protocol

from bot.i18n import _
from bot.service import _options, _transitions
from bot.service._errors import (
    AlreadyPlayingError,
    InvalidRequestError,
    NotAPlayerError,
    ServiceError,
    UnknownTournamentError,
)
from bot.service._events import Event, GameOver
from bot.service._ids import ChannelId, GameId, GuildId, MessageId, RequestId, TournamentId, UserId
from bot.service._models import GameState, MessageRef, PlayerRef, User, new_id
from bot.service._pipeline import Pipeline, Room
from bot.service._ports import CommitConflict, EventSink, GameRecords, TournamentRecords
from bot.service._round_robin import pair_round_robin
from bot.service._swiss import pair_swiss
from bot.service._tournament_games import board_game, finished_news, game_id_of, round_started, with_results
from bot.service._tournament_model import (
    Entrant,
    MatchKind,
    Pairing,
    Tournament,
    TournamentError,
    TournamentFormat,
)
from bot.service._tournament_record import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    BoardGame,
    TournamentRecord,
    TournamentStatus,
)
from bot.service._tournament_rules import busy, check_creator, check_open, entered, refusal
from bot.settings import Settings

log = logging.getLogger(__name__)

PAIRING_LEASE = 60.0
"""Seconds a process may take to pair a round and open its games before another may."""
_ATTEMPTS = 5
"""Times a change is tried again after another process changed the tournament first."""
DEFAULT_RATING = 1500
AI_RATINGS = {"easy": 1000, "medium": 1450, "hard": 1700, "master": 1850}
"""A seed rating for AI entrants (close enough for seeding)."""

RoomMaker = Callable[[TournamentRecord, GameState], Awaitable[str | int | None]]
"""Opens a game of a tournament its own room (a thread, on Discord); returns its channel id, or None to play in the
tournament's channel."""


class TournamentStore(TournamentRecords, GameRecords, Protocol):
    """The ports a tournament is kept and read through."""


class Tournaments:
    """Creates, enters, starts, runs and ends tournaments (see the module)."""

    def __init__(
        self, store: TournamentStore, pipe: Pipeline, settings: Settings, clock: Callable[[], float], sink: EventSink
    ) -> None:
        self._store = store
        self._pipe = pipe
        self._settings = settings
        self._clock = clock
        self._sink = sink
        self.rooms: RoomMaker | None = None
        """Set by a front end that gives each game a room of its own."""
        self._holder = secrets.token_hex(8)
        """This process's name on the tournaments' leases (one process pairs a round)."""
        self._advancing: set[asyncio.Task[None]] = set()

    # -- reading --------------------------------------------------------------------------------------------------

    async def get(self, tournament_id: TournamentId) -> TournamentRecord:
        record = await self._store.load_tournament(tournament_id)
        if record is None:
            raise UnknownTournamentError(_("there is no tournament {id}", id=repr(str(tournament_id)[:40])))
        return record

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
    ) -> TournamentRecord:
        """Open a tournament for entries in a channel (one live tournament a channel, ``TOURNAMENTS_PER_GUILD`` a
        server); its creator is its first entrant."""
        variant = _options.variant_name(variant)
        if match is MatchKind.BALLOT and variant == "mini":
            raise InvalidRequestError(_("ballot matches need the 8×8 board: choose single games for mini"))
        if not MIN_PLAYERS <= max_players <= MAX_PLAYERS:
            raise InvalidRequestError(
                _("a tournament takes {low} to {high} players", low=MIN_PLAYERS, high=MAX_PLAYERS)
            )
        if format is TournamentFormat.SWISS and not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidRequestError(_("a Swiss tournament has 1 to {high} rounds", high=MAX_ROUNDS))
        if format is TournamentFormat.ARENA:
            raise InvalidRequestError(_("arena tournaments are not available yet: choose Swiss or round robin"))
        now = self._clock()
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
        await self._resign_games(record, user)
        return await self.advance(tournament_id)

    async def cancel(self, tournament_id: TournamentId, user: User, *, manager: bool = False) -> TournamentRecord:
        """Call a tournament off (its creator, or a manager of the server); games being played go on, unscored."""

        def cancelled(record: TournamentRecord) -> TournamentRecord:
            if not record.status.live:
                raise InvalidRequestError(_("the tournament is over"))
            check_creator(record, user, manager)
            return dataclasses.replace(record, status=TournamentStatus.CANCELLED, ended_at=self._clock())

        record = await self._change(tournament_id, cancelled)
        await self._publish(record, [finished_news(record, cancelled=True)])
        return record

    async def advance(self, tournament_id: TournamentId) -> TournamentRecord:
        """Record the results of the finished games of the round being played; when the round is over, pair the next
        (or end the tournament). Safe to call at any time, from any process."""
        for _attempt in range(_ATTEMPTS):
            record = await self.get(tournament_id)
            if record.status is not TournamentStatus.RUNNING:
                return record
            scored = await self._scored(record)
            if scored is not record:
                try:
                    record = await self._store.save_tournament(record, scored)
                except CommitConflict:
                    continue
            if not await self._store.claim_tournament(record.id, self._holder, PAIRING_LEASE):
                return record  # another process is moving it on
            try:
                if record.model.rounds and not record.model.rounds[-1].finished:
                    return (await self._open_missing(record))[0]
                return await self._next_round(record)
            finally:
                await self._store.release_tournament(record.id, self._holder)
        raise busy()

    def observe(self, events: Sequence[Event]) -> None:
        """An observer of every committed step: a game that ended may move its tournament on."""
        for event in events:
            if isinstance(event, GameOver) and event.game_id is not None:
                task = asyncio.create_task(self._after_game(event.game_id), name=f"tournament-game-{event.game_id}")
                self._advancing.add(task)
                task.add_done_callback(self._advancing.discard)

    async def sweep(self) -> None:
        """Move every running tournament on (results a stopped process did not record, rounds it did not pair)."""
        for tournament_id in await self._store.live_tournaments():
            try:
                await self.advance(tournament_id)
            except ServiceError as exc:
                log.warning("tournament %s could not move on: %s", tournament_id, exc)

    async def close(self) -> None:
        tasks = list(self._advancing)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- inside ---------------------------------------------------------------------------------------------------

    async def _change(
        self, tournament_id: TournamentId, change: Callable[[TournamentRecord], TournamentRecord]
    ) -> TournamentRecord:
        """Apply ``change`` to the stored tournament by compare-and-set, reading it again when another process
        changed it first."""
        for _attempt in range(_ATTEMPTS):
            record = await self.get(tournament_id)
            try:
                return await self._store.save_tournament(record, change(record))
            except CommitConflict as exc:
                if exc.tag != "version":
                    raise refusal(exc.tag, self._settings) from None
        raise busy()

    async def _scored(self, record: TournamentRecord) -> TournamentRecord:
        """``record`` with the results it does not have yet (:func:`with_results`; itself if none)."""
        if not record.model.rounds:
            return record
        games = await self._store.load_games([g.game_id for g in record.games_of_round(record.round)])
        return with_results(record, {game.id: game for game in games})

    async def _next_round(self, record: TournamentRecord) -> TournamentRecord:
        """Pair the next round (saved first) and open its games, or end the tournament when it has had its rounds
        (or nobody is left to pair). Called under the tournament's lease."""
        if record.round >= record.rounds_planned or len(record.model.active) < MIN_PLAYERS:
            return await self._finish(record)
        try:
            paired = pair_swiss(record.model) if record.format is TournamentFormat.SWISS else None
            if paired is None:
                paired = pair_round_robin(record.model)
        except TournamentError as exc:  # no legal pairing is left: the tournament ends with the rounds played
            log.info("tournament %s ends after round %d: %s", record.id, record.round, exc)
            return await self._finish(record)
        try:
            record = await self._store.save_tournament(
                record, dataclasses.replace(record, model=record.model.with_round(paired))
            )
        except CommitConflict:  # changed meanwhile (a withdrawal): the next advance pairs it
            return await self.get(record.id)
        record, opened = await self._open_missing(record)
        await self._publish(record, [round_started(record, paired.number, opened)])
        if not paired.pairings:  # a round of byes only (two players, one withdrawn): on to the next
            return await self.advance(record.id)
        return record

    async def _open_missing(self, record: TournamentRecord) -> tuple[TournamentRecord, list[BoardGame]]:
        """Open the games of the round being played that should be open and are not: the first game of each match,
        and the second of a ballot match once its first is over. A game that cannot open now (its two players have
        another game going) is tried again at the next advance. Called under the tournament's lease."""
        current = record.model.rounds[-1]
        have = {(g.board, g.game) for g in record.games_of_round(current.number)}
        opened = []
        for board, pairing in enumerate(current.pairings):
            for number in range(pairing.games):
                if number > 0 and pairing.results[number - 1] is None:
                    break  # the colours are swapped when the first game is over
                if (board, number) not in have and await self._open(record, pairing, current.number, board, number):
                    opened.append(
                        BoardGame(current.number, board, number, game_id_of(record.id, current.number, board, number))
                    )
        if not opened:
            return record, []
        try:
            return await self._store.save_tournament(
                record, dataclasses.replace(record, games=(*record.games, *opened))
            ), opened
        except CommitConflict:  # changed meanwhile: the next advance records them (their ids are theirs)
            return await self.get(record.id), opened

    async def _open(
        self, record: TournamentRecord, pairing: Pairing, round_number: int, board: int, number: int
    ) -> bool:
        """Open one game of a match (once: its id and request key are the tournament's); False if it cannot be now."""
        game_id = game_id_of(record.id, round_number, board, number)
        step = board_game(record, pairing, game_id, number, self._clock())
        try:
            result = await self._pipe.open(
                step,
                room=_room(self.rooms, record, step.after),
                request=RequestId(f"tournament:{game_id}"),
                bounded=False,
            )
        except ServiceError as exc:
            if await self._store.load_game(game_id) is not None:
                return True  # opened already, by a process that stopped before recording it
            log.info("tournament %s: game %s cannot open now (%s); tried again later", record.id, game_id, exc)
            return False
        await self._sink.publish(result.game, result.events)
        return True

    async def _finish(self, record: TournamentRecord) -> TournamentRecord:
        ended = dataclasses.replace(record, status=TournamentStatus.FINISHED, ended_at=self._clock())
        try:
            saved = await self._store.save_tournament(record, ended)
        except CommitConflict:
            return await self.get(record.id)
        await self._publish(saved, [finished_news(saved)])
        return saved

    async def _resign_games(self, record: TournamentRecord, user: User) -> None:
        for played in record.games_of_round(record.round):
            game = await self._store.load_game(played.game_id)
            if game is not None and game.is_active and game.color_of(UserId(user.id)) is not None:
                try:
                    result = await self._pipe.transact(game.id, None, partial(_transitions.resign, user=user))
                except ServiceError as exc:
                    log.info("could not resign game %s of a withdrawn player: %s", game.id, exc)
                    continue
                await self._sink.publish(result.game, result.events)

    async def _after_game(self, game_id: GameId) -> None:
        tournament_id = await self._store.tournament_of_game(game_id)
        if tournament_id is not None:
            try:
                await self.advance(tournament_id)
            except ServiceError as exc:  # the sweeper tries again
                log.warning("tournament %s did not move on after game %s: %s", tournament_id, game_id, exc)

    async def _publish(self, record: TournamentRecord, events: list[Event]) -> None:
        try:
            await self._sink.publish(None, events)
        except Exception:
            log.exception("could not announce the news of tournament %s", record.id)


def _room(rooms: RoomMaker | None, record: TournamentRecord, game: GameState) -> Room | None:
    """The room-opener of one game, for the pipeline."""
    if rooms is None:
        return None
    return lambda: rooms(record, game)
