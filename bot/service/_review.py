"""Game reviews (``/checkers analyse``, the replay page's graph): computed once per finished game by the AI at low
priority (the process pool or threads between live moves, or with ``AI_BACKEND=queue`` the job queue's idle workers),
stored with the game, and handed out again from the store.

A review costs a few seconds of a worker, so one person has one review running at a time (in this process); a game
asked for by several people at once is reviewed once, and all of them get that review. A request that gives up (an
interaction that expires) leaves its review running to the end, so it is stored for the next ask.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ai.api import GameInput
from ai.review import GameReview
from bot.i18n import _
from bot.service._errors import GameNotOverError, ServiceError
from bot.service._ids import GameId
from bot.service._models import GameState, User
from bot.service._ports import CommitConflict, GameReviewer, ReviewRecords

log = logging.getLogger(__name__)

STILL_PLAYING = _("That game is still being played: review it when it ends.")
ONE_AT_A_TIME = _("Your other review is still running: ask again when it is done.")
UNAVAILABLE = _("Game reviews are not available here.")
FAILED = _("The review could not be finished right now: try again in a moment.")


class ReviewBusyError(ServiceError):
    """The requester already has a review running."""


class ReviewUnavailableError(ServiceError):
    """No reviewer is configured, or the review failed in the AI pool."""


@dataclass(frozen=True)
class Analysis:
    """A finished game and its review."""

    game: GameState
    review: GameReview


class Reviews:
    """Computes, stores and reads back the reviews of finished games."""

    def __init__(
        self,
        store: ReviewRecords,
        reviewer: GameReviewer | None,
        on_review: Callable[[GameState, GameReview], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._reviewer = reviewer
        self._on_review = on_review
        """Hears each review once, when it is first stored (the blunders become their players' own puzzles)."""
        self._running: dict[str, asyncio.Task[GameReview]] = {}
        """Game id -> its review being computed."""
        self._requesters: set[str] = set()
        """Users waiting for a review of this process."""

    async def stored(self, game_id: GameId) -> GameReview | None:
        """The game's stored review, or None (also for one this version cannot read)."""
        text = await self._store.load_review(game_id)
        if text is None:
            return None
        try:
            return GameReview.from_json(text)
        except (ValueError, KeyError, TypeError):
            log.warning("the stored review of game %s does not read back", game_id)
            return None

    async def analyse(self, game: GameState, requester: User) -> GameReview:
        """The review of a finished game: the stored one, or one computed now (and stored)."""
        if game.is_active:
            raise GameNotOverError(STILL_PLAYING)
        review = await self.stored(game.id)
        if review is not None:
            return review
        if self._reviewer is None:
            raise ReviewUnavailableError(UNAVAILABLE)
        if requester.id in self._requesters:
            raise ReviewBusyError(ONE_AT_A_TIME)
        self._requesters.add(requester.id)
        try:
            task = self._running.get(game.id)
            if task is None:
                task = self._running[game.id] = asyncio.create_task(self._compute(game), name=f"review-{game.id}")
                task.add_done_callback(lambda _: self._running.pop(game.id, None))
            return await asyncio.shield(task)
        finally:
            self._requesters.discard(requester.id)

    async def close(self) -> None:
        """Cancel the reviews being computed (nothing is stored for them)."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _compute(self, game: GameState) -> GameReview:
        assert self._reviewer is not None
        try:
            review = await self._reviewer.review(GameInput(game.variant, game.initial_fen, game.moves))
        except Exception as exc:
            log.warning("the review of game %s failed: %r", game.id, exc)
            raise ReviewUnavailableError(FAILED) from None
        try:
            await self._store.save_review(game.id, review.to_json())
        except CommitConflict as exc:
            if exc.tag == "exists":  # another process stored its review first: everyone gets that one
                return await self.stored(game.id) or review
            log.info("game %s was deleted during its review; the review is not kept", game.id)
            return review
        if self._on_review is not None:
            try:
                await self._on_review(game, review)
            except Exception:  # the review is stored and given out all the same
                log.exception("what follows the review of game %s failed", game.id)
        return review
