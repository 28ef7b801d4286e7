"""How good a level's moves are, each judged by a CheckerBoard engine: a finer measure than a match.

    python benchmarks/move_quality.py judge games.pdn [more.pdn ...] --engine guinn.so --out judged.json
        [--positions 400] [--from 10] [--to 80] [--time 0.3] [--jobs 2] [--seed 0]
    python benchmarks/move_quality.py score judged.json master [master@REVISION ...] [--time 0.1] [--jobs 2]

A match of 80 games tells two versions of ``master`` apart only by about 5 points of score either way, and a change
that is worth less is lost in that noise. Here every position is scored once and for all by a stronger engine, and a
candidate is measured by the moves it chooses in the same positions: the positions where two candidates choose
differently are the whole comparison, paired, and nothing else varies.

``judge`` picks ``--positions`` positions at random (``--seed``) from the games (what ``benchmarks/engines.py --pdn``
writes: the positions a match against that engine reaches), between plies ``--from`` and ``--to``, either side to
move, leaving out those ``master`` plays from its opening book, those its endgame databases hold and those with a
single legal move. Then the judge scores every legal move of each: its evaluation of the position after the move
(``--time`` seconds, its status line's "Eval: N"; a forced reply is played first), for the side that moved, clipped
to ±:data:`CAP` (a won or lost position is no more won for a bigger number). An engine should judge without its
opening book: the judge's folder holds its library and its evaluation files, not its book.

``score`` lets each level choose its move in every position (``--time`` seconds, with the game's moves before it, so
repetitions are known) and reports, per level: the mean *loss* (the judge's score of its best move minus that of the
move chosen), how often it chose the judge's best move, how often it lost 50 or more and 100 or more (in the judge's
units: 100 is about a man for GuiNN Checkers), and each level's mean loss minus the first level's, with its standard
error over the positions (the two measured in the same positions); then each level's mean loss in each phase of the game
(kings on the board or not, and how many pieces), which says where the losses are.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai.api import Limits, get_level, merge_limits, warm_up
from ai.book import shipped
from ai.egdb import loaded
from benchmarks import master_patterns, python_master  # noqa: F401  (register their hidden levels)
from benchmarks.engines import VARIANT, Engine, check_level, engine_for, identify
from benchmarks.judge import EVAL
from benchmarks.revision_worker import Client as RevisionClient
from benchmarks.revision_worker import split
from core import Board, Color
from core.pdn import read_pdn

CAP = 400
"""The judge's scores are clipped to ±CAP: past it a position is won or lost, whatever the number."""
FORMAT = 1
ENGINE = "engine:"
"""A "level" named ``engine:PATH`` is a CheckerBoard engine library, measured as the levels are."""


def board_after(moves: Sequence[str]) -> Board:
    """The board after ``moves`` from the start position."""
    board = Board(variant=VARIANT)
    for text in moves:
        board.push_text(text)
    return board


@dataclass(frozen=True)
class Position:
    """A judged position: where it comes from, the game's moves up to it (from the start) and each legal move's
    score by the judge, for the side to move."""

    game: int
    ply: int
    moves: tuple[str, ...]
    scores: dict[str, int]

    def board(self) -> Board:
        return board_after(self.moves)

    def best(self) -> int:
        return max(self.scores.values())

    def loss(self, move: str) -> int:
        """How much worse than the judge's best the move is (0 for a best move)."""
        return self.best() - self.scores[move]


# -- picking the positions --------------------------------------------------------------------------------------------


def candidates(pdns: Sequence[Path], first: int, last: int) -> list[tuple[int, int, tuple[str, ...]]]:
    """Every position of the games between plies ``first`` and ``last`` that a level has to search: (game, ply,
    moves from the start). The games must start from the standard position, as a match's do."""
    book = shipped()
    db = loaded()
    pieces = int(db[0]) if db is not None else 0
    found = []
    number = 0
    for path in pdns:
        for game in read_pdn(path.read_text(encoding="utf-8")):
            number += 1
            if game.board.initial_fen != Board(variant=VARIANT).fen():
                raise SystemExit(f"move_quality.py: game {number} of {path} does not start from the start position")
            board = Board(variant=VARIANT)
            moves = [move.text() for move in game.board.move_stack]
            for ply, text in enumerate(moves):
                if ply > last:
                    break
                if (
                    ply >= first
                    and len(board.legal_moves) > 1
                    and board.count(Color.BLACK) + board.count(Color.WHITE) > pieces
                    and not book.playable(board)
                ):
                    found.append((number, ply, tuple(moves[:ply])))
                board.push_text(text)
    return found


# -- judging --------------------------------------------------------------------------------------------------------


