"""The endgame trainer's knowledge: exact distances to the end of the game in small endings, the endings it sets, the
perfect defender that plays them against a person, and the review of how the person did.

**Distances.** The databases hold win, loss or draw only; :mod:`ai.kernel.distance` solves their tables again for the
number of plies to the end of the game (the winner as quick as it can be, the loser as slow), reading the values from
the databases: every ending of kings of up to five pieces (about 7 s and 20 MB the first time a process needs five
pieces), and every ending of up to four pieces, men included (about 5 s and 20 MB). Each process keeps what it needs in
memory; the first on a machine to solve a set caches it in a file beside numba's compiled code, which the others read
(:func:`_solved`). Five pieces with men are outside them.

**Endings** (:data:`ENDINGS`), each with the trainee to move:

- ``two_kings``: two kings against one, the longest win there is (33 plies: 17 of Black's moves);
- ``three_kings``: three kings against two, the longest win there is (67 plies: 34 moves);
- ``first_position``: First Position as the American Checker Federation sets it (White: a king on 15 and a man on 20;
  Black: a king on 28 and a man on 12; White to move and win), a win in 81 plies by the databases;
- ``random``: a won ending of four or five kings (three against one, four against one, three against two) drawn by
  ``seed``, by ``difficulty``: the distance to the win as a share of the longest win of its material, ``easy`` up to a
  third, ``medium`` up to two thirds, ``hard`` beyond (and at least 3 plies, so there is something to play);
- ``hold_draw``: two kings against three, drawn, to be held: Black must find the moves that keep the draw.

The kings-only endings come from the tables, indexed from the side to move (Black's way up), so a table's position
reads as a FEN with Black to move.

**The defender** (:class:`EndgamePlayer`, the hidden level ``endgame``) plays the other side perfectly by the
distances: in a lost position the move that lasts the longest; in a won one (the trainee has thrown the win away and
more) the quickest win; in a drawn one a move that keeps its draw and, among those, the one that leaves the trainee
the most replies that lose (ties broken by the game's random generator): the databases' best try. It ignores the draw
rules, as the distances do; the trainee has the 40-move rule against it.

**The review** (:func:`review`): converted (a won ending won) or held (a drawn one not lost), in how many of the
trainee's moves against the best possible (the distance at the start, in the winner's moves), and the moves that lost
time (the distance did not go down by two plies a move) or threw the result away.

Not done: Second Position (as far as we know, its classic setting has more pieces than the databases hold).
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ai.player import Limits, SearchResult
from core import AMERICAN, Board, Color, Outcome, RulesError, Termination

if TYPE_CHECKING:
    from ai.egdb import Array
    from ai.kernel.distance import Distances, Values

WIN, LOSS, DRAW = "win", "loss", "draw"
"""A position's value for the side to move."""
ENDINGS = ("two_kings", "three_kings", "first_position", "random", "hold_draw")
FIRST_POSITION = "W:WK15,20:B12,K28"
"""First Position, White to move and win (the American Checker Federation's standard positions)."""
DIFFICULTIES = ("easy", "medium", "hard")
MOST_PIECES = 5
LEVEL = "endgame"
"""The name of the defender's level (hidden: no menu offers it, the trainer alone starts games against it)."""


class NotAnEndingError(RulesError):
    """A position, an ending or a difficulty the trainer does not know."""


@dataclass(frozen=True)
class Distance:
    """What a position is worth to the side to move, and how long it takes."""

    value: str
    """:data:`WIN`, :data:`LOSS` or :data:`DRAW`."""
    plies: int | None
    """Plies to the end of the game with perfect play from both sides (None for a draw)."""


@dataclass(frozen=True)
class _Tables:
    dist: Distances
    values: Values
    offsets: Array
    most: int


_SOLVED: dict[tuple[int, bool], _Tables] = {}
_SOLVING = threading.Lock()
MEN_PIECES = 4
"""The most pieces of a position with men that the trainer's tables hold (every table of four pieces, with men or
not, is solved at once: about 5 s and 20 MB; five pieces with men would be 145 million positions)."""


