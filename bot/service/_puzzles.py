"""Puzzles: one person's puzzle at a time, chosen near their puzzle rating, solved move by move, rated by Glicko-2.

``GameService.puzzles`` gives a person a puzzle (:meth:`Puzzles.start`): from the shipped set (``ai.puzzles``), the
nearest in rating to theirs among those they were never given (the ten nearest, one drawn at random), or from their own
mistakes (``source="mine"``, kept from their games' reviews: :mod:`bot.service._own_puzzles`). While a puzzle is
unsolved it stays theirs: asking again gives it back. Each move (:meth:`move`) is the pure step
:func:`~bot.service._puzzle_model.play`; the replies are played for them; a wrong move ends it. A hint shows the piece
to move and makes the attempt count as not solved.

Ratings: a person's first attempt at a puzzle of the set is rated, as one game against the puzzle (a solve is a win
for the person and a loss for the puzzle), with :func:`bot.service._ratings.update`, both sides rated from their
values before the attempt. A person starts at 1500 with a deviation of 350; a puzzle at the rating of the file with a
deviation of 350 (``docs/puzzles.md``). A retry, or a puzzle of one's own, is not rated. The end of a rated attempt is
written with the session in one guarded step, on both ratings' counts of rated attempts and on the session's version,
so it is applied once: a click sent twice, or two processes, apply it once (a guard that finds a rating moved by
someone else's attempt meanwhile is read again and computed again).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace

from ai.puzzles import Puzzle, load_puzzles
from ai.puzzles import puzzle as shipped_puzzle
from ai.review import GameReview
from bot.i18n import _
from bot.service._daily import DailyPuzzles
from bot.service._errors import InvalidRequestError, PositionChangedError
from bot.service._ids import GuildId, RequestId, UserId
from bot.service._models import GameState, Rating
from bot.service._own_puzzles import own_puzzles
from bot.service._ports import CommitConflict
from bot.service._puzzle_model import (
    PUZZLE_RD,
    SOURCES,
    PuzzlePlayer,
    PuzzleSession,
    PuzzleStatus,
    give_up,
    play,
)
from bot.service._puzzle_ports import PuzzleOutcome, PuzzleRecords
from bot.service._ratings import update
from core import Board
from core.pdn import game_to_pdn

NEAREST = 10
"""A puzzle is drawn among this many of the set nearest the person's rating."""
ATTEMPTS = 5
"""Times a rated end is computed again when another attempt moved a rating meanwhile."""

STALE = _("this puzzle board is out of date: ask for your puzzle again with /checkers puzzle")
NO_PUZZLE = _("you have no puzzle going: ask for one with /checkers puzzle")
NO_OWN = _("you have no puzzles of your own yet: they come from the mistakes found when you analyse your games")


def puzzle_start_rating(p: Puzzle) -> Rating:
    """A puzzle's rating before anyone tried it: the file's, with a deviation of 350."""
    return Rating(float(p.rating), PUZZLE_RD)


def rated_outcome(player: PuzzlePlayer, puzzle: Rating, solved: bool) -> PuzzleOutcome:
    """The player's record and the puzzle's rating after one rated attempt (a solve: the player wins)."""
    score = 1.0 if solved else 0.0
    new = update(player.rating, [(puzzle, score)])
    streak = player.streak + 1 if solved else 0
    after = PuzzlePlayer(
        Rating(
            new.rating,
            new.rd,
            new.vol,
            player.rating.games + 1,
            player.rating.wins + solved,
            player.rating.losses + (not solved),
        ),
        streak,
        max(player.best_streak, streak),
    )
    beaten = update(puzzle, [(player.rating, 1.0 - score)])
    puzzle_after = Rating(
        beaten.rating,
        beaten.rd,
        beaten.vol,
        puzzle.games + 1,
        puzzle.wins + (not solved),
        puzzle.losses + solved,
    )
    return PuzzleOutcome(player, after, puzzle, puzzle_after)


