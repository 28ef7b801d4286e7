"""The one pipeline every command on a game runs through, lichess-style: lock, load (the cached state first), plan
the step (a pure transition of :mod:`bot.service._transitions`), save it with one guarded write (compare-and-set on
the game's version; a game's end settles result, history and ratings in the same write), schedule the AI, and hand
the events to the observers. Commands on one game in this process take turns on a per-game lock; across processes the
version check decides, and the loser gets :class:`PositionChangedError`. AI moves are applied through the same
pipeline with the version they were asked for, so a result for an outdated version is dropped."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial

from bot.bounded import BoundedDict
from bot.i18n import _
from bot.locks import KeyedLocks
from bot.service import _models as models
from bot.service import _transitions
from bot.service._ai_turns import AiTurns
from bot.service._errors import AlreadyDoneError, PositionChangedError, UnknownGameError, creation_refused
from bot.service._events import Event, Result
from bot.service._ids import ChannelId, GameId, GuildId, RequestId
from bot.service._limits import limit_reached, quotas
from bot.service._models import GameState, GameView
from bot.service._ports import NO_QUOTAS, CommitConflict, EventObserver, EventSink, GameRecords, MoveChooser
from bot.service._requests import once
from bot.service._standings import Standings
from bot.service._transitions import Plan, Step
from bot.settings import Settings

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Room = Callable[[], Awaitable[str | int | None]]
"""Opens a place of a new game's own (a thread, on Discord), called once the request is checked and before the game
is stored; returns its channel id (the game is filed there, so the one-game-per-channel rule concerns that room), or
None to play in the channel asked for. A failure after it returns is the caller's to tidy up (the error propagates)."""

CACHED_GAMES = 1000
"""Active games whose state a service keeps in memory (the most recently used); others are read from the store."""


class Pipeline:
    """Stores new games and runs every step of a game: see the module's docstring. ``ai`` runs the AI's turns."""

    def __init__(
        self,
        store: GameRecords,
        standings: Standings,
        chooser: MoveChooser,
        settings: Settings,
        clock: Clock,
        sink: EventSink,
        observers: tuple[EventObserver, ...],
    ) -> None:
        self._store = store
        self._standings = standings
        self._settings = settings
        self._clock = clock
        self._observers: tuple[EventObserver, ...] = tuple(observers)
        self._locks = KeyedLocks()
        self._quotas = quotas(settings)
        self.cache: BoundedDict[str, GameState] = BoundedDict(CACHED_GAMES)
        """The states of the most recently used active games."""
        self.ai = AiTurns(chooser, settings, sink, self.apply_ai_move, store)

    async def open(
        self,
        step: Step,
        challenge: tuple[models.Challenge, models.Challenge] | None = None,
        room: Room | None = None,
        request: RequestId | None = None,
        *,
        bounded: bool = True,
    ) -> Result:
        """Store a new game (closing the ``challenge`` it answers in the same write), then schedule the AI; with
        ``room``, in the room it opens; with ``request``, once for that request (see :mod:`bot.service._requests`).
        Without ``bounded`` (a tournament's game) neither the quotas nor the one-game-per-channel rule apply."""
        game = step.after
        quotas = self._quotas if bounded else NO_QUOTAS
        if room is not None and (tag := await self._store.bound_reached(game, quotas)) is not None:
            raise limit_reached(tag, self._settings) or creation_refused(tag)  # before a room is opened in vain
        room_id = await room() if room is not None else None
        if room_id is not None:
            game = replace(game, channel_id=ChannelId(str(room_id)))
        create = partial(
            self._store.create_game,
            game,
            one_per_channel=self._settings.one_game_per_channel and bounded,
            challenge=challenge,
            quotas=quotas,
        )
        try:
            await once(self._store, request, game, lambda r: create(request=r))
        except CommitConflict as exc:
            raise limit_reached(exc.tag, self._settings) or creation_refused(exc.tag) from None
        self.cache[game.id] = game
        self.ai.schedule(game)
        closed = challenge[1] if challenge is not None else None
        return self.observed(Result(tuple(step.events), GameView.of(game, game.created_at), closed))

    async def transact(
        self,
        game_id: GameId,
        guild_id: GuildId | None,
        plan: Plan,
        *,
        expected_version: int | None = None,
        request: RequestId | None = None,
    ) -> Result:
        """Lock, load (the cached state first), plan, save (one guarded write, once for ``request``), then schedule
        the AI; returns the events. A cached state that proves stale is read again once."""
        async with self._locks.hold(game_id):
            for attempt in range(2):
                cached = attempt == 0 and game_id in self.cache
                game = self.cache[game_id] if cached else await self.load(game_id, None)
                _transitions.check_guild(game, guild_id)
                if expected_version is not None and game.version != expected_version:
                    if cached:
                        self.cache.pop(game_id, None)
                        continue
                    raise PositionChangedError()
                _transitions.active(game)
                now = self._clock()
                step = plan(game, now)
                try:
                    after, extra = await self._save(game, step.after, request)
                except CommitConflict as exc:
                    self.cache.pop(game_id, None)
                    if cached and exc.tag == "version":
                        continue  # another process moved this game since we cached it: look again
                    raise AlreadyDoneError() if exc.tag == "request" else PositionChangedError() from None
                break
            else:  # pragma: no cover - the second attempt always reads fresh and raises or breaks
                raise PositionChangedError()
            if after.is_active:
                self.cache[game_id] = after
            else:
                self.cache.pop(game_id, None)
                self.ai.forget(game_id)
        self.ai.schedule(after)
        return self.observed(Result(tuple(step.events + extra), GameView.of(after, now)))

    async def _save(
        self, before: GameState, after: GameState, request: RequestId | None
    ) -> tuple[GameState, list[Event]]:
        """Store a transition; a game's end also settles result, history and ratings in the same write."""
        if after.is_active:
            await once(self._store, request, after, partial(self._store.save_game, before, after))
            return after, []
        return await self._standings.finish(before, after, request)

    async def apply_ai_move(self, game: GameState, move: str) -> Result:
        plan = partial(_transitions.ai_move, text=move)
        return await self.transact(game.id, None, plan, expected_version=game.version)

    def add_observer(self, observer: EventObserver) -> None:
        """Hear the events of every committed step from now on (see :meth:`observed`)."""
        self._observers = (*self._observers, observer)

    def observed(self, result: Result) -> Result:
        """Hand a committed step's events to the observers; an observer's failure is logged, the step stands."""
        for observe in self._observers:
            try:
                observe(result.events)
            except Exception:
                log.exception("an event observer failed on %d events", len(result.events))
        return result

    async def load(self, game_id: GameId, guild_id: GuildId | None) -> GameState:
        game = await self._store.load_game(game_id) if isinstance(game_id, str) and game_id else None
        if game is None:
            raise UnknownGameError(_("there is no game {game}", game=repr(str(game_id)[:40])))
        _transitions.check_guild(game, guild_id)
        return game