def _tables(pieces: int, *, men: bool = False) -> _Tables:
    """Tables that hold every position of up to ``pieces`` pieces, of kings only unless ``men`` (or larger ones,
    if solved already)."""
    with _SOLVING:
        for (most, kings_only), tables in sorted(_SOLVED.items()):
            if most >= pieces and (not men or not kings_only):
                return tables
        from ai import egdb

        most = MEN_PIECES if men else max(pieces, 3)
        db = egdb.loaded()
        if db is None or int(db[0]) < most:
            raise NotAnEndingError("the endgame databases are missing")
        _SOLVED[most, not men] = tables = _solved(db, most, kings_only=not men)
        return tables


def _solved(db: Array, most: int, *, kings_only: bool) -> _Tables:
    """The tables of :func:`ai.kernel.distance.solve`, from the cache file the first solving on this machine wrote
    (beside numba's compiled code, named after the databases' checksum), else solved and written there."""
    import hashlib

    import numpy as np

    from ai.kernel.cache import cache_dir
    from ai.kernel.distance import solve

    digest = hashlib.blake2b(db.data.cast("B"), digest_size=8).hexdigest()  # no copy of a mapped database
    path = cache_dir() / "distances" / f"{'kings' if kings_only else 'all'}-{most}-{digest}.npz"
    with contextlib.suppress(OSError, ValueError, KeyError), np.load(path) as saved:
        return _Tables(saved["dist"], saved["values"], saved["offsets"], most)
    dist, values, offsets = solve(db, most, kings_only=kings_only)
    with contextlib.suppress(OSError):  # a cache that cannot be written is solved again next time
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, dist=dist, values=values, offsets=offsets)
        partial.replace(path)  # a reader never sees half a file
    return _Tables(dist, values, offsets, most)


def warm_up() -> float:
    """Compile the distance code, or load it from the cache, and solve the tables of up to three pieces (two kings
    against one); the seconds it took. Larger tables are solved when first needed (some seconds for five pieces)."""
    started = time.perf_counter()
    with contextlib.suppress(NotAnEndingError):  # no databases: the trainer refuses its games, the rest plays on
        _tables(3)
    return time.perf_counter() - started


def _covered(board: Board) -> bool:
    """Whether the trainer's tables hold ``board``: kings only, up to five pieces; with men, up to four."""
    pieces = board.black | board.white
    most = MOST_PIECES if pieces & ~board.kings == 0 else MEN_PIECES
    return board.variant is AMERICAN and 2 <= pieces.bit_count() <= most and bool(board.black) and bool(board.white)


def distance(board: Board) -> Distance | None:
    """The exact value and distance of ``board`` for the side to move (the draw rules left aside), or None if the
    tables do not hold it (see the module's docstring); a game over by the pieces (no pieces or no moves) is a loss in
    0."""
    from ai.egdb import LOSS as DB_LOSS
    from ai.egdb import WIN as DB_WIN
    from ai.kernel.distance import locate

    if board.variant is AMERICAN and not (board.pieces(board.turn) and board.legal_moves):
        return Distance(LOSS, 0)  # no pieces or no moves: the game is lost
    if not _covered(board):
        return None
    pieces = board.black | board.white
    tables = _tables(pieces.bit_count(), men=bool(pieces & ~board.kings))
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    at = locate(me, opp, board.kings, black, tables.offsets)
    if at < 0:
        return None
    value = int(tables.values[at])
    if value == DB_WIN:
        return Distance(WIN, int(tables.dist[at]))
    if value == DB_LOSS:
        return Distance(LOSS, int(tables.dist[at]))
    return Distance(DRAW, None)


def is_ending(board: Board) -> bool:
    """Whether the trainer's tables hold ``board``."""
    return _covered(board)


# -- the endings -------------------------------------------------------------------------------------------------------


