"""Puzzles mined by our own engine: positions where exactly one move keeps the win (or the draw).

The shipped set is ``ai/data/puzzles.jsonl.gz``, built by ``kingme puzzles build`` (``docs/puzzles.md`` tells how and
why). This package's top level only reads it, without numba: :func:`load_puzzles`, :func:`puzzle` and the
:class:`Puzzle` record (:mod:`ai.puzzles.record`). The miner is :mod:`ai.puzzles.build`, with its parts beside it:
:mod:`~ai.puzzles.sources` (the games), :mod:`~ai.puzzles.judge` (the filter and the verdict),
:mod:`~ai.puzzles.line` (the solution) and :mod:`~ai.puzzles.themes` (themes and rating); they use the kernel.
"""

from ai.puzzles.record import PUZZLES_FILE, THEMES, Puzzle, PuzzleFileError, load_puzzles, puzzle

__all__ = ["PUZZLES_FILE", "THEMES", "Puzzle", "PuzzleFileError", "load_puzzles", "puzzle"]
