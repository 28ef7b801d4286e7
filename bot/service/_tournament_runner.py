"""What moves a tournament on, from its start to its end (see :mod:`bot.service._tournaments`).

:meth:`TournamentRunner.advance` records the results of the finished games of the tournament, then, under the
tournament's lease (one process at a time): opens the games that should be open and are not (a ballot match's second
game once its first is over; a game whose players were busy), and when a Swiss or round-robin round is over pairs the
next (or ends the tournament); in an arena, pairs the players waiting for a game until its time is up, then ends it
once its last game is over. It runs when a tournament game ends in this process (:meth:`observe`), and for every live
tournament at each sweep (:meth:`sweep`), so a result that a stopped process did not record is recorded by the next
sweep of any process, and an arena ends on time.
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
from bot.locks import KeyedLocks
from bot.service import _transitions
from bot.service._arena import arena_round
from bot.service._errors import ServiceError, UnknownTournamentError
from bot.service._events import Event, GameOver
from bot.service._ids import GameId, RequestId, TournamentId, UserId
from bot.service._models import GameState, GameView, User
from bot.service._pipeline import Pipeline, Room
from bot.service._ports import CommitConflict, EventSink, GameRecords, TournamentRecords
from bot.service._round_robin import pair_round_robin
from bot.service._swiss import pair_swiss
from bot.service._tournament_games import board_game, finished_news, game_id_of, round_started, with_results
from bot.service._tournament_model import Pairing, Round, TournamentError, TournamentFormat
from bot.service._tournament_record import MIN_PLAYERS, BoardGame, TournamentRecord, TournamentStatus
from bot.service._tournament_rules import busy

log = logging.getLogger(__name__)

PAIRING_LEASE = 60.0
"""Seconds a process may take to pair a round and open its games before another may."""
ATTEMPTS = 5
"""Times a change is tried again after another process changed the tournament first."""
LEASE_WAIT = 15.0
"""Seconds a game's end waits for the process that holds its tournament's lease (the sweep does not wait)."""
LEASE_POLL = 0.2

RoomMaker = Callable[[TournamentRecord, GameState], Awaitable[str | int | None]]
"""Opens a game of a tournament its own room (a thread, on Discord); returns its channel id, or None to play in the
tournament's channel."""


class TournamentStore(TournamentRecords, GameRecords, Protocol):
    """The ports a tournament is kept and read through."""


