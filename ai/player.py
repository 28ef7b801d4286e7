"""The one interface every AI player has: what it is given, what it answers, and how a game travels to it.

A player is a pure function of (game, limits, random generator) -> :class:`SearchResult`. Games cross process
boundaries as a :class:`GameInput` (variant, initial FEN, moves as PDN text): plain, picklable data from which the
worker rebuilds the board with its history, so the repetition rule is seen by the search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from core import Board


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
    source: str = "search"
    """Where the move came from: ``search``, ``book`` (the opening book: no search, so no depth or nodes) or
    ``solved`` (the mini solver's exact value)."""


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
