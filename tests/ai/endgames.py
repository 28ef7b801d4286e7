"""An independent solver of small endings for the database tests: every position of up to three pieces of English
draughts, solved with ``core``'s move generator in plain Python, to the distance of the end of the game.

It shares nothing with the kernel's retrograde analysis but the rules' reference: positions are ``core`` bitboards
with either side to move (no turning of the board, no index), moves are ``core``'s, and the values come from a
breadth-first search backwards from the finished games, so each win is as short as the winner can make it and each
loss as long as the loser can.
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from dataclasses import dataclass

from core import AMERICAN

Position = tuple[int, int, int, bool]
"""Black's pieces, White's pieces, the kings, and whether Black moves."""


@dataclass(frozen=True)
class Solved:
    """Every position of up to ``pieces`` pieces where both sides have one, with its value for the side to move."""

    pieces: int
    wins: dict[Position, int]
    """Won positions and the plies to the end of the game with the quickest win."""
    losses: dict[Position, int]
    """Lost positions and the plies to the end with the longest defence."""
    draws: set[Position]

    def successors(self, position: Position) -> list[Position]:
        return _successors(position)


def _successors(position: Position) -> list[Position]:
    black_pieces, white_pieces, kings, black = position
    me, opp = (black_pieces, white_pieces) if black else (white_pieces, black_pieces)
    children = []
    for move in AMERICAN.generator.moves(me, opp, kings, black):
        c_me, c_opp, c_kings = AMERICAN.generator.apply(me, opp, kings, black, move)
        children.append((c_me, c_opp, c_kings, False) if black else (c_opp, c_me, c_kings, True))
    return children


def positions(pieces: int) -> list[Position]:
    """Every position of 2 to ``pieces`` pieces with a piece of each side, men off their crowning row."""
    g = AMERICAN.geometry
    found = []
    for n in range(2, pieces + 1):
        for squares in itertools.combinations(range(1, 33), n):
            for kinds in itertools.product("bBwW", repeat=n):
                if not ({"b", "B"} & set(kinds) and {"w", "W"} & set(kinds)):
                    continue
                if any((k == "b" and s > 28) or (k == "w" and s < 5) for k, s in zip(kinds, squares, strict=True)):
                    continue
                black = white = kings = 0
                for kind, square in zip(kinds, squares, strict=True):
                    bit = g.bit_of_square[square]
                    if kind in "bB":
                        black |= bit
                    else:
                        white |= bit
                    if kind in "BW":
                        kings |= bit
                found.extend(((black, white, kings, True), (black, white, kings, False)))
    return found


@functools.cache
def solve(pieces: int) -> Solved:
    """Solve every position of up to ``pieces`` pieces (3 takes some seconds)."""
    universe = positions(pieces)
    predecessors: dict[Position, list[Position]] = defaultdict(list)
    open_moves: dict[Position, int] = {}
    wins: dict[Position, int] = {}
    losses: dict[Position, int] = {}
    frontier: list[Position] = []  # the lost positions of distance 0
    for position in universe:
        children = _successors(position)
        if not children:
            losses[position] = 0
            frontier.append(position)
            continue
        for child in children:
            black_pieces, white_pieces, _, black = child
            if not (black_pieces if black else white_pieces):
                wins[position] = 1  # it takes the last piece
                break
            predecessors[child].append(position)
        else:
            open_moves[position] = len(children)
    layers: dict[int, list[Position]] = defaultdict(list, {0: frontier, 1: list(wins)})
    distance = 0
    while distance in layers:
        for position in layers[distance]:
            lost = position in losses
            for before in predecessors.get(position, ()):
                if before in wins or before in losses:
                    continue
                if lost:
                    wins[before] = distance + 1
                    layers[distance + 1].append(before)
                else:
                    open_moves[before] -= 1
                    if open_moves[before] == 0:
                        losses[before] = distance + 1
                        layers[distance + 1].append(before)
        distance += 1
    draws = {p for p in universe if p not in wins and p not in losses}
    return Solved(pieces, wins, losses, draws)