class TournamentRunner:
    """Moves tournaments on (see the module)."""

    def __init__(self, store: TournamentStore, pipe: Pipeline, clock: Callable[[], float], sink: EventSink) -> None:
        self._store = store
        self._pipe = pipe
        self._clock = clock
        self._sink = sink
        self.rooms: RoomMaker | None = None
        """Set by a front end that gives each game a room of its own."""
        self._holder = secrets.token_hex(8)
        """This process's name on the tournaments' leases."""
        self._moving = KeyedLocks()
        """One advance at a time per tournament in this process: the lease is this process's, so two of its tasks
        (two games ending at once, a sweep) would both hold it, open the same game twice and release it early."""
        self._advancing: set[asyncio.Task[None]] = set()

    async def get(self, tournament_id: TournamentId) -> TournamentRecord:
        record = await self._store.load_tournament(tournament_id)
        if record is None:
            raise UnknownTournamentError(_("there is no tournament {id}", id=repr(str(tournament_id)[:40])))
        return record

    async def advance(self, tournament_id: TournamentId, wait: float = LEASE_WAIT) -> TournamentRecord:
        """Record the finished games' results and move the tournament on (see the module), under the tournament's
        lease, waiting up to ``wait`` seconds for a process that holds it (it may have read the tournament before the
        result this call brings). Safe to call at any time, from any process."""
        record = await self.get(tournament_id)
        if record.status is not TournamentStatus.RUNNING or (wait <= 0 and self._moving.busy(tournament_id)):
            return record  # the sweep does not wait for this process's own advance
        async with self._moving.hold(tournament_id):
            return await self._advance(tournament_id, record, wait)

    async def _advance(self, tournament_id: TournamentId, record: TournamentRecord, wait: float) -> TournamentRecord:
        try:  # the claim too: stopped after Redis gave the lease but before its answer came, the lease is still let go
            if not await self._claim(tournament_id, wait):
                return record  # (letting go of a lease another holds changes nothing: it names its holder)
            for _attempt in range(ATTEMPTS):
                record = await self.get(tournament_id)  # read under the lease: nothing moves it on meanwhile
                if record.status is not TournamentStatus.RUNNING:
                    return record
                scored = await self._scored(record)
                if scored is not record:
                    try:
                        record = await self._store.save_tournament(record, scored)
                    except CommitConflict:  # a command changed it (an entry, a withdrawal): read it again
                        continue
                if record.format is TournamentFormat.ARENA:
                    return await self._arena(record)
                if record.model.rounds and not record.model.rounds[-1].finished:
                    return (await self._open_missing(record))[0]
                return await self._next_round(record)
            raise busy()
        finally:
            await self._store.release_tournament(tournament_id, self._holder)

    async def _claim(self, tournament_id: TournamentId, wait: float) -> bool:
        """Take the tournament's lease, waiting up to ``wait`` seconds while another process holds it."""
        deadline = asyncio.get_running_loop().time() + wait
        while not await self._store.claim_tournament(tournament_id, self._holder, PAIRING_LEASE):
            if asyncio.get_running_loop().time() >= deadline:
                return False
            await asyncio.sleep(LEASE_POLL)
        return True

    def observe(self, events: Sequence[Event]) -> None:
        """An observer of every committed step: a game that ended may move its tournament on."""
        for event in events:
            if isinstance(event, GameOver) and event.game_id is not None:
                task = asyncio.create_task(self._after_game(event.game_id), name=f"tournament-game-{event.game_id}")
                self._advancing.add(task)
                task.add_done_callback(self._advancing.discard)

    async def sweep(self) -> None:
        """Move every live tournament on (results a stopped process did not record, rounds it did not pair, an
        arena's end)."""
        for tournament_id in await self._store.live_tournaments():
            try:
                await self.advance(tournament_id, wait=0.0)  # held: its holder moves it on
            except ServiceError as exc:
                log.warning("tournament %s could not move on: %s", tournament_id, exc)

    async def close(self) -> None:
        tasks = list(self._advancing)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def resign_games(self, record: TournamentRecord, user: User) -> None:
        """Resign the games ``user`` is playing in ``record`` (they withdrew)."""
        for played in record.games:
            game = await self._store.load_game(played.game_id)
            if game is not None and game.is_active and game.color_of(UserId(user.id)) is not None:
                try:
                    result = await self._pipe.transact(game.id, None, partial(_transitions.resign, user=user))
                except ServiceError as exc:
                    log.info("could not resign game %s of a withdrawn player: %s", game.id, exc)
                    continue
                await self._sink.publish(result.game, result.events)

    async def publish(self, record: TournamentRecord, events: list[Event]) -> None:
        try:
            await self._sink.publish(None, events)
        except Exception:
            log.exception("could not announce the news of tournament %s", record.id)

    # -- inside ---------------------------------------------------------------------------------------------------

    async def _scored(self, record: TournamentRecord) -> TournamentRecord:
        """``record`` with the results it does not have yet (:func:`with_results`; itself if none)."""
        unscored = [g.game_id for g in record.games if _pairing(record, g).results[g.game] is None]
        if not record.model.rounds:
            return record
        games = await self._store.load_games(unscored) if unscored else []
        return with_results(record, {game.id: game for game in games})

    async def _next_round(self, record: TournamentRecord) -> TournamentRecord:
        """Pair the next round (saved first) and open its games, or end the tournament when it has had its rounds
        (or nobody is left to pair)."""
        if record.round >= record.rounds_planned or len(record.model.active) < MIN_PLAYERS:
            return await self._finish(record)
        try:
            paired = pair_swiss(record.model) if record.format is TournamentFormat.SWISS else None
            if paired is None:
                paired = pair_round_robin(record.model)
        except TournamentError as exc:  # no legal pairing is left: the tournament ends with the rounds played
            log.info("tournament %s ends after round %d: %s", record.id, record.round, exc)
            return await self._finish(record)
        record = await self._paired(record, paired)
        if not paired.pairings:  # a round of byes only (two players, one withdrawn): on to the next
            return await self._advance(record.id, record, LEASE_WAIT)  # this task holds the lock already
        return record

    async def _arena(self, record: TournamentRecord) -> TournamentRecord:
        """An arena's step: open what should be open; until its end, pair the players waiting; after it, end it once
        its last game is over (the games under way at the end count)."""
        record, _opened = await self._open_missing(record)
        playing = any(not p.finished for r in record.model.rounds for p in r.pairings)
        if self._clock() >= record.ends_at:
            return record if playing else await self._finish(record)
        wave = arena_round(record.model, [e.id for e in record.model.active])
        return record if wave is None else await self._paired(record, wave)

    async def _paired(self, record: TournamentRecord, paired: Round) -> TournamentRecord:
        """Save a new round (or an arena's wave), open its games and announce it."""
        try:
            after = dataclasses.replace(record, model=record.model.with_round(paired))
            record = await self._store.save_tournament(record, after)
        except CommitConflict:  # changed meanwhile (a withdrawal): the next advance pairs it
            return await self.get(record.id)
        record, opened = await self._open_missing(record)
        await self.publish(record, [round_started(record, paired.number, opened)])
        return record

    async def _open_missing(self, record: TournamentRecord) -> tuple[TournamentRecord, list[BoardGame]]:
        """Open the games that should be open and are not: the first game of each unfinished match, and the second
        of a ballot match once its first is over; a withdrawn player's are not (they are forfeits). A game that
        cannot open now (its two players have another game going) is tried again at the next advance."""
        have = {(g.round, g.board, g.game) for g in record.games}
        opened = []
        for round_ in record.model.rounds:
            for board, pairing in enumerate(round_.pairings):
                if pairing.finished or any(record.model.entrant(p).withdrawn for p in pairing.players):
                    continue
                for number in range(pairing.games):
                    if number > 0 and pairing.results[number - 1] is None:
                        break  # the colours are swapped when the first game is over
                    key = (round_.number, board, number)
                    if key in have:
                        continue
                    # renewed before each game: opening rooms may take longer than the lease
                    await self._store.claim_tournament(record.id, self._holder, PAIRING_LEASE)
                    if await self._open(record, pairing, *key):
                        opened.append(BoardGame(*key, game_id_of(record.id, *key)))
        if not opened:
            return record, []
        try:
            after = dataclasses.replace(record, games=(*record.games, *opened))
            return await self._store.save_tournament(record, after), opened
        except CommitConflict:  # changed meanwhile: the next advance records them (their ids are theirs)
            return await self.get(record.id), opened

    async def _open(
        self, record: TournamentRecord, pairing: Pairing, round_number: int, board: int, number: int
    ) -> bool:
        """Open one game of a match (once: its id and request key are the tournament's); False if it cannot be now."""
        game_id = game_id_of(record.id, round_number, board, number)
        step = board_game(record, pairing, game_id, number, self._clock())
        request = RequestId(f"tournament:{game_id}")
        try:
            room = _room(self.rooms, record, step.after)
            result = await self._pipe.open(step, room=room, request=request, bounded=False)
        except ServiceError as exc:
            stored = await self._store.load_game(game_id)
            if stored is not None:  # opened already, by a process that stopped before recording it (and perhaps
                # before showing it): shown now where it is filed (a board shown already is left as it is)
                await self._sink.publish(GameView.of(stored, self._clock()), ())
                return True
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
        await self.publish(saved, [finished_news(saved)])
        return saved

    async def _after_game(self, game_id: GameId) -> None:
        tournament_id = await self._store.tournament_of_game(game_id)
        if tournament_id is not None:
            try:
                await self.advance(tournament_id)
            except ServiceError as exc:  # the sweeper tries again
                log.warning("tournament %s did not move on after game %s: %s", tournament_id, game_id, exc)


def _pairing(record: TournamentRecord, played: BoardGame) -> Pairing:
    return record.model.rounds[played.round - 1].pairings[played.board]


def _room(rooms: RoomMaker | None, record: TournamentRecord, game: GameState) -> Room | None:
    """The room-opener of one game, for the pipeline."""
    if rooms is None:
        return None
    return lambda: rooms(record, game)