def scores_of(engine: Engine, board: Board, seconds: float) -> dict[str, int]:
    """Every legal move of ``board`` scored by ``engine`` for the side to move, clipped to ±:data:`CAP`."""
    mover = board.turn
    scores = {}
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        while (outcome := child.outcome()) is None and len(child.legal_moves) == 1:
            child.push(child.legal_moves[0])  # a forced move: the judge says nothing of a position without choice
        if outcome is not None:
            score = 0 if outcome.winner is None else CAP if outcome.winner is mover else -CAP
        else:
            status = str(engine.move(child, seconds, new_game=True).get("status", ""))
            found = EVAL.search(status)
            if found is None:
                raise RuntimeError(f"the judge gave no evaluation of {child.fen()}: {status!r}")
            black = int(found.group(1))
            score = black if mover is Color.BLACK else -black
        scores[move.text()] = max(-CAP, min(CAP, score))
    return scores


def judge_position(engine: Engine, game: int, ply: int, moves: tuple[str, ...], seconds: float) -> Position:
    """The position after ``moves`` (from the start), every legal move scored by ``engine``."""
    return Position(game, ply, moves, scores_of(engine, board_after(moves), seconds))


def _judge_task(task: tuple[str, float, int, int, tuple[str, ...]]) -> Position:
    library, seconds, game, ply, moves = task
    return judge_position(engine_for(library), game, ply, moves, seconds)


def judge(
    pdns: Sequence[Path], library: str, count: int, first: int, last: int, seconds: float, jobs: int, seed: int
) -> list[Position]:
    pool = candidates(pdns, first, last)
    if not pool:
        raise SystemExit("move_quality.py: no position to judge in those games and plies")
    chosen = sorted(random.Random(seed).sample(pool, min(count, len(pool))))
    tasks = [(library, seconds, game, ply, moves) for game, ply, moves in chosen]
    with ProcessPoolExecutor(max_workers=jobs) as executor:
        judged = []
        for done, position in enumerate(executor.map(_judge_task, tasks), start=1):
            judged.append(position)
            if done % 25 == 0 or done == len(tasks):
                print(f"judged {done} of {len(tasks)} positions", file=sys.stderr, flush=True)
    return judged


def save(path: Path, positions: Sequence[Position], about: dict[str, Any]) -> None:
    rows = [{"game": p.game, "ply": p.ply, "moves": list(p.moves), "scores": p.scores} for p in positions]
    path.write_text(json.dumps({"format": FORMAT, **about, "positions": rows}) + "\n", encoding="utf-8")


def load(path: Path) -> list[Position]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise SystemExit(f"move_quality.py: {path} is not a file this script wrote (format {FORMAT})")
    return [
        Position(int(row["game"]), int(row["ply"]), tuple(row["moves"]), {k: int(v) for k, v in row["scores"].items()})
        for row in data["positions"]
    ]


# -- scoring a level ----------------------------------------------------------------------------------------------

_CLIENTS: dict[str, RevisionClient] = {}


def _choose(task: tuple[str, tuple[str, ...], float, int]) -> str:
    level, moves, seconds, seed = task
    board = board_after(moves)
    if level.startswith(ENGINE):
        reply = engine_for(level.removeprefix(ENGINE)).move(board, seconds, new_game=True)
        found = identify(board, reply["board"])
        if found is None:
            raise RuntimeError(f"{level} answered {board.fen()} with no legal move")
        return found.text()
    revision = split(level)
    if revision is None:
        spec = get_level(level)
        choice = spec.factory().choose(board.copy(), merge_limits(spec, Limits(time=seconds)), random.Random(seed))
        text = choice.move
    else:
        if level not in _CLIENTS:
            _CLIENTS[level] = RevisionClient(revision[1])
        text = _CLIENTS[level].choose(revision[0], list(moves), seconds, seed)
    return board.parse_move(text).text()


@dataclass(frozen=True)
class Scored:
    level: str
    moves: tuple[str, ...]
    losses: tuple[int, ...]
    best: int
    """How many of its moves were the judge's best."""

    def share(self, at_least: int) -> float:
        return sum(loss >= at_least for loss in self.losses) / len(self.losses)


def score(positions: Sequence[Position], level: str, seconds: float, jobs: int) -> Scored:
    tasks = [(level, p.moves, seconds, n) for n, p in enumerate(positions)]
    with ProcessPoolExecutor(max_workers=jobs, initializer=warm_up) as executor:
        chosen = list(executor.map(_choose, tasks))
    losses = tuple(p.loss(move) for p, move in zip(positions, chosen, strict=True))
    return Scored(level, tuple(chosen), losses, sum(loss == 0 for loss in losses))


PHASES = ("no king, more than 16 pieces", "no king, 11 to 16", "no king, 10 or fewer", "kings, more than 10 pieces",
          "kings, 10 or fewer")  # fmt: skip


