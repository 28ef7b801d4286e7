"""Where a level's lost games went wrong, with a CheckerBoard engine as the judge.

    python benchmarks/judge.py games.pdn --engine guinn.so [--level master] [--time 0.15] [--plies 90]

``games.pdn`` is what ``benchmarks/engines.py --pdn`` writes. For every game the level lost (its name opens the
Black or White tag), the engine evaluates each position of the first ``--plies`` plies, ``--time`` seconds each,
from its status line ("Eval: N", in the engine's own units, for Black when positive, as GuiNN Checkers writes it).
For each game the report gives the first ply at which the judge scores the level's side at or below each of
:data:`THRESHOLDS`, and the level's moves that cost the most by the judge; then the median of those plies over the
games. An engine in its opening book reports 0, so the first plies of a line it knows say nothing.

This is how issue 25 found that ``master``'s losses to GuiNN are decided early: the judge called them −100 or worse
at ply 28 of a game (the median), a few plies after GuiNN's book ran out, while the first king came at ply 42.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.engines import Engine, engine_for
from core import Board, Color
from core.pdn import PdnGame, read_pdn

THRESHOLDS = (50, 100, 200)
"""The judge's scores (its own units, against the level's side) whose first ply the report gives."""
EVAL = re.compile(r"eval:?\s+(-?\d+)", re.IGNORECASE)
"""The evaluation in an engine's status line."""


@dataclass(frozen=True)
class Judged:
    """One lost game as the judge saw it: its number in the file, the level's colour, the position before each ply
    in FEN and the move played from it, and the judge's score of each position for the level's side (None where
    its status line gave none)."""

    number: int
    color: Color
    fens: tuple[str, ...]
    moves: tuple[str, ...]
    scores: tuple[int | None, ...]

    def first_at(self, threshold: int) -> int | None:
        """The first ply at which the judge scores the level's side at ``-threshold`` or below."""
        return next((ply for ply, s in enumerate(self.scores) if s is not None and s <= -threshold), None)

    def costly(self, count: int = 3) -> list[tuple[int, int]]:
        """The level's moves that lost the most by the judge: (loss, ply), largest first."""
        losses = []
        for ply in range(len(self.scores) - 1):
            before, after = self.scores[ply], self.scores[ply + 1]
            if before is not None and after is not None and Board(self.fens[ply]).turn is self.color:
                losses.append((before - after, ply))
        return sorted(losses, reverse=True)[:count]


def lost_by(game: PdnGame, level: str) -> Color | None:
    """The level's colour if it lost ``game``, else None."""
    for color, tag, lost in ((Color.BLACK, "Black", "0-1"), (Color.WHITE, "White", "1-0")):
        if game.headers.get(tag, "").split("@")[0] == level.split("@")[0] and game.result == lost:
            return color
    return None


def judge(engine: Engine, number: int, game: PdnGame, color: Color, seconds: float, plies: int) -> Judged:
    """The judge's score of each position of the first ``plies`` plies of ``game`` for ``color``."""
    board = Board(game.board.initial_fen, game.board.variant)
    moves = [move.text() for move in game.board.move_stack][:plies]
    fens, scores = [], []
    for ply, text in enumerate(moves):
        reply = engine.move(board, seconds, new_game=ply == 0)
        found = EVAL.search(str(reply.get("status", "")))
        score = None if found is None else int(found.group(1))
        fens.append(board.fen())
        scores.append(None if score is None else score if color is Color.BLACK else -score)
        board.push_text(text)
    return Judged(number, color, tuple(fens), tuple(moves), tuple(scores))


def report(judged: Sequence[Judged]) -> list[str]:
    lines = []
    for game in judged:
        firsts = ", ".join(f"≤ −{t}: {game.first_at(t)}" for t in THRESHOLDS)
        costly = ", ".join(f"{game.moves[ply]} at ply {ply} ({-loss:+d})" for loss, ply in game.costly())
        lines.append(f"game {game.number} ({game.color.label}): first ply {firsts}; costliest: {costly}")
    for t in THRESHOLDS:
        found = [p for game in judged if (p := game.first_at(t)) is not None]
        median = f"ply {statistics.median(found):g} (the median)" if found else "never"
        lines.append(f"judged at −{t} or worse in {len(found)} of {len(judged)} lost games, first at {median}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="where a level's lost games went wrong, judged by an engine")
    parser.add_argument("pdn", type=Path, help="games written by benchmarks/engines.py --pdn")
    parser.add_argument("--engine", required=True, metavar="PATH", help="the judge, a CheckerBoard engine library")
    parser.add_argument("--level", default="master", help="the level whose lost games are judged (default master)")
    parser.add_argument("--time", type=float, default=0.15, help="seconds a position (default 0.15)")
    parser.add_argument("--plies", type=int, default=90, help="plies judged from each game's start (default 90)")
    args = parser.parse_args(argv)
    if not Path(args.engine).is_file():
        parser.error(f"no engine library at {args.engine}")
    games = read_pdn(args.pdn.read_text(encoding="utf-8"))
    engine = engine_for(str(Path(args.engine).resolve()))
    judged = []
    try:
        for number, game in enumerate(games, start=1):
            if (color := lost_by(game, args.level)) is not None:
                judged.append(judge(engine, number, game, color, args.time, args.plies))
                print(report(judged[-1:])[0], flush=True)
    finally:
        engine.close()
    for line in report(judged)[len(judged) :]:
        print(line)


if __name__ == "__main__":
    main()
