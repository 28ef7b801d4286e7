"""The store's port for puzzles (:class:`PuzzleRecords`), beside the other ports of :mod:`bot.service._ports`.

Every write is one atomic, guarded step: a session's on its version, a rating's on its count of rated attempts, so
two processes (or a click sent twice) never apply an attempt twice. A refused guard raises
:class:`~bot.service.CommitConflict` with the tag ``version`` (the session) or ``rating`` (a rating).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.service._ids import RequestId, UserId
from bot.service._models import Rating
from bot.service._puzzle_model import PuzzlePlayer, PuzzleSession


@dataclass(frozen=True)
class PuzzleOutcome:
    """What a finished rated attempt changes, written with the session in one step: the player's record and the
    puzzle's rating before (the guards) and after."""

    player_before: PuzzlePlayer
    player_after: PuzzlePlayer
    puzzle_before: Rating
    puzzle_after: Rating


class PuzzleRecords(Protocol):
    async def load_puzzle_session(self, user_id: UserId) -> PuzzleSession | None:
        """The person's current or last puzzle session (None when none, or when it is unreadable)."""
        ...

    async def save_puzzle_session(
        self,
        before: PuzzleSession | None,
        after: PuzzleSession,
        *,
        outcome: PuzzleOutcome | None = None,
        request: RequestId | None = None,
    ) -> PuzzleSession:
        """Replace ``before`` (None: whatever finished session there is) with ``after`` at the next version, and with
        ``outcome`` the ratings; a new rated session marks its puzzle as seen by the person. With ``request``, at most
        once for that key (sent again, it writes nothing and returns the same)."""
        ...

    async def load_puzzle_player(self, user_id: UserId) -> PuzzlePlayer: ...

    async def load_puzzle_rating(self, puzzle_id: str) -> Rating | None:
        """A puzzle's rating once someone has tried it (None before)."""
        ...

    async def puzzle_ratings(self) -> dict[str, float]:
        """The rating of every puzzle someone has tried."""
        ...

    async def seen_puzzles(self, user_id: UserId) -> dict[str, float]:
        """The puzzles the person was given, with when."""
        ...

    async def vote_puzzle(self, puzzle_id: str, user_id: UserId, up: bool) -> tuple[int, int]:
        """Record the person's vote (one per person, the last counts); the puzzle's votes up and down."""
        ...

    async def add_own_puzzles(self, user_id: UserId, puzzles: dict[str, str]) -> int:
        """Keep the person's own puzzles (id -> JSON line of :class:`ai.puzzles.Puzzle`), the newest kept; returns
        how many were new."""
        ...

    async def own_puzzles(self, user_id: UserId) -> dict[str, str]: ...
