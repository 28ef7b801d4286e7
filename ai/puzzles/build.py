"""The miner: every position of every game through the filter, the verdict and the line, near-duplicates dropped.

For each game (:mod:`ai.puzzles.sources`), in order, each position it passed through:

1. skipped if an earlier one was the same position up to the mirror (:func:`canonical`: the board seen from the side
   to move), or lies on the line of a puzzle already kept (a later step of the same combination), or has a single
   legal move;
2. through the cheap filter (:func:`ai.puzzles.judge.promising`), then the verdict
   (:func:`ai.puzzles.judge.verdict`: exact by the databases where they reach, else the deep searches);
3. its solution followed (:func:`ai.puzzles.line.follow`), and dropped if another puzzle's first move led to the same
   position (the same idea from another start);
4. tagged and rated (:mod:`ai.puzzles.themes`) and given its id, the first eight hex digits of the SHA-256 of its
   canonical position (stable across builds: the same position always gets the same id).

Every search is reproducible (node-limited, with an empty table), so the same games give the same puzzles; they are
written by rating, then id.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ai.puzzles.judge import VERIFY_NODES, promising, verdict
from ai.puzzles.line import follow
from ai.puzzles.record import THEMES, Puzzle
from ai.puzzles.sources import Game, positions
from ai.puzzles.themes import decisions, discovery_depth, rating, themes
from core import Board, Color

REPORT_EVERY = 10
"""Games between two progress lines."""


def canonical(board: Board) -> str:
    """The position seen from the side to move (White's turned half round, the colours swapped), as text: a position
    and its mirror with the other side to move give the same."""
    g = board.variant.geometry
    flip = board.turn is Color.WHITE
    mover, other = (board.white, board.black) if flip else (board.black, board.white)

    def items(pieces: int) -> str:
        squares = sorted((g.squares + 1 - n) if flip else n for n in g.squares_of(pieces))
        kings = {(g.squares + 1 - n) if flip else n for n in g.squares_of(pieces & board.kings)}
        return ",".join(f"K{n}" if n in kings else str(n) for n in squares)

    return f"{items(mover)}/{items(other)}"


def puzzle_id(board: Board) -> str:
    return hashlib.sha256(canonical(board).encode()).hexdigest()[:8]


@dataclass
class Built:
    """What a build found, and what it cost."""

    puzzles: list[Puzzle] = field(default_factory=list)
    games: int = 0
    positions: int = 0
    """Distinct positions looked at (with two legal moves or more)."""
    candidates: int = 0
    """Positions that passed the filter."""
    verified: int = 0
    """Candidates with a verdict (before near-duplicates were dropped)."""
    duplicates: int = 0
    seconds: float = 0.0

    def shares(self) -> dict[str, float]:
        """The share of the puzzles that carry each theme (a puzzle may carry several)."""
        count = len(self.puzzles) or 1
        return {t: sum(t in p.themes for p in self.puzzles) / count for t in THEMES}

    def summary(self) -> str:
        themes = ", ".join(f"{t} {share:.0%}" for t, share in self.shares().items())
        return (
            f"{len(self.puzzles)} puzzles from {self.games} games ({self.positions:,} positions, {self.candidates:,} "
            f"through the filter, {self.verified:,} verified, {self.duplicates} near-duplicates dropped) in "
            f"{self.seconds:.0f} s; themes: {themes}"
        )


def mine(start: Board, nodes: int = VERIFY_NODES) -> Puzzle | None:
    """The puzzle of the position ``start`` (no history), or None if it is none."""
    found = verdict(start, nodes)
    if found is None:
        return None
    solution = follow(start, found, nodes)
    tags = themes(start, solution, found.result, found.margin is None)
    depth = discovery_depth(start, found.move)
    rated = rating(depth, decisions(start, solution), "quiet" in tags, found.result == "draw")
    return Puzzle(
        puzzle_id(start),
        start.fen(),
        solution,
        tags,
        rated,
        found.result,
        found.margin,
        found.depth,
        found.nodes,
    )


def _line_positions(puzzle: Puzzle) -> list[str]:
    """The canonical positions the solver meets after the first move of ``puzzle``'s solution."""
    board = Board(puzzle.fen)
    found = []
    for ply, text in enumerate(puzzle.solution):
        board.push_text(text)
        if ply % 2 == 1:
            found.append(canonical(board))
    return found


def _after_first(puzzle: Puzzle) -> str:
    board = Board(puzzle.fen)
    board.push_text(puzzle.solution[0])
    return canonical(board)


def build(
    games: Iterable[Game],
    *,
    total: int | None = None,
    nodes: int = VERIFY_NODES,
    report: Callable[[str], None] | None = None,
) -> Built:
    """Mine ``games`` (``total`` of them, for the progress lines sent to ``report``)."""
    started = time.perf_counter()
    built = Built()
    seen: set[str] = set()
    after_first: set[str] = set()
    ids: set[str] = set()
    for game in games:
        built.games += 1
        for board in positions(game):
            key = canonical(board)
            if key in seen or len(board.legal_moves) < 2:
                continue
            seen.add(key)
            built.positions += 1
            if not promising(board):
                continue
            built.candidates += 1
            found = mine(board, nodes)
            if found is None:
                continue
            built.verified += 1
            follows = _after_first(found)
            if follows in after_first or found.id in ids:
                built.duplicates += 1
                continue
            after_first.add(follows)
            ids.add(found.id)
            seen.update(_line_positions(found))
            built.puzzles.append(found)
        if report is not None and (built.games % REPORT_EVERY == 0 or built.games == total):
            of = f"/{total}" if total is not None else ""
            report(
                f"{built.games}{of} games: {built.positions:,} positions, {built.candidates:,} through the filter, "
                f"{len(built.puzzles)} puzzles, {time.perf_counter() - started:.0f} s"
            )
    built.puzzles.sort(key=lambda p: (p.rating, p.id))
    built.seconds = time.perf_counter() - started
    return built
