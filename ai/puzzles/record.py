"""A puzzle as data: the :class:`Puzzle` record, its JSON line, and the shipped file read once per process.

The file is JSON lines compressed with gzip (``ai/data/puzzles.jsonl.gz``), one puzzle a line, in the order of
:func:`ai.puzzles.build.build` (by rating, then id)::

    {"id":"0e1a5ce9","fen":"W:W11,21,26,27,28,30,31:B4,5,10,12,13,14,19,20","solution":["27-24","20x27",
     "31x24x15x6"],"themes":["shot","quiet"],"rating":700,"result":"win","margin":240,"depth":14,"nodes":300000}

``solution`` alternates the solver's moves (first) and the opponent's replies, in PDN text. ``margin`` is how far (in
the kernel's hundredths of a man) every other first move scores below the solution's in a search of ``nodes`` nodes
that completed ``depth`` plies, or ``"exact"`` when the endgame databases prove the first move the only one that keeps
the result (then ``depth`` and ``nodes`` are left out). Reading needs no numba: the Discord side loads the file as it
is.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

PUZZLES_FILE = Path(__file__).resolve().parent.parent / "data" / "puzzles.jsonl.gz"
MINED_WITH_PATTERNS = False
"""The miner's searches (and their re-check) evaluate with the hand-picked features alone, as when the shipped set was
mined: a margin is a margin of that evaluation. Mining with ``master``'s learned patterns means building the set
again."""
RESULTS = ("win", "draw")
THEMES = {
    "shot": "the solver gives material and takes back more",
    "breakthrough": "a man of the solver's crowns in the line",
    "endgame": "six pieces or fewer, or settled by the endgame databases",
    "defence": "the only move that keeps the draw",
    "capture": "the first move is a capture, chosen among others",
    "quiet": "the first move takes nothing",
}
"""Every theme a puzzle may carry, with what it means."""
EXACT = "exact"


class PuzzleFileError(ValueError):
    """A puzzle line that is not one (bad JSON, a field missing or of the wrong kind)."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: the position, the solution and what it is about."""

    id: str
    fen: str
    """The position, the solver to move."""
    solution: tuple[str, ...]
    """The solver's moves and the opponent's replies, alternating, the solver's first (PDN text)."""
    themes: tuple[str, ...]
    rating: int
    """An initial Glicko-2 rating from the puzzle's difficulty (:func:`ai.puzzles.themes.rating`)."""
    result: str
    """``win`` or ``draw``: what the solution keeps and every other first move loses."""
    margin: int | None
    """How far below the solution every other first move scores (hundredths of a man), or None when the endgame
    databases prove it exactly."""
    depth: int = 0
    """The depth the verifying searches completed (0 for a database puzzle)."""
    nodes: int = 0
    """The verifying searches' budget (0 for a database puzzle)."""

    @property
    def exact(self) -> bool:
        """Proven by the endgame databases rather than by a search."""
        return self.margin is None

    @property
    def solver_moves(self) -> tuple[str, ...]:
        """The moves the solver has to find."""
        return self.solution[::2]

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "id": self.id,
            "fen": self.fen,
            "solution": list(self.solution),
            "themes": list(self.themes),
            "rating": self.rating,
            "result": self.result,
            "margin": EXACT if self.margin is None else self.margin,
        }
        if self.margin is not None:
            data["depth"] = self.depth
            data["nodes"] = self.nodes
        return data

    def to_json(self) -> str:
        return json.dumps(self.as_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Puzzle:
        """The puzzle :meth:`as_json` wrote; :class:`PuzzleFileError` for anything else."""

        def text(name: str) -> str:
            value = data.get(name)
            if not isinstance(value, str) or not value:
                raise PuzzleFileError(f"{name!r} must be a non-empty string")
            return value

        def texts(name: str) -> tuple[str, ...]:
            value = data.get(name)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise PuzzleFileError(f"{name!r} must be a list of strings")
            return tuple(value)

        def number(name: str, default: int | None = None) -> int:
            value = data.get(name, default)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise PuzzleFileError(f"{name!r} must be a whole number, 0 or more")
            return value

        solution = texts("solution")
        if not solution:
            raise PuzzleFileError("'solution' must have a move")
        themes = texts("themes")
        unknown = sorted(set(themes) - THEMES.keys())
        if unknown:
            raise PuzzleFileError(f"unknown themes {unknown}")
        result = text("result")
        if result not in RESULTS:
            raise PuzzleFileError(f"'result' must be one of {RESULTS}")
        margin = None if data.get("margin") == EXACT else number("margin")
        exact = margin is None
        return cls(
            text("id"),
            text("fen"),
            solution,
            themes,
            number("rating"),
            result,
            margin,
            0 if exact else number("depth"),
            0 if exact else number("nodes"),
        )


def parse_lines(lines: Iterable[str]) -> tuple[Puzzle, ...]:
    """The puzzles of JSON lines (blank lines skipped); :class:`PuzzleFileError` names the first bad line."""
    puzzles = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise PuzzleFileError("a line must hold a JSON object")
            puzzles.append(Puzzle.from_json(data))
        except (ValueError, PuzzleFileError) as exc:
            raise PuzzleFileError(f"line {number}: {exc}") from None
    return tuple(puzzles)


def read(path: Path) -> tuple[Puzzle, ...]:
    """The puzzles of a ``.jsonl`` or ``.jsonl.gz`` file."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return parse_lines(data.decode("utf-8").splitlines())


def write(puzzles: Iterable[Puzzle], path: Path) -> int:
    """Write ``puzzles`` to ``path`` (gzip-compressed if its name ends in ``.gz``, with no time stamp, so the same
    puzzles always make the same bytes); the file's size in bytes."""
    text = "".join(p.to_json() + "\n" for p in puzzles).encode("utf-8")
    if path.suffix == ".gz":
        text = gzip.compress(text, compresslevel=9, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(text)
    partial.replace(path)
    return path.stat().st_size


@functools.cache
def _shipped() -> dict[str, Puzzle]:
    return {p.id: p for p in read(PUZZLES_FILE)}


def load_puzzles(path: Path | None = None) -> tuple[Puzzle, ...]:
    """Every puzzle of ``path`` (default: the shipped set, read once per process), in the file's order."""
    if path is None:
        return tuple(_shipped().values())
    return read(path)


def puzzle(puzzle_id: str) -> Puzzle | None:
    """The shipped puzzle ``puzzle_id``, or None."""
    return _shipped().get(puzzle_id)
