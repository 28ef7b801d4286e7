"""The AI's turns in this process: which game versions an AI is thinking about, which failures were announced, and
the tasks that do the thinking.

An AI turn asks the :class:`MoveChooser` with no lock held, then hands the move to the service's pipeline with the
version it was asked for; a move for an outdated version is dropped there. A chooser that keeps failing is announced
once (``AI_FAILED``) and the turn is left for the sweeper to start again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable

from ai.api import GameInput, Limits, get_level
from bot.bounded import BoundedDict
from bot.service._errors import GameOverError, PositionChangedError, ServiceError, StoreUnavailableError
from bot.service._models import Event, EventKind, GameKind, GameState, Result
from bot.service._ports import EventSink, MoveChooser
from bot.settings import Settings
from core import Color, RulesError

log = logging.getLogger(__name__)

AI_ATTEMPTS = 3
"""Times one turn asks the chooser before it gives up (and the sweeper takes over)."""
FAILURES_REMEMBERED = 1000
"""Games whose announced AI failure is remembered (so it is not announced again at every retry); a game that ended in
another process is never forgotten otherwise."""

ApplyMove = Callable[[GameState, str], Awaitable[Result]]
"""Plays the AI's move (text) in the game at the version it was asked for (the service's pipeline)."""


def think_limits(level: str, chosen: float | None, cap: float) -> Limits:
    """The limits of one AI move: the level's own (:attr:`ai.api.Level.default_limits`) with the time the player
    chose, if any, instead of the level's, and the time capped by ``cap`` (``AI_THINK_TIME_MAX``). A level bounded by
    depth alone keeps no time limit."""
    own = get_level(level).default_limits
    seconds = chosen if chosen is not None else own.time
    return dataclasses.replace(own, time=min(seconds, cap) if seconds is not None else None)


class AiTurns:
    """Schedules and runs the AI's turns; owns the pending and failed versions and the running tasks.

    Args:
        chooser: picks the moves (the AI process pool).
        settings: the exhibition pace and the cap on thinking time.
        sink: hears the AI's moves and failures (they happen outside any request).
        apply: plays a chosen move through the service's pipeline.
    """

    def __init__(self, chooser: MoveChooser, settings: Settings, sink: EventSink, apply: ApplyMove) -> None:
        self._chooser = chooser
        self._settings = settings
        self._sink = sink
        self._apply = apply
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: dict[str, int] = {}
        """Game id -> the version an AI of this process is thinking about (each entry leaves with its task)."""
        self._failed: BoundedDict[str, int] = BoundedDict(FAILURES_REMEMBERED)
        """Game id -> the version whose AI failure was announced (announced once, retried by the sweeper)."""
        self._closed = False

    @property
    def in_flight(self) -> int:
        """AI turns running now (thinking, or waiting for the exhibition pace)."""
        return len(self._tasks)

    def thinking(self, game_id: str) -> bool:
        """True while an AI of this process is on a turn of the game."""
        return game_id in self._pending

    def forget(self, game_id: str) -> None:
        """The game ended: forget its announced failure."""
        self._failed.pop(game_id, None)

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
        task = asyncio.create_task(self._turn(game, game.turn, delay), name=f"ai-turn-{game.id}-{game.version}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def close(self) -> None:
        """Stop scheduling turns and cancel the running ones (their games resume on the next start)."""
        self._closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _turn(self, game: GameState, color: Color, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            move = await self._choose(game, color)
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
            if self._pending.get(game.id) == game.version:
                del self._pending[game.id]

    async def _choose(self, game: GameState, color: Color) -> str | None:
        """The move text the chooser picked, or None after :data:`AI_ATTEMPTS` failures (announced once)."""
        player = game.player(color)
        assert player.level is not None
        request = GameInput(game.variant, game.initial_fen, game.moves)
        seed = int.from_bytes(hashlib.blake2b(f"{game.id}:{game.version}".encode(), digest_size=6).digest())
        for attempt in range(1, AI_ATTEMPTS + 1):
            try:
                limits = think_limits(player.level, game.ai_think_time, self._settings.ai_think_time_max)
                return (await self._chooser.choose(player.level, request, limits, seed + attempt - 1)).move
            except Exception as exc:
                log.warning("AI %s failed in game %s (attempt %d): %s", player.level, game.id, attempt, exc)
                if attempt < AI_ATTEMPTS:
                    await asyncio.sleep(0.1 * attempt)
        if self._failed.get(game.id) != game.version:  # say it once, not at every retry
            self._failed[game.id] = game.version
            text = f"{player.name} could not choose a move; it will try again shortly"
            await self._sink.publish(None, [Event(EventKind.AI_FAILED, text, game.id)])
        return None
