"""The one interface every AI player has, and the registry of named levels.

A player is a pure function of (game, limits, seed) -> :class:`SearchResult`. Games cross process boundaries as a
:class:`GameInput` (variant, initial FEN, moves as PDN text): plain, picklable data from which the worker rebuilds the
board with its history, so the repetition rule is seen by the search. :func:`choose_move` is the module-level function a
worker process runs.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from core import Board, RulesError


@dataclass(frozen=True)
class Limits:
    """How much a search may spend. ``None`` means no limit of that kind; a level fills in its own defaults."""

    time: float | None = None
    """Seconds of thinking for this move."""
    depth: int | None = None
    """Plies of nominal search depth."""
    nodes: int | None = None
    """Positions visited."""


@dataclass(frozen=True)
class SearchResult:
    """What a player decided and how it got there."""

    move: str
    """The chosen move in PDN text, as :meth:`core.Move.text` writes it."""
    score: float = 0.0
    """The player's evaluation of the position for the side to move (its own scale; larger is better)."""
    depth: int = 0
    """The deepest completed search iteration (0 for players that do not search)."""
    pv: tuple[str, ...] = ()
    """The principal variation, starting with ``move``."""
    nodes: int = 0
    """Positions visited."""
    time: float = 0.0
    """Seconds spent."""


@dataclass(frozen=True)
class GameInput:
    """A game as plain data: where it started and the moves played since."""

    variant: str
    fen: str
    moves: tuple[str, ...] = ()

    @classmethod
    def from_board(cls, board: Board) -> GameInput:
        return cls(board.variant.name, board.initial_fen, tuple(m.text() for m in board.move_stack))

    def board(self) -> Board:
        """The board with every move pushed (raises :class:`core.RulesError` on bad data)."""
        board = Board(self.fen, self.variant)
        for text in self.moves:
            board.push_text(text)
        return board


class Player(Protocol):
    """A level's move chooser. It may keep state between moves of one game but must be picklable."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        """The move to play in ``board`` (which has at least one legal move). ``board`` may be changed during the
        call but must be restored before returning."""
        ...


@dataclass(frozen=True)
class Level:
    """A named AI level in the registry."""

    name: str
    summary: str
    """One line on how it plays, for the README, ``/checkers help`` and the level choices."""
    factory: Callable[[], Player]
    default_limits: Limits = field(default_factory=Limits)
    max_time: float = 10.0
    """The most thinking time per move the level accepts from a caller."""


_LEVELS: dict[str, Level] = {}


class UnknownLevelError(RulesError):
    """A level name that the registry does not know."""


def register(level: Level) -> Level:
    """Add a level to the registry (each module of players registers its own levels on import)."""
    _LEVELS[level.name] = level
    return level


def levels() -> dict[str, Level]:
    """Every registered level, by name, in registration order."""
    import ai.levels  # noqa: F401  (registers the built-in levels)

    return dict(_LEVELS)


def get_level(name: str) -> Level:
    """The level called ``name``."""
    known = levels()
    try:
        return known[name.strip().lower()]
    except KeyError:
        raise UnknownLevelError(f"unknown AI level {name!r}: choose one of {', '.join(known)}") from None


def merge_limits(level: Level, limits: Limits | None) -> Limits:
    """The caller's limits over the level's defaults, with the time clamped to the level's maximum."""
    base = level.default_limits
    if limits is None:
        return base
    time = limits.time if limits.time is not None else base.time
    if time is not None:
        time = max(0.01, min(time, level.max_time))
    return Limits(
        time=time,
        depth=limits.depth if limits.depth is not None else base.depth,
        nodes=limits.nodes if limits.nodes is not None else base.nodes,
    )


def choose_move(level: str, game: GameInput, limits: Limits | None = None, seed: int = 0) -> SearchResult:
    """Pick a move for the side to move in ``game`` with the named level: the function a worker process runs.

    Raises :class:`UnknownLevelError`, :class:`core.RulesError` for a bad game, or :class:`ValueError` when the game
    has no legal move.
    """
    spec = get_level(level)
    board = game.board()
    if not board.legal_moves:
        raise ValueError("the game is over: there is no move to choose")
    player = spec.factory()
    return player.choose(board, merge_limits(spec, limits), random.Random(seed))