def _fen(index: int, kings: int, their_kings: int) -> str:
    from ai.kernel.egdb import position_at

    _, mine, _, theirs, _ = position_at(index, 0, kings, 0, their_kings)

    def squares(mask: int) -> str:
        return ",".join(f"K{i + 1}" for i in range(32) if mask >> i & 1)

    return f"B:W{squares(theirs)}:B{squares(mine)}"


def _table(kings: int, their_kings: int) -> tuple[int, int, _Tables]:
    from ai import egdb

    tables = _tables(kings + their_kings)
    offset = int(tables.offsets[egdb.signature_id(0, kings, 0, their_kings)])
    return offset, egdb.table_size(0, kings, 0, their_kings), tables


@functools.cache
def longest_win(kings: int, their_kings: int) -> str:
    """The FEN of the longest win of ``kings`` kings against ``their_kings`` (the first in the table's order), Black,
    the stronger side, to move."""
    import numpy as np

    from ai.egdb import WIN as DB_WIN

    offset, size, tables = _table(kings, their_kings)
    dist = tables.dist[offset : offset + size]
    won = np.where(tables.values[offset : offset + size] == DB_WIN, dist, -1)
    return _fen(int(won.argmax()), kings, their_kings)


RANDOM_MATERIALS = {4: ((3, 1),), 5: ((4, 1), (3, 2))}


