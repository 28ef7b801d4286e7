"""The endgame trainer in the service: a game against the perfect defender (the hidden level ``endgame`` of
:mod:`ai.endgames`) from one of its endings, and the review of such a game once it is over.

A training game is an ordinary game against the AI (same pipeline, turn timer, resignation, replay page), unrated
like every game against the AI; what makes it one is its opponent's level. The trainee plays the side to move (Black,
but White in First Position). Setting an ending up and reviewing a game read the trainer's distance tables, which the
first process on a machine solves (up to a few seconds) and caches for the others, so both run in a thread; setting up
reads the tables of the start position, so the AI workers find them cached at the defender's first move.
"""

from __future__ import annotations

import asyncio
import random

from ai import endgames
from bot.i18n import _
from bot.service import _models as models
from bot.service import _options
from bot.service._errors import InvalidRequestError
from bot.service._events import Result
from bot.service._ids import ChannelId, GuildId, RequestId
from bot.service._pipeline import Clock, Pipeline, Room
from bot.service._places import Place
from bot.service._ports import GameStore
from bot.settings import Settings
from core import Board, Color, Outcome, Termination

ENDINGS = endgames.ENDINGS
DIFFICULTIES = endgames.DIFFICULTIES
Review = endgames.Review


def is_training(game: models.GameState) -> bool:
    """Whether ``game`` is an endgame training game."""
    return endgames.LEVEL in (game.black.level, game.white.level)


def _start_position(ending: str, difficulty: str, seed: int) -> str:
    if ending not in ENDINGS:
        raise InvalidRequestError(_("choose an ending: {choices}", choices=", ".join(ENDINGS)))
    if difficulty not in DIFFICULTIES:
        raise InvalidRequestError(_("choose a difficulty: {choices}", choices=", ".join(DIFFICULTIES)))
    try:
        fen = endgames.setup(ending, difficulty, seed)
        endgames.distance(Board(fen))  # the tables the defender reads, solved (and cached) before its first move
        return fen
    except endgames.NotAnEndingError:  # the ending and difficulty are known: only the databases can be missing
        if ending == "second_position":
            raise InvalidRequestError(
                _("Second Position needs the six-piece endgame tables, which this server has not built.")
            ) from None
        raise InvalidRequestError(
            _("the endgame databases are missing here: the trainer cannot set its endings")
        ) from None


def outcome_of(game: models.GameState) -> Outcome | None:
    """How a finished game ended, as the rules say it (None while it goes on, or for an unknown record)."""
    if game.termination is None:
        return None
    try:
        termination = Termination(game.termination)
    except ValueError:
        return None
    winner = {"black": Color.BLACK, "white": Color.WHITE}.get(game.winner or "")
    return Outcome(termination, winner)


def review_of(game: models.GameState) -> Review | None:
    """The trainer's review of a training game (None for another game, or a record it cannot read)."""
    if not is_training(game):
        return None
    try:
        return endgames.review(game.initial_fen, game.moves, outcome_of(game))
    except (endgames.NotAnEndingError, ValueError):
        return None


class Training:
    """The trainer's actions of :class:`~bot.service.GameService` (which sets these attributes)."""

    _pipe: Pipeline
    _store: GameStore
    _settings: Settings
    _clock: Clock
    _rng: random.Random

    async def play_endgame(
        self,
        guild_id: GuildId,
        channel_id: ChannelId,
        user: models.User,
        ending: str,
        *,
        difficulty: str = "medium",
        seed: int | None = None,
        turn_time: float | None = None,
        room: Room | None = None,
        request: RequestId | None = None,
        place: Place = Place.SERVER,
    ) -> Result:
        """Start a training game: ``ending`` (one of :data:`ENDINGS`; a ``random`` one of ``difficulty``, drawn by
        ``seed`` or at random) against the perfect defender, the trainee playing the side to move."""
        seed = self._rng.randrange(1 << 30) if seed is None else seed
        fen = await asyncio.to_thread(_start_position, ending, difficulty, seed)
        me, defender = models.PlayerRef.human(user), models.PlayerRef.ai(endgames.LEVEL)
        players = (me, defender) if fen.startswith("B") else (defender, me)  # the trainee is the side to move
        where, now = (guild_id, channel_id), self._clock()
        options = ("american", fen, None, turn_time, None, place)
        step = _options.ai_game(self._settings, models.GameKind.AI, where, players, now, *options)
        result = await self._pipe.open(step, room=room, request=request)
        await self._store.set_names({user.id: user.name})  # as every game does: its players' names for the pages
        return result

    async def endgame_review(self, game: models.GameState) -> Review | None:
        """:func:`review_of` ``game``, in a thread."""
        if not is_training(game) or game.is_active:
            return None
        return await asyncio.to_thread(review_of, game)