class Puzzles:
    """The puzzle commands of the service (see the module)."""

    def __init__(
        self, store: PuzzleRecords, clock: Callable[[], float], rng: random.Random, daily: DailyPuzzles
    ) -> None:
        self._store = store
        self._daily = daily
        self._clock = clock
        self._rng = rng

    async def current(self, user_id: UserId) -> PuzzleSession | None:
        """The person's puzzle: the one going, or the last one."""
        return await self._store.load_puzzle_session(user_id)

    async def player(self, user_id: UserId) -> PuzzlePlayer:
        return await self._store.load_puzzle_player(user_id)

    async def start(self, user_id: UserId, source: str = "set", *, request: RequestId | None = None) -> PuzzleSession:
        """A new puzzle for the person, or the one they have going."""
        if source not in SOURCES:
            raise InvalidRequestError(_("unknown puzzle source {source}", source=source))
        before = await self._store.load_puzzle_session(user_id)
        if before is not None and before.active:
            return before
        player = await self._store.load_puzzle_player(user_id)
        seen = await self._store.seen_puzzles(user_id)
        if source == "mine":
            chosen = self._own(await self._store.own_puzzles(user_id), seen)
            rated = False
        else:
            chosen = self._near(player.rating.rating, await self._store.puzzle_ratings(), seen)
            rated = True
        return await self._open(before, user_id, chosen, source, rated=rated, request=request)

    async def start_daily(
        self, user_id: UserId, guild_id: GuildId, day: str, *, request: RequestId | None = None
    ) -> PuzzleSession:
        """The server's puzzle of ``day`` for the person (or the puzzle they have going); rated when new to them."""
        chosen = await self._daily.puzzle_of(guild_id, day)
        before = await self._store.load_puzzle_session(user_id)
        if before is not None and before.active:
            return before
        rated = chosen.id not in await self._store.seen_puzzles(user_id)
        daily = f"{guild_id}:{day}"
        return await self._open(before, user_id, chosen, "daily", rated=rated, request=request, daily=daily)

    async def retry(self, user_id: UserId, *, request: RequestId | None = None) -> PuzzleSession:
        """The person's last puzzle again, from its start, not rated."""
        before = await self._store.load_puzzle_session(user_id)
        if before is None:
            raise InvalidRequestError(NO_PUZZLE)
        if before.active:
            return before
        again = Puzzle(before.puzzle_id, before.fen, before.solution, before.themes, 0, "win", None)
        return await self._open(before, user_id, again, before.source, rated=False, request=request, daily=before.daily)

    async def move(
        self, user_id: UserId, text: str, version: int | None = None, *, request: RequestId | None = None
    ) -> PuzzleSession:
        """Play the person's move in their puzzle (``version``: the session shown, None for a typed move)."""
        before = await self._going(user_id, version)
        return await self._step(before, play(before, text), request)

    async def give_up(self, user_id: UserId, version: int, *, request: RequestId | None = None) -> PuzzleSession:
        before = await self._going(user_id, version)
        return await self._step(before, give_up(before), request)

    async def hint(self, user_id: UserId, version: int, *, request: RequestId | None = None) -> PuzzleSession:
        """Show the piece to move (:meth:`PuzzleSession.hint_square`); the attempt then counts as not solved."""
        before = await self._going(user_id, version)
        if before.hinted:
            return before
        return await self._store.save_puzzle_session(before, replace(before, hinted=True), request=request)

    async def from_review(self, game: GameState, review: GameReview) -> None:
        """Keep the blunders the review of ``game`` found as their players' own puzzles."""
        for user_id, found in own_puzzles(game, review).items():
            await self._store.add_own_puzzles(user_id, {p.id: p.to_json() for p in found})

    def solution_pdn(self, puzzle_id: str) -> str | None:
        """A puzzle of the set with its line as PDN (from its FEN), for the public page; None for no such puzzle
        (a person's own puzzles are theirs, never shown there)."""
        found = shipped_puzzle(puzzle_id) if len(puzzle_id) <= 16 else None
        if found is None:
            return None
        board = Board(found.fen)
        for move in found.solution:
            board.push(board.parse_move(move))
        headers = {"Event": "King Me puzzle", "PuzzleId": found.id, "Themes": " ".join(found.themes)}
        headers["Rating"] = str(found.rating)
        return game_to_pdn(board, headers, "*")

    async def stored(self, user_id: UserId) -> int:
        """How many puzzles the person was given (what ``/checkers privacy`` counts), own puzzles included."""
        return len((await self._store.seen_puzzles(user_id)).keys() | (await self._store.own_puzzles(user_id)).keys())

    async def erase(self, user_id: UserId) -> None:
        """Delete the person's puzzle data: their session, rating, puzzles, votes and daily results."""
        await self._store.erase_puzzle_data(user_id)

    async def vote(self, user_id: UserId, puzzle_id: str, up: bool) -> tuple[int, int]:
        """A vote on a puzzle the person was given: its votes up and down."""
        if puzzle_id not in await self._store.seen_puzzles(user_id):
            raise InvalidRequestError(_("you vote on a puzzle once you have tried it"))
        return await self._store.vote_puzzle(puzzle_id, user_id, up)

    # -- the steps --------------------------------------------------------------------------------------------------

    async def _going(self, user_id: UserId, version: int | None) -> PuzzleSession:
        session = await self._store.load_puzzle_session(user_id)
        if session is None:
            raise InvalidRequestError(NO_PUZZLE)
        if not session.active:
            raise PositionChangedError(STALE if version is not None else NO_PUZZLE)
        if version is not None and version != session.version:
            raise PositionChangedError(STALE)
        return session

    async def _open(
        self,
        before: PuzzleSession | None,
        user_id: UserId,
        chosen: Puzzle,
        source: str,
        *,
        rated: bool,
        request: RequestId | None,
        daily: str | None = None,
    ) -> PuzzleSession:
        stored = await self._store.load_puzzle_rating(chosen.id) if rated else None
        session = PuzzleSession(
            user_id=user_id,
            puzzle_id=chosen.id,
            source=source,
            fen=chosen.fen,
            solution=chosen.solution,
            themes=chosen.themes,
            rated=rated,
            started_at=self._clock(),
            puzzle_rating=(stored or puzzle_start_rating(chosen)).rating if rated else None,
            daily=daily,
        )
        try:
            return await self._store.save_puzzle_session(before, session, request=request)
        except CommitConflict as exc:
            if exc.tag == "version":  # another click opened one meanwhile: it is theirs
                current = await self._store.load_puzzle_session(user_id)
                if current is not None:
                    return current
            raise

    async def _step(self, before: PuzzleSession, after: PuzzleSession, request: RequestId | None) -> PuzzleSession:
        ended = await self._end(before, after, request)
        if not ended.active and ended.daily is not None:
            guild, _sep, day = ended.daily.partition(":")
            await self._daily.record(GuildId(guild), day, ended.user_id, ended.scored_solved)
        return ended

    async def _end(self, before: PuzzleSession, after: PuzzleSession, request: RequestId | None) -> PuzzleSession:
        if after.active or not before.rated:
            return await self._save(before, after, request)
        for _attempt in range(ATTEMPTS):
            player = await self._store.load_puzzle_player(before.user_id)
            puzzle = await self._store.load_puzzle_rating(before.puzzle_id) or self._start_rating(before.puzzle_id)
            outcome = rated_outcome(player, puzzle, after.scored_solved)
            ended = replace(
                after,
                rating_before=player.rating.rating,
                rating_after=outcome.player_after.rating.rating,
                streak=outcome.player_after.streak,
            )
            try:
                return await self._store.save_puzzle_session(before, ended, outcome=outcome, request=request)
            except CommitConflict as exc:
                if exc.tag != "rating":
                    raise PositionChangedError(STALE) from exc
        raise PositionChangedError()

    async def _save(self, before: PuzzleSession, after: PuzzleSession, request: RequestId | None) -> PuzzleSession:
        try:
            return await self._store.save_puzzle_session(before, after, request=request)
        except CommitConflict as exc:
            raise PositionChangedError(STALE) from exc

    def _start_rating(self, puzzle_id: str) -> Rating:
        found = shipped_puzzle(puzzle_id)
        return puzzle_start_rating(found) if found is not None else Rating()

    def _near(self, rating: float, ratings: dict[str, float], seen: dict[str, float]) -> Puzzle:
        """One of the :data:`NEAREST` puzzles of the set nearest ``rating``, never given to the person before (when
        they were given them all, the ones given longest ago)."""
        puzzles = load_puzzles()
        fresh = [p for p in puzzles if p.id not in seen]
        if not fresh:
            oldest = sorted(seen.items(), key=lambda item: item[1])[: max(1, len(seen) // 2)]
            fresh = [p for p in puzzles if p.id in dict(oldest)]
        fresh.sort(key=lambda p: (abs(ratings.get(p.id, float(p.rating)) - rating), p.id))
        return self._rng.choice(fresh[:NEAREST])

    def _own(self, own: dict[str, str], seen: dict[str, float]) -> Puzzle:
        """The person's oldest puzzle of their own not given yet (else the one given longest ago)."""
        if not own:
            raise InvalidRequestError(NO_OWN)
        chosen = min(own, key=lambda pid: (seen.get(pid, 0.0), pid))
        return Puzzle.from_json(json.loads(own[chosen]))


__all__ = ["PuzzleStatus", "Puzzles", "puzzle_start_rating", "rated_outcome"]