def random_ending(pieces: int, difficulty: str, seed: int) -> str:
    """A won ending of ``pieces`` (4 or 5) kings, Black to move, of ``difficulty`` (see the module's docstring), the
    same for the same arguments."""
    import numpy as np

    from ai.egdb import WIN as DB_WIN

    if pieces not in RANDOM_MATERIALS or difficulty not in DIFFICULTIES:
        raise NotAnEndingError(f"no random ending of {pieces} pieces at {difficulty!r}")
    rng = random.Random(f"{pieces}:{difficulty}:{seed}")
    kings, their_kings = rng.choice(RANDOM_MATERIALS[pieces])
    offset, size, tables = _table(kings, their_kings)
    dist = tables.dist[offset : offset + size].astype(np.int32)
    won = tables.values[offset : offset + size] == DB_WIN
    longest = int(dist[won].max())
    step = DIFFICULTIES.index(difficulty)
    low, high = max(3, longest * step // 3 + 1), longest * (step + 1) // 3
    chosen = np.flatnonzero(won & (dist >= low) & (dist <= high))
    return _fen(int(chosen[rng.randrange(len(chosen))]), kings, their_kings)


@functools.cache
def _a_drawn_ending(seed: int) -> str:
    """A drawn ending of two kings against three, Black (two kings) to move, where only some moves keep the draw."""
    import numpy as np

    from ai.egdb import DRAW as DB_DRAW

    offset, size, tables = _table(2, 3)
    drawn = np.flatnonzero(tables.values[offset : offset + size] == DB_DRAW)
    rng = random.Random(seed)
    while True:
        fen = _fen(int(drawn[rng.randrange(len(drawn))]), 2, 3)
        board = Board(fen)
        keeping = 0
        for move in board.legal_moves:
            board.push(move)
            after = distance(board)
            board.pop()
            keeping += after is not None and after.value == DRAW
        if len(board.legal_moves) > 1 and 0 < keeping <= len(board.legal_moves) // 2:
            return fen


def setup(ending: str, difficulty: str = "medium", seed: int = 0) -> str:
    """The FEN an ending of :data:`ENDINGS` starts from (``difficulty`` and ``seed`` choose a ``random`` one, ``seed``
    a ``hold_draw`` one), the trainee to move."""
    if ending == "two_kings":
        return longest_win(2, 1)
    if ending == "three_kings":
        return longest_win(3, 2)
    if ending == "first_position":
        return FIRST_POSITION
    if ending == "random":
        return random_ending(4 + seed % 2, difficulty, seed)
    if ending == "hold_draw":
        return _a_drawn_ending(seed)
    raise NotAnEndingError(f"unknown ending {ending!r}: choose one of {', '.join(ENDINGS)}")


# -- the defender ------------------------------------------------------------------------------------------------------


def _after(board: Board, move_index: int) -> Distance:
    move = board.legal_moves[move_index]
    board.push(move)
    try:
        found = distance(board)
    finally:
        board.pop()
    if found is None:  # cannot happen: every move of an ending the tables hold leads to one, or ends the game
        raise NotAnEndingError(f"{board.fen()} leads out of the trainer's endings")
    return found


def _replies_that_lose(board: Board, move_index: int) -> int:
    board.push(board.legal_moves[move_index])
    try:
        lose = 0
        for reply in range(len(board.legal_moves)):
            lose += _after(board, reply).value == WIN  # the reply leaves the defender a win
        return lose
    finally:
        board.pop()


def best_moves(board: Board, rng: random.Random | None = None) -> list[int]:
    """The indexes in ``board.legal_moves`` of the defender's best moves (see the module's docstring), best first."""
    scored = []
    for i in range(len(board.legal_moves)):
        after = _after(board, i)  # the opponent's view
        if after.value == LOSS:
            key: tuple[int, int] = (2, -(after.plies or 0))
        elif after.value == DRAW:
            key = (1, _replies_that_lose(board, i))
        else:
            key = (0, after.plies or 0)
        scored.append((key, (rng or random.Random(0)).random(), i))
    scored.sort(reverse=True)
    return [i for _, _, i in scored]


class EndgamePlayer:
    """The perfect defender of the trainer's endings (the level ``endgame``)."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        if not _covered(board):
            raise NotAnEndingError("the endgame level plays only endings of up to five kings, or four pieces with men")
        move = board.legal_moves[best_moves(board, rng)[0]]
        return SearchResult(move.text(), pv=(move.text(),), source="solved")


# -- the review --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Slip:
    """A move of the trainee's that lost time or threw the result away."""

    number: int
    """The game's move number (each side's move counts: 1 is the first move of the game)."""
    move: str
    lost: int | None
    """Plies the win now takes beyond the best (None: the move threw the result away)."""


@dataclass(frozen=True)
class Review:
    """How the trainee did."""

    goal: str
    """:data:`WIN` (convert) or :data:`DRAW` (hold)."""
    achieved: bool
    moves: int
    """The trainee's moves played."""
    best: int | None
    """The fewest the win takes against perfect defence, in the trainee's moves (None for a draw to hold)."""
    ended_by: Termination | None
    """Why the game ended (None while it goes on)."""
    slips: tuple[Slip, ...]

    @property
    def thrown(self) -> Slip | None:
        """The move that threw the result away, if any."""
        return next((slip for slip in self.slips if slip.lost is None), None)


def review(fen: str, moves: tuple[str, ...], outcome: Outcome | None) -> Review:
    """The review of a training game from ``fen`` (the trainee to move) and its ``moves`` (PDN text)."""
    board = Board(fen)
    trainee = board.turn
    start = distance(board)
    if start is None or start.value == LOSS:
        raise NotAnEndingError(f"{fen} is not an ending to convert or to hold")
    goal = start.value
    slips: list[Slip] = []
    played = 0
    thrown = False
    for number, text in enumerate(moves, 1):
        mine = board.turn is trainee
        before = distance(board) if mine else None
        move = board.push_text(text)
        if not mine or before is None or thrown:
            continue
        played += 1
        after = distance(board)
        if after is None:
            continue
        if (before.value == WIN and after.value != LOSS) or (before.value == DRAW and after.value == WIN):
            slips.append(Slip(number, move.text(), None))
            thrown = True
        elif before.value == WIN and before.plies is not None and after.plies is not None:
            lost = after.plies + 1 - before.plies
            if lost > 0:
                slips.append(Slip(number, move.text(), lost))
    if outcome is None:
        achieved = False
    elif goal == WIN:
        achieved = outcome.winner is trainee
    else:
        achieved = outcome.winner is not trainee.opponent
    best = (start.plies + 1) // 2 if start.plies is not None else None
    return Review(goal, achieved, played, best, outcome.termination if outcome else None, tuple(slips))
