"""A finished game as the list of its positions, for the replay page: read from its PDN with core, on the server.

The page's script only draws what it is given, so the rules live in one place (``core``) and the replay shows the
positions the engine itself went through.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.web import JSON
from core import Board, Color, read_pdn


@dataclass(frozen=True)
class Position:
    """One position of the game: after ``ply`` moves (0 is the start), reached by ``move``."""

    ply: int
    move: str | None
    """The PDN text of the move that led here (None for the start)."""
    mover: str | None
    """``black`` or ``white``: who played ``move``."""
    fen: str
    cells: str
    """Row by row from Black's side, one character a square: ``b``/``w`` men, ``B``/``W`` kings, ``.`` an empty dark
    square, a space a light one."""
    path: tuple[int, ...]
    """The squares ``move`` went through (start first)."""
    captures: tuple[int, ...]

    def as_json(self) -> dict[str, JSON]:
        return {
            "ply": self.ply,
            "move": self.move,
            "mover": self.mover,
            "fen": self.fen,
            "cells": self.cells,
            "path": list(self.path),
            "captures": list(self.captures),
        }


@dataclass(frozen=True)
class Replay:
    headers: dict[str, str]
    result: str
    variant: str
    size: int
    numbers: tuple[tuple[int | None, ...], ...]
    """The PDN number of each square, row by row (None for a light square)."""
    positions: tuple[Position, ...]

    def as_json(self) -> dict[str, JSON]:
        return {
            "headers": self.headers,
            "result": self.result,
            "variant": self.variant,
            "size": self.size,
            "numbers": [list(row) for row in self.numbers],
            "positions": [p.as_json() for p in self.positions],
        }


def _cells(board: Board) -> str:
    g = board.variant.geometry
    out = []
    for row in range(g.size):
        for col in range(g.size):
            square = g.square_at(row, col)
            if square is None:
                out.append(" ")
                continue
            piece = board.piece_at(square)
            out.append(piece.symbol() if piece is not None else ".")
    return "".join(out)


def replay(pdn: str) -> Replay:
    """Every position of the (first) game in ``pdn``, from its initial position through its last move.

    Raises :class:`core.InvalidPdnError` for text that is not a game.
    """
    game = read_pdn(pdn)[0]
    played = game.board
    board = Board(played.initial_fen, played.variant)
    g = board.variant.geometry
    positions = [Position(0, None, None, board.fen(), _cells(board), (), ())]
    for ply, move in enumerate(played.move_stack, start=1):
        mover = "black" if board.turn is Color.BLACK else "white"
        board.push(move)
        positions.append(Position(ply, move.text(), mover, board.fen(), _cells(board), move.path, move.captures))
    numbers = tuple(tuple(g.square_at(row, col) for col in range(g.size)) for row in range(g.size))
    return Replay(dict(game.headers), game.result, board.variant.name, g.size, numbers, tuple(positions))
