"""The AI's turns in this process: which game versions an AI is thinking about, which failures were announced, and
the tasks that do the thinking.

An AI turn waits for its place in the :class:`~bot.service._fairness.FairGate` (shared fairly between the people who
play the AI, at most the chooser's ``capacity`` at once, read as it changes: the job queue's grows and shrinks with its
live workers), asks the :class:`MoveChooser` with no lock held, then hands the move to the service's pipeline with the
version it was asked for; a move for an outdated version is dropped there. A turn that waits long for its place says so
once (the AI is busy with other games). A chooser that says it is busy (an error with ``retry_after``) is asked again
after that pause, as often as needed, and the players are told once; one that says it is offline (no live worker on
the job queue: :class:`~bot.service._ports.Offline`) is asked again the same way, and the players are told once that
the move comes when the AI is back. Neither spends a try. A chooser that keeps failing otherwise is announced once
(``AI_FAILED``) and the turn is left for the sweeper to start again.

Across the bot's processes a turn is worked on by one at a time: a turn first takes its lease in the store (renewed
while it runs, released when it ends, lasting ``AI_RETRY_AFTER`` seconds), so the sweeper of another process, which
starts the turns that have waited that long, leaves alone a turn a live process is still waiting for, and takes over
one whose process died (its lease expired).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable

from ai.api import GameInput, Limits, get_level
from bot.bounded import BoundedDict
from bot.i18n import _
from bot.service._errors import GameOverError, PositionChangedError, ServiceError, StoreUnavailableError
from bot.service._events import AiFailed, AiThinking, Result
from bot.service._fairness import FairGate, Owner, ThinkBudget
from bot.service._ids import GameId
from bot.service._models import GameKind, GameState
from bot.service._ports import Busy, EventSink, GameRecords, MoveChooser, Offline
from bot.settings import Settings
from bot.tasks import cancel_and_wait
from core import Color, RulesError

log = logging.getLogger(__name__)

AI_ATTEMPTS = 3
"""Times one turn asks the chooser before it gives up (and the sweeper takes over); "busy" answers do not count."""
FAILURES_REMEMBERED = 1000
"""Games whose announced AI failure is remembered (so it is not announced again at every retry); a game that ended in
another process is never forgotten otherwise."""
CLOSE_GRACE = 1.0
"""Seconds a turn cancelled by :meth:`AiTurns.close` has to give its lease up before it is cancelled again."""
BUSY_NOTICE_AFTER = 5.0
"""Seconds a turn may wait for its place before the players are told that the AI is busy with other games."""

ApplyMove = Callable[[GameState, str], Awaitable[Result]]
"""Plays the AI's move (text) in the game at the version it was asked for (the service's pipeline)."""


def think_limits(level: str, chosen: float | None, cap: float) -> Limits:
    """The limits of one AI move: the level's own (:attr:`ai.api.Level.default_limits`) with the time the player
    chose, if any, instead of the level's, and the time capped by ``cap`` (``AI_THINK_TIME_MAX``). A level bounded by
    depth alone keeps no time limit."""
    own = get_level(level).default_limits
    seconds = chosen if chosen is not None else own.time
    return dataclasses.replace(own, time=min(seconds, cap) if seconds is not None else None)


def owner_of(game: GameState) -> Owner:
    """Who the AI's turns in ``game`` are charged to: its human player, or for an exhibition its server."""
    humans = game.humans()
    return f"user:{humans[0].id}" if humans else f"guild:{game.guild_id}"


class _Outdated(Exception):  # noqa: N818 - not an error: the turn has nothing left to do
    """The game of a turn moved on or ended while the turn waited."""


@dataclasses.dataclass
class _Turn:
    """One AI turn: the game at the version it is for, who it is charged to, and whether a wait was announced."""

    game: GameState
    color: Color
    owner: Owner
    told_busy: bool = False
    told_offline: bool = False


