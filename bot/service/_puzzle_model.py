"""A puzzle being solved, as plain data, and the pure steps of solving it.

A :class:`PuzzleSession` is one person's attempt at one puzzle: the position, the line (the solver's moves and the
replies, alternating, the solver's first), the moves played so far and how it ended. Each person has at most one
session at a time; it is stored as a versioned record (:class:`~bot.service.PuzzleRecords`), every change a
compare-and-set on its version. :func:`play` is the one step of the solver's move: the right move plays the reply
for them (or ends the puzzle solved), any other ends it failed, with the line kept to be shown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.service._ids import UserId
from bot.service._models import Rating, replayed
from core import Board, Color

SOURCES = ("set", "mine")
"""Where a puzzle comes from: the shipped set (``ai/data/puzzles.jsonl.gz``) or the person's own mistakes."""
PUZZLE_RD = 350.0
"""A puzzle's deviation before anyone has tried it (its rating is the file's: ``docs/puzzles.md``)."""


class PuzzleStatus(StrEnum):
    ACTIVE = "active"
    SOLVED = "solved"
    FAILED = "failed"


@dataclass(frozen=True)
class PuzzleSession:
    """One person's attempt at one puzzle (see the module)."""

    user_id: UserId
    puzzle_id: str
    source: str
    fen: str
    solution: tuple[str, ...]
    themes: tuple[str, ...] = ()
    variant: str = "american"
    played: tuple[str, ...] = ()
    """The moves played from ``fen`` so far: the solver's and the replies."""
    status: PuzzleStatus = PuzzleStatus.ACTIVE
    wrong: str | None = None
    """The solver's wrong move, when they played one (None when they gave up)."""
    hinted: bool = False
    """A hint was shown: the attempt then counts as not solved (it can still be finished)."""
    rated: bool = True
    """The person's first attempt at a puzzle of the set: it moves their puzzle rating and the puzzle's."""
    version: int = 0
    started_at: float = 0.0
    rating_before: float | None = None
    rating_after: float | None = None
    """The solver's puzzle rating before and after a rated attempt (set when it ends)."""
    puzzle_rating: float | None = None
    """The puzzle's rating when the attempt began."""
    streak: int = 0
    """The solver's streak of rated puzzles solved, after this attempt ended."""
    daily: str | None = None
    """``{server}:{yyyymmdd}`` for a server's daily puzzle (its result counts in the server's table)."""

    @property
    def active(self) -> bool:
        return self.status is PuzzleStatus.ACTIVE

    @property
    def solved(self) -> bool:
        return self.status is PuzzleStatus.SOLVED

    @property
    def scored_solved(self) -> bool:
        """Solved without a hint: what the ratings and the streak count as a solve."""
        return self.solved and not self.hinted

    @property
    def solver(self) -> Color:
        return Board(self.fen, self.variant).turn

    def board(self) -> Board:
        """The position now (a copy the caller may change)."""
        return replayed(self.fen, self.variant, self.played).copy()

    @property
    def expected(self) -> str | None:
        """The solver's next move of the line (None once the puzzle is over)."""
        return self.solution[len(self.played)] if self.active and len(self.played) < len(self.solution) else None

    def hint_square(self) -> int | None:
        """The square of the piece the solver has to move next."""
        expected = self.expected
        if expected is None:
            return None
        move = self.board().parse_move(expected)
        return move.start if move.path else None

    def to_json(self) -> str:
        data = {
            "user": self.user_id,
            "puzzle": self.puzzle_id,
            "source": self.source,
            "fen": self.fen,
            "solution": list(self.solution),
            "themes": list(self.themes),
            "variant": self.variant,
            "played": list(self.played),
            "status": self.status.value,
            "wrong": self.wrong,
            "hinted": self.hinted,
            "rated": self.rated,
            "started_at": self.started_at,
            "before": self.rating_before,
            "after": self.rating_after,
            "puzzle_rating": self.puzzle_rating,
            "streak": self.streak,
            "daily": self.daily,
        }
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, version: int) -> PuzzleSession:
        """A stored session; raises ``ValueError`` (or ``KeyError``, ``TypeError``) on a record that is not one."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a puzzle session is a JSON object")
        return cls(
            user_id=UserId(str(data["user"])),
            puzzle_id=str(data["puzzle"]),
            source=str(data["source"]),
            fen=str(data["fen"]),
            solution=tuple(str(m) for m in data["solution"]),
            themes=tuple(str(t) for t in data.get("themes", ())),
            variant=str(data.get("variant", "american")),
            played=tuple(str(m) for m in data.get("played", ())),
            status=PuzzleStatus(data.get("status", "active")),
            wrong=_text_or_none(data.get("wrong")),
            hinted=bool(data.get("hinted", False)),
            rated=bool(data.get("rated", False)),
            version=version,
            started_at=float(data.get("started_at", 0.0)),
            rating_before=_float_or_none(data.get("before")),
            rating_after=_float_or_none(data.get("after")),
            puzzle_rating=_float_or_none(data.get("puzzle_rating")),
            streak=int(data.get("streak", 0)),
            daily=_text_or_none(data.get("daily")),
        )


def _text_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _float_or_none(value: object) -> float | None:
    return None if value is None else float(str(value))


@dataclass(frozen=True)
class PuzzlePlayer:
    """A person's puzzle record: the Glicko-2 rating (``games``: rated attempts, ``wins``: solved, ``losses``:
    failed) and the streak of rated puzzles solved in a row, with the best one."""

    rating: Rating = field(default_factory=Rating)
    streak: int = 0
    best_streak: int = 0


def play(session: PuzzleSession, text: str) -> PuzzleSession:
    """The solver plays ``text`` (raises the rules' errors for a move that is not legal): the line's move plays the
    reply for them, or ends the puzzle solved; any other legal move ends it failed. The version is left as it was."""
    expected = session.expected
    if expected is None:
        raise ValueError("the puzzle is over")
    board = session.board()
    move = board.parse_move(text)
    if move != board.parse_move(expected):
        return replace(session, status=PuzzleStatus.FAILED, wrong=move.text())
    played = (*session.played, expected)
    if len(played) < len(session.solution):
        played = (*played, session.solution[len(played)])  # the opponent's reply
    if len(played) >= len(session.solution):
        return replace(session, played=played, status=PuzzleStatus.SOLVED)
    return replace(session, played=played)


def give_up(session: PuzzleSession) -> PuzzleSession:
    return replace(session, status=PuzzleStatus.FAILED, wrong=None)
