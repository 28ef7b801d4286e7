"""The endgame trainer: the endings it sets, the perfect defender that plays them against a person, and the review of
how the person did. The exact distances it reads come from :mod:`ai.endgame_tables`.

**Endings** (:data:`ENDINGS`), each with the trainee to move:

- ``two_kings``: two kings against one, the longest win there is (33 plies: 17 of Black's moves);
- ``three_kings``: three kings against two, the longest win there is (67 plies: 34 moves);
- ``first_position``: First Position as the American Checker Federation sets it (White: a king on 15 and a man on 20;
  Black: a king on 28 and a man on 12; White to move and win), a win in 81 plies by the databases;
- ``second_position``: Second Position as Edward Lasker sets it (*Chess and Checkers: The Way to Mastership*, 1918,
  diagram 95; White: men on 27 and 30, a king on 22; Black: men on 20 and 21, a king on 9; White to move and win). It
  has six pieces, so only a machine with the prepared six-piece tables sets it (:data:`ai.endgame_tables.BUILD_HINT`);
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
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass

from ai.endgame_tables import (
    BUILD_HINT,
    DRAW,
    LOSS,
    MEN_PIECES,
    MOST_PIECES,
    WIN,
    Distance,
    NotAnEndingError,
    Tables,
    distance,
    is_ending,
    prepare,
    prepared,
    small_tables,
    warm_up,
)
from ai.player import Limits, SearchResult
from core import Board, Outcome, Termination

ENDINGS = ("two_kings", "three_kings", "first_position", "second_position", "random", "hold_draw")
FIRST_POSITION = "W:WK15,20:B12,K28"
"""First Position, White to move and win (the American Checker Federation's standard positions)."""
SECOND_POSITION = "W:WK22,27,30:BK9,20,21"
"""Second Position, White to move and win (Lasker, 1918, diagram 95; Black to move, it is a draw)."""
DIFFICULTIES = ("easy", "medium", "hard")
LEVEL = "endgame"
"""The name of the defender's level (hidden: no menu offers it, the trainer alone starts games against it)."""


# -- the endings -------------------------------------------------------------------------------------------------------


def _fen(index: int, kings: int, their_kings: int) -> str:
    from ai.kernel.egdb import position_at

    _, mine, _, theirs, _ = position_at(index, 0, kings, 0, their_kings)

    def squares(mask: int) -> str:
        return ",".join(f"K{i + 1}" for i in range(32) if mask >> i & 1)

    return f"B:W{squares(theirs)}:B{squares(mine)}"


def _table(kings: int, their_kings: int) -> tuple[int, int, Tables]:
    from ai import egdb

    tables = small_tables(kings + their_kings)
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
    if ending == "second_position":
        if prepared() is None:
            raise NotAnEndingError(f"Second Position needs the six-piece tables: {BUILD_HINT}")
        return SECOND_POSITION
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
        if not is_ending(board):
            raise NotAnEndingError("the endgame level plays only the endings its tables hold")
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


__all__ = [
    "BUILD_HINT",
    "DIFFICULTIES",
    "DRAW",
    "ENDINGS",
    "FIRST_POSITION",
    "LEVEL",
    "LOSS",
    "MEN_PIECES",
    "MOST_PIECES",
    "SECOND_POSITION",
    "WIN",
    "Distance",
    "EndgamePlayer",
    "NotAnEndingError",
    "Review",
    "Slip",
    "best_moves",
    "distance",
    "is_ending",
    "longest_win",
    "prepare",
    "prepared",
    "random_ending",
    "review",
    "setup",
    "warm_up",
]