class AiTurns:
    """Schedules and runs the AI's turns; owns the pending and failed versions, the running tasks and the fair gate.

    Args:
        chooser: picks the moves (the AI process pool or job queue); its ``capacity``, read whenever a turn may start,
            bounds the turns thinking at once.
        settings: the exhibition pace, the cap on thinking time and the think-time budget.
        sink: hears the AI's moves and failures (they happen outside any request).
        apply: plays a chosen move through the service's pipeline.
    """

    def __init__(
        self, chooser: MoveChooser, settings: Settings, sink: EventSink, apply: ApplyMove, store: GameRecords
    ) -> None:
        self._chooser = chooser
        self._store = store
        self._holder = secrets.token_hex(8)
        """This process's name on the turns' leases."""
        self._claiming = asyncio.Lock()
        """Turns take their leases one at a time, in the order they were scheduled, so that they reach the fair gate
        in that order (replies on several connections could come back in any order)."""
        self._settings = settings
        self._sink = sink
        self._apply = apply
        self._budget = ThinkBudget(settings.ai_think_budget, settings.ai_think_budget_window)
        self._gate = FairGate(lambda: chooser.capacity, self._budget)
        self._tasks: set[asyncio.Task[None]] = set()
        self._paused = 0
        """Turns waiting out a "busy" or "offline" answer before they ask again."""
        self._notices: set[asyncio.Task[None]] = set()
        self._pending: dict[str, int] = {}
        """Game id -> the version an AI of this process is thinking about (each entry leaves with its task)."""
        self._failed: BoundedDict[str, int] = BoundedDict(FAILURES_REMEMBERED)
        """Game id -> the version whose AI failure was announced (announced once, retried by the sweeper)."""
        self._closed = False

    @property
    def in_flight(self) -> int:
        """AI turns under way now (thinking, waiting for their place, or waiting for the exhibition pace)."""
        return len(self._tasks)

    @property
    def waiting(self) -> int:
        """AI turns waiting for their place at the AI, or to ask again after a "busy" or "offline" answer."""
        return self._gate.waiting + self._paused

    def thinking(self, game_id: GameId) -> bool:
        """True while an AI of this process is on a turn of the game."""
        return game_id in self._pending

    def forget(self, game_id: GameId) -> None:
        """The game ended: forget its announced failure, and stop a turn that waits for a busy chooser."""
        self._failed.pop(game_id, None)
        self._pending.pop(game_id, None)

    def resume(self, games: Iterable[GameState]) -> list[GameState]:
        """Start the turns of the ``games`` where an AI is to move and no AI of this process is thinking; returns
        those games."""
        return [game for game in games if not self.thinking(game.id) and self.schedule(game)]

    def schedule(self, game: GameState) -> bool:
        """Start the AI's turn in ``game`` if an AI is to move and none is already thinking about this version."""
        if self._closed or not game.awaiting_ai or self._pending.get(game.id) == game.version:
            return False
        self._pending[game.id] = game.version
        delay = self._settings.exhibition_move_delay if game.kind is GameKind.EXHIBITION and game.moves else 0.0
        turn = _Turn(game, game.turn, owner_of(game))
        task = asyncio.create_task(self._turn(turn, delay), name=f"ai-turn-{game.id}-{game.version}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def close(self) -> None:
        """Stop scheduling turns and cancel the running ones (their games resume on the next start)."""
        self._closed = True
        await cancel_and_wait(*self._tasks, *self._notices, again_after=CLOSE_GRACE)

    async def _turn(self, turn: _Turn, delay: float) -> None:
        game = turn.game
        if not await self._claim(game):
            log.info("game %s version %d: another process is on the AI's turn", game.id, game.version)
            self._pending.pop(game.id, None)
            return
        keeper = asyncio.create_task(self._keep(game), name=f"ai-lease-{game.id}")
        try:
            if delay:
                await asyncio.sleep(delay)
            move = await self._choose(turn)
            if move is None:
                return
            self._failed.pop(game.id, None)
            try:
                result = await self._apply(game, move)
            except (PositionChangedError, GameOverError):
                log.debug("dropped the AI move for game %s version %d: the game changed", game.id, game.version)
                return
            except StoreUnavailableError:  # the sweeper starts the turn again once the store is back
                log.warning("AI move in game %s not saved: the store is unavailable", game.id)
                return
            except (ServiceError, RulesError) as exc:
                log.warning("AI move in game %s refused: %s", game.id, exc)
                return
            await self._sink.publish(result.game, result.events)
        finally:
            await cancel_and_wait(keeper)  # not one cancel(): the renewal's Redis command may drop it (bot.tasks)
            if self._pending.get(game.id) == game.version:
                del self._pending[game.id]
            with contextlib.suppress(ServiceError):
                await self._store.release_turn(game.id, game.version, self._holder)

    async def _claim(self, game: GameState) -> bool:
        """Take the turn's lease; True also when the store cannot say (a second search is harmless, a lost turn not)."""
        try:
            async with self._claiming:
                return await self._store.claim_turn(game.id, game.version, self._holder, self._settings.ai_retry_after)
        except ServiceError as exc:
            log.warning("game %s: the AI turn's lease is unknown (%s); the turn goes on", game.id, exc)
            return True

    async def _keep(self, game: GameState) -> None:
        """Renew the turn's lease while the turn runs (three times a lease)."""
        while True:
            await asyncio.sleep(self._settings.ai_retry_after / 3)
            with contextlib.suppress(ServiceError):
                await self._store.claim_turn(game.id, game.version, self._holder, self._settings.ai_retry_after)

    async def _choose(self, turn: _Turn) -> str | None:
        """The move text the chooser picked, or None after :data:`AI_ATTEMPTS` failures (announced once)."""
        game = turn.game
        player = game.player(turn.color)
        assert player.level is not None
        request = GameInput(game.variant, game.initial_fen, game.moves)
        seed = int.from_bytes(hashlib.blake2b(f"{game.id}:{game.version}".encode(), digest_size=6).digest())
        for attempt in range(1, AI_ATTEMPTS + 1):
            try:
                return await self._think(turn, player.level, request, seed + attempt - 1)
            except _Outdated:
                return None
            except Exception as exc:
                log.warning("AI %s failed in game %s (attempt %d): %s", player.level, game.id, attempt, exc)
                if attempt < AI_ATTEMPTS:
                    await asyncio.sleep(0.1 * attempt)
        if self._failed.get(game.id) != game.version:  # say it once, not at every retry
            self._failed[game.id] = game.version
            text = _("{name} could not choose a move; it will try again shortly", name=player.name)
            await self._sink.publish(None, [AiFailed(text, game.id)])
        return None

    async def _think(self, turn: _Turn, level: str, request: GameInput, seed: int) -> str:
        """Ask the chooser once it is this turn's place, again after each "busy" answer's pause; raises
        :class:`_Outdated` when the game moved on or ended meanwhile (its place goes on unused), and what the chooser
        raises otherwise."""
        loop = asyncio.get_running_loop()
        while True:
            await self._wait_for_place(turn)
            started = loop.time()
            try:
                if self._pending.get(turn.game.id) != turn.game.version:
                    raise _Outdated()
                limits = self._limits(turn, level)
                return (await self._chooser.choose(level, request, limits, seed)).move
            except Exception as exc:
                if not isinstance(exc, Busy):
                    raise
                pause = float(exc.retry_after)
                offline = isinstance(exc, Offline) and exc.offline
            finally:
                self._budget.charge(turn.owner, loop.time() - started)
                self._gate.release(turn.owner)
            state = "offline" if offline else "busy"
            log.info("the AI is %s; game %s asks again in %.1f s", state, turn.game.id, pause)
            self._paused += 1
            try:
                await self._tell_busy(turn, offline)
                await asyncio.sleep(pause)
            finally:
                self._paused -= 1

    async def _wait_for_place(self, turn: _Turn) -> None:
        """Wait for the turn's place in the gate; if that takes longer than :data:`BUSY_NOTICE_AFTER`, the players
        are told (once a turn)."""
        notice = asyncio.get_running_loop().call_later(BUSY_NOTICE_AFTER, self._notice, turn)
        try:
            await self._gate.acquire(turn.owner)
        finally:
            notice.cancel()

    def _notice(self, turn: _Turn) -> None:
        task = asyncio.create_task(self._tell_busy(turn), name=f"ai-busy-{turn.game.id}")
        self._notices.add(task)
        task.add_done_callback(self._notices.discard)

    async def _tell_busy(self, turn: _Turn, offline: bool = False) -> None:
        """Tell the players, once a turn, that the AI is busy with other games (or offline: no live worker)."""
        if turn.told_offline if offline else turn.told_busy:
            return
        name = turn.game.player(turn.color).name
        if offline:
            turn.told_offline = True
            text = _("the AI is offline right now: {name} will move as soon as it is back", name=name)
        else:
            turn.told_busy = True
            text = _("the AI is busy with other games: {name} will move as soon as it can", name=name)
        await self._sink.publish(None, [AiThinking(text, turn.game.id)])

    def _limits(self, turn: _Turn, level: str) -> Limits:
        """The turn's limits (:func:`think_limits`); shorter for an owner over budget while others' turns wait."""
        game = turn.game
        limits = think_limits(level, game.ai_think_time, self._settings.ai_think_time_max)
        if self._budget.over(turn.owner) and self._gate.others_waiting(turn.owner):
            cap = self._settings.ai_think_time_over_budget
            limits = dataclasses.replace(limits, time=min(limits.time, cap) if limits.time is not None else cap)
        return limits