def phase(board: Board) -> str:
    """Which of :data:`PHASES` a position is in: whether a king is on the board, and how many pieces."""
    pieces = board.count(Color.BLACK) + board.count(Color.WHITE)
    if board.kings:
        return PHASES[3] if pieces > 10 else PHASES[4]
    return PHASES[0] if pieces > 16 else PHASES[1] if pieces > 10 else PHASES[2]


def by_phase(positions: Sequence[Position], scored: Sequence[Scored]) -> list[str]:
    """Each level's mean loss in each phase of the game (:func:`phase`): where the losses are."""
    phases = [phase(p.board()) for p in positions]
    lines = []
    for name in PHASES:
        rows = [i for i, found in enumerate(phases) if found == name]
        if rows:
            means = ", ".join(f"{s.level} {statistics.fmean(s.losses[i] for i in rows):.2f}" for s in scored)
            lines.append(f"{name} ({len(rows)} positions): {means}")
    return lines


def report(scored: Sequence[Scored]) -> list[str]:
    lines = []
    first = scored[0]
    for s in scored:
        n = len(s.losses)
        line = (
            f"{s.level}: mean loss {statistics.fmean(s.losses):.2f}, the judge's best {s.best / n:.1%},"
            f" lost ≥ 50: {s.share(50):.1%}, ≥ 100: {s.share(100):.1%} ({n} positions)"
        )
        if s is not first:
            diffs = [a - b for a, b in zip(s.losses, first.losses, strict=True)]
            error = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else math.inf
            differ = sum(d != 0 for d in diffs)
            line += (
                f"; against {first.level}: {statistics.fmean(diffs):+.2f} ± {error:.2f}"
                f" (moves of different worth in {differ})"
            )
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="a level's moves judged one by one by a CheckerBoard engine")
    commands = parser.add_subparsers(dest="command", required=True)
    j = commands.add_parser("judge", help="pick positions from games and score each legal move by the engine")
    j.add_argument("pdn", type=Path, nargs="+", help="games (benchmarks/engines.py --pdn)")
    j.add_argument("--engine", required=True, metavar="PATH", help="the judge, a CheckerBoard engine library")
    j.add_argument("--out", type=Path, required=True, help="where the judged positions go (JSON)")
    j.add_argument("--positions", type=int, default=400, help="how many positions (default 400)")
    j.add_argument("--from", dest="first", type=int, default=10, help="the first ply to pick from (default 10)")
    j.add_argument("--to", dest="last", type=int, default=80, help="the last ply to pick from (default 80)")
    j.add_argument("--time", type=float, default=0.3, help="the judge's seconds a move (default 0.3)")
    j.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    j.add_argument("--seed", type=int, default=0, help="which positions (default 0)")
    s = commands.add_parser("score", help="the levels' moves in the judged positions")
    s.add_argument("judged", type=Path, help="what judge wrote")
    s.add_argument("levels", nargs="+", help="levels, or LEVEL@REVISION")
    s.add_argument("--time", type=float, default=0.1, help="the levels' seconds a move (default 0.1)")
    s.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    s.add_argument("--choices", type=Path, help="also write each level's move in every position here (JSON)")
    args = parser.parse_args(argv)
    if args.command == "judge":
        if not Path(args.engine).is_file():
            parser.error(f"no engine library at {args.engine}")
        for path in args.pdn:
            if not path.is_file():
                parser.error(f"no games at {path}")
        library = str(Path(args.engine).resolve())
        positions = judge(args.pdn, library, args.positions, args.first, args.last, args.time, args.jobs, args.seed)
        about = {"engine": Path(library).name, "time": args.time, "games": [str(p) for p in args.pdn]}
        save(args.out, positions, {**about, "seed": args.seed, "plies": [args.first, args.last]})
        moves = sum(len(p.scores) for p in positions)
        print(f"{len(positions)} positions, {moves} moves judged, in {args.out}")
        return
    if not args.judged.is_file():
        parser.error(f"no judged positions at {args.judged}")
    for level in args.levels:
        if level.startswith(ENGINE):
            if not Path(level.removeprefix(ENGINE)).is_file():
                parser.error(f"no engine library at {level.removeprefix(ENGINE)}")
            continue
        check_level(level)
    positions = load(args.judged)
    scored = []
    for level in args.levels:
        scored.append(score(positions, level, args.time, args.jobs))
        print(report(scored)[-1], flush=True)
    print("mean loss by phase:")
    for line in by_phase(positions, scored):
        print(f"  {line}")
    if args.choices is not None:
        rows = [{"level": x.level, "time": args.time, "moves": list(x.moves), "losses": list(x.losses)} for x in scored]
        args.choices.write_text(json.dumps(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
