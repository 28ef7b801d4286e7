"""Training positions for the pattern evaluation: self-play games of the compiled kernel from the ACF ballots.

Each game starts from a ballot dealt at random, plays a few random plies more (so that no two games are alike), then
lets ``master``'s search (a fixed node budget a move, the endgame databases probed) play both sides. A game ends by the
rules, at :data:`MAX_PLIES`, or as soon as the board holds no more pieces than the endgame database covers, where the
database gives its exact result. Every quiet position the search played from (the side to move has no capture: the
evaluation is only ever asked about quiet positions) with more pieces than the database covers is kept, with the
game's result from Black's side and the search's score from the side to move's.

Games are independent and seeded one by one (``seed * 1_000_003 + game``), so a run with ``jobs`` processes produces
the same positions as one process, in another order.

:func:`relabel` searches saved positions again, at a larger node budget than the games were played at, and replaces
their scores: deeper labels for positions already played. Positions go in fixed chunks of :data:`RELABEL_CHUNK`, each
searched by one process from an empty table in the file's order, so the scores do not depend on ``jobs``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ai.ballots import openings
from ai.player import Limits
from core import AMERICAN, Board, Color

if TYPE_CHECKING:
    from ai.kernel import KernelPlayer

MAX_PLIES = 200
"""A game still going after this many plies is scored a draw."""
RANDOM_PLIES = (2, 6)
"""How many random plies follow the ballot (a number drawn in this range, inclusive)."""


@dataclass
class Positions:
    """Positions in columns: the bitboards (``core``'s layout), whose turn, Black's result and the search's score."""

    black: list[int] = field(default_factory=list)
    white: list[int] = field(default_factory=list)
    kings: list[int] = field(default_factory=list)
    black_moves: list[bool] = field(default_factory=list)
    result: list[float] = field(default_factory=list)
    """1 Black won, 0.5 drawn, 0 White won."""
    score: list[int] = field(default_factory=list)
    """The search's score for the side to move, in hundredths of a man (mate and database scores clipped)."""

    def extend(self, other: Positions) -> None:
        for name in ("black", "white", "kings", "black_moves", "result", "score"):
            getattr(self, name).extend(getattr(other, name))

    def __len__(self) -> int:
        return len(self.black)

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        return {
            "black": np.array(self.black, dtype=np.int64),
            "white": np.array(self.white, dtype=np.int64),
            "kings": np.array(self.kings, dtype=np.int64),
            "black_moves": np.array(self.black_moves, dtype=np.bool_),
            "result": np.array(self.result, dtype=np.float32),
            "score": np.array(self.score, dtype=np.int32),
        }


SCORE_CLIP = 3000


def _labeller() -> KernelPlayer:
    """The search that plays the games and scores their positions (and :func:`relabel`'s, at its own budget)."""
    from ai.kernel import KernelPlayer

    return KernelPlayer(table_entries=1 << 16, endgames=True)


def _label(score: float) -> int:
    """A search's score as a label: hundredths of a man, mate and database scores clipped."""
    return max(-SCORE_CLIP, min(SCORE_CLIP, int(score)))


def play(seed: int, nodes: int) -> Positions:
    """One self-play game's positions."""
    from ai import egdb
    from ai.kernel.egdb import DRAW, UNKNOWN, WIN, probe
    from ai.kernel.engine import forget

    forget()  # every game starts with an empty table: a game's positions depend on its seed alone

    rng = random.Random(seed)
    deck = [b for b in openings("american") if b.dealt]
    board = Board(None, AMERICAN)
    for text in rng.choice(deck).moves:
        board.push_text(text)
    for _ in range(rng.randint(*RANDOM_PLIES)):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    db = egdb.loaded()
    covered = int(db[0]) if db is not None else 0
    player = _labeller()
    rows: list[tuple[int, int, int, bool, int]] = []
    black_result = 0.5
    plies = 0
    while plies < MAX_PLIES:
        outcome = board.outcome()
        if outcome is not None:
            black_result = 0.5 if outcome.winner is None else float(outcome.winner is Color.BLACK)
            break
        black = board.turn is Color.BLACK
        me, opp = (board.black, board.white) if black else (board.white, board.black)
        if db is not None and (me | opp).bit_count() <= covered:
            known = probe(me, opp, board.kings, black, db)
            if known != UNKNOWN:
                mover = 0.5 if known == DRAW else 1.0 if known == WIN else 0.0
                black_result = mover if black else 1.0 - mover
                break
        legal = board.legal_moves
        budget = rng.randint(nodes // 2, nodes * 3 // 2)
        result = player.choose(board, Limits(time=10.0, nodes=budget), rng)
        capture = any(m.captures for m in legal)
        if not capture and len(legal) > 1:
            rows.append((board.black, board.white, board.kings, black, _label(result.score)))
        board.push(board.parse_move(result.move))
        plies += 1
    out = Positions()
    for b, w, k, black, score in rows:
        out.black.append(b)
        out.white.append(w)
        out.kings.append(k)
        out.black_moves.append(black)
        out.result.append(black_result)
        out.score.append(score)
    return out


def _games(args: tuple[int, int, int, int]) -> Positions:
    seed, first, count, nodes = args
    out = Positions()
    for game in range(first, first + count):
        out.extend(play(seed * 1_000_003 + game, nodes))
    return out


def generate(games: int, seed: int, nodes: int, jobs: int = 1, batch: int = 20) -> Iterator[tuple[int, Positions]]:
    """Play ``games`` games in ``jobs`` processes; yields (games done, their positions) batch by batch."""
    work = [(seed, first, min(batch, games - first), nodes) for first in range(0, games, batch)]
    if jobs <= 1:
        done = 0
        for item in work:
            done += item[2]
            yield done, _games(item)
        return
    with get_context("spawn").Pool(jobs) as pool:
        done = 0
        for index, positions in enumerate(pool.imap(_games, work)):
            done += work[index][2]
            yield done, positions


RELABEL_CHUNK = 2000
"""Positions a relabelling process searches in a row, keeping its table (a chunk holds a few games' positions)."""


def fen_of(black: int, white: int, kings: int, black_moves: bool) -> str:
    """The FEN of a saved position (``core``'s layout of the American board)."""
    geometry = AMERICAN.geometry

    def items(pieces: int) -> str:
        return ",".join(
            ("K" if geometry.bit_of_square[n] & kings else "") + str(n) for n in geometry.squares_of(pieces)
        )

    return f"{'B' if black_moves else 'W'}:W{items(white)}:B{items(black)}"


def _relabel(args: tuple[list[int], list[int], list[int], list[bool], int]) -> list[int]:
    from ai.kernel.engine import forget

    black, white, kings, black_moves, nodes = args
    forget()
    player = _labeller()
    rng = random.Random(0)
    board = Board(None, AMERICAN)
    scores = []
    for b, w, k, bm in zip(black, white, kings, black_moves, strict=True):
        board.set_fen(fen_of(b, w, k, bm))
        scores.append(_label(player.choose(board, Limits(time=60.0, nodes=nodes), rng).score))
    return scores


def relabel(positions: dict[str, npt.NDArray[np.generic]], nodes: int, jobs: int = 1) -> Iterator[list[int]]:
    """Search every position again at ``nodes`` nodes; yields their new scores chunk by chunk, in the file's order."""
    count = len(positions["black"])
    work = [
        (
            [int(x) for x in positions["black"][first : first + RELABEL_CHUNK]],
            [int(x) for x in positions["white"][first : first + RELABEL_CHUNK]],
            [int(x) for x in positions["kings"][first : first + RELABEL_CHUNK]],
            [bool(x) for x in positions["black_moves"][first : first + RELABEL_CHUNK]],
            nodes,
        )
        for first in range(0, count, RELABEL_CHUNK)
    ]
    if jobs <= 1:
        yield from map(_relabel, work)
        return
    with get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_relabel, work)


def run_relabel(data: Path, out: Path, nodes: int, jobs: int, count: int | None = None) -> int:
    """Relabel ``data``'s first ``count`` positions (all by default) into ``out``, saving as chunks arrive (a file cut
    short holds the positions relabelled so far); the number of positions."""
    positions = load([data])
    if count is not None:
        positions = {name: column[:count] for name, column in positions.items()}
    total = len(positions["black"])
    started = last_save = time.perf_counter()
    scores: list[int] = []
    for part in relabel(positions, nodes, jobs):
        scores.extend(part)
        done = len(scores)
        now = time.perf_counter()
        print(f"{done}/{total} positions, {now - started:.0f} s", file=sys.stderr, flush=True)
        if now - last_save > 60 or done == total:
            relabelled = {name: column[:done] for name, column in positions.items()}
            relabelled["score"] = np.array(scores, dtype=np.int32)
            np.savez_compressed(out, **relabelled)  # type: ignore[arg-type]
            last_save = now
    return len(scores)


def save(positions: Positions, path: Path) -> None:
    np.savez_compressed(path, **positions.arrays())  # type: ignore[arg-type]


def load(paths: list[Path]) -> dict[str, npt.NDArray[np.generic]]:
    """The positions of one or more saved files, concatenated."""
    parts = [dict(np.load(p)) for p in paths]
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def run(out: Path, games: int, seed: int, nodes: int, jobs: int) -> int:
    """Generate into ``out`` (an ``.npz``), saving as batches arrive; the number of positions."""
    started = time.perf_counter()
    total = Positions()
    last_save = started
    for done, positions in generate(games, seed, nodes, jobs):
        total.extend(positions)
        now = time.perf_counter()
        print(f"{done}/{games} games, {len(total)} positions, {now - started:.0f} s", file=sys.stderr, flush=True)
        if now - last_save > 60 or done == games:
            save(total, out)
            last_save = now
    return len(total)
