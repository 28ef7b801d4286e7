"""The store's port for puzzles (:class:`PuzzleRecords`), beside the other ports of :mod:`bot.service._ports`.

Every write is one atomic, guarded step: a session's on its version, a rating's on its count of rated attempts, so
two processes (or a click sent twice) never apply an attempt twice. A refused guard raises
:class:`~bot.service.CommitConflict` with the tag ``version`` (the session) or ``rating`` (a rating).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.service._ids import ChannelId, GuildId, RequestId, UserId
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


class DailyRecords(Protocol):
    """The servers' daily puzzles (:mod:`bot.service._daily`)."""

    async def set_daily(self, guild_id: GuildId, channel_id: ChannelId, hour: int) -> None: ...

    async def drop_daily(self, guild_id: GuildId) -> None: ...

    async def daily_servers(self) -> dict[GuildId, tuple[ChannelId, int]]:
        """Every server with a daily puzzle: its channel and hour."""
        ...

    async def claim_daily(self, guild_id: GuildId, day: str, puzzle_id: str, lease: float) -> str | None:
        """Take the post of the server's puzzle of ``day`` for ``lease`` seconds: the puzzle to post (``puzzle_id``
        when the day has none yet; the day's own when it was claimed but never posted), or None when the day is posted
        or another caller holds the lease (each an atomic write)."""
        ...

    async def daily_pending(self, guild_id: GuildId, day: str) -> bool:
        """Whether the day's post is claimed but not known to be made."""
        ...

    async def daily_posted(self, guild_id: GuildId, day: str) -> None:
        """The day's post is made (or cannot be): nobody posts it again."""
        ...

    async def daily_puzzle(self, guild_id: GuildId, day: str) -> str | None: ...

    async def daily_history(self, guild_id: GuildId) -> dict[str, str]:
        """The server's puzzles of the past days (``yyyymmdd`` -> puzzle id)."""
        ...

    async def record_daily(self, guild_id: GuildId, day: str, user_id: UserId, solved: bool) -> bool:
        """Record the person's result of the day unless one is recorded: true when this one was."""
        ...

    async def daily_results(self, guild_id: GuildId, day: str) -> dict[UserId, bool]: ...

    async def daily_streaks(self, guild_id: GuildId) -> dict[UserId, tuple[int, str, int]]:
        """Each person's streak, the last day they answered, and how many daily puzzles they solved."""
        ...

    async def set_daily_streak(
        self, guild_id: GuildId, user_id: UserId, streak: int, last: str, solved: int
    ) -> None: ...


class PuzzleRecords(DailyRecords, Protocol):
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

    async def erase_puzzle_data(self, user_id: UserId) -> None:
        """Delete the person's puzzle keys, their votes and their results and streaks in every server's daily
        puzzle."""
        ...
