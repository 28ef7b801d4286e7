"""Game review: every position of a finished game evaluated by the compiled kernel, every move judged by what it cost.

The method, in the order it runs (``docs/ai.md``, "Game review", says the same for players):

1. **Evaluate each position** (:func:`evaluate_position`, the function a worker runs, one position at a time so that a
   review is sliced and live AI turns can go between the slices) with ``master``'s compiled search held to
   :data:`REVIEW_NODES` nodes and an empty transposition table of its own: the same game always gets the same review,
   whatever the worker searched before. A position with a single legal move is evaluated through its forced moves
   (the search would not look at it); a position where the game is over by the rules gets its result.
2. **Score from Black's side.** The search's score (hundredths of a man for the side to move) is turned round to
   Black's side and mapped to Black's *expected score* (a win 1, a draw ½, a loss 0) by the logistic
   ``1 / (1 + exp(-score / 100))``: a man up is 73 %, two men 88 %, three 95 %; a won or lost game found by the search
   is 1 or 0 (:func:`expected`).
3. **Judge each move** by the expected score its player lost with it: the position's expected score before the move
   minus after, both from the mover's side, never below zero, and zero when the move is the one the search prefers.
   A loss of at least :data:`INACCURACY`, :data:`MISTAKE` or :data:`BLUNDER` makes the move an inaccuracy, a mistake or
   a blunder (lichess's thresholds on its win-percentage scale). A move from a position with one legal move is forced
   and never judged, and neither is a *book* move, opening theory (:func:`ai.book.opening_theory`: a move the opening
   book plays, or the next move of an ACF deck ballot the game has followed from the start): tournament-tested
   openings and the book's deep searches outweigh a review's small differences between them.
4. **The result thrown away:** a position is *won* for a side whose expected score is at least :data:`WON`, *lost* at
   most ``1 - WON``, otherwise *drawn*; a judged move that turns won into drawn or lost, or drawn into lost, threw the
   result away. Every move judged an inaccuracy or worse comes with the search's best move and line in the position
   before it.
5. **Accuracy** of a player: the mean over their judged moves (book moves and forced moves left out) of lichess's
   per-move accuracy ``103.1668 * exp(-0.04354 * loss) - 3.1669`` (the loss in percentage points, the result held to
   0-100), so a game of best moves is 100 and a loss of 15 points (a blunder) alone scores 50; ``None`` for a player
   with no judged move.
"""

from __future__ import annotations

import enum
import json
import math
import random
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ai.book import opening_theory
from ai.player import GameInput, Limits, SearchResult
from ai.tt import MATE_BOUND
from core import Board, Color

REVIEW_NODES = 50_000
"""Nodes searched per position: depth 8 to 10 in the middle game, some 30 ms of one core with the kernel, so a game of
80 plies costs about 2.5 s of one worker."""
REVIEW_TABLE_ENTRIES = 1 << 16
"""The review's own transposition table (2 MiB), emptied before each position so reviews are reproducible."""
TIME_BACKSTOP = 30.0
"""Seconds after which a position's search stops even short of its nodes (far above them: nodes decide)."""
MAX_FORCED = 64
"""Forced moves followed from a position with a single legal move before it is evaluated as it stands."""
MAN = 100.0
"""The search's score of one man: the scale of :func:`expected`."""
INACCURACY = 0.05
MISTAKE = 0.10
BLUNDER = 0.15
"""Expected score lost by a move that makes it an inaccuracy, a mistake, a blunder."""
WON = 0.70
"""Expected score from which a position counts as won (``1 - WON`` and below: lost): about 0.85 of a man up."""
VERSION = 2
"""The method's version, kept with every stored review (a changed method can tell its old reviews apart); 2: book
moves are not judged."""


class Judgement(enum.Enum):
    """What a move is worth, from the expected score it lost."""

    FORCED = "forced"
    BOOK = "book"
    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"

    @property
    def is_error(self) -> bool:
        """An inaccuracy, a mistake or a blunder."""
        return self in (Judgement.INACCURACY, Judgement.MISTAKE, Judgement.BLUNDER)


@dataclass(frozen=True)
class PositionEval:
    """The evaluation of the position after ``ply`` moves of the game (0 is the start)."""

    ply: int
    score: int
    """Hundredths of a man from Black's side (beyond ``ai.tt.MATE_BOUND``: a won game)."""
    expected: float
    """Black's expected score, 0 to 1."""
    best: str | None = None
    """The search's move for the side to move (None when the game is over)."""
    line: tuple[str, ...] = ()
    """The best line, starting with ``best``."""
    legal: int = 0
    """How many legal moves the side to move had."""
    depth: int = 0
    nodes: int = 0


@dataclass(frozen=True)
class MoveReview:
    """The move that led to position ``ply``, judged."""

    ply: int
    move: str
    mover: str
    """``black`` or ``white``."""
    judgement: Judgement
    loss: float
    """Expected score the mover lost with it (0 to 1)."""
    before: float
    """The mover's expected score before the move (the scores and the loss are rounded to 4 decimals)."""
    after: float
    """The mover's expected score after it."""
    best: str | None = None
    """The better move, for an inaccuracy or worse."""
    line: tuple[str, ...] = ()
    """The best line from the position before the move, for an inaccuracy or worse."""
    threw_away: str | None = None
    """``win`` or ``draw`` when the move threw that result away."""

    @property
    def move_number(self) -> int:
        """The full-move number, as the replay page numbers its list (plies 1 and 2 are move 1)."""
        return (self.ply + 1) // 2


@dataclass(frozen=True)
class PlayerReview:
    """One side's summary."""

    color: str
    accuracy: float | None
    """0 to 100, or None when none of the side's moves was judged."""
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0


@dataclass(frozen=True)
class GameReview:
    """A whole game reviewed: one evaluation per position, one verdict per move, a summary per side."""

    variant: str
    nodes: int
    positions: tuple[PositionEval, ...]
    moves: tuple[MoveReview, ...]
    black: PlayerReview
    white: PlayerReview
    version: int = VERSION

    @property
    def key_moments(self) -> tuple[MoveReview, ...]:
        """The moves judged an inaccuracy or worse, in the order they were played."""
        return tuple(m for m in self.moves if m.judgement.is_error)

    def player(self, color: Color) -> PlayerReview:
        return self.black if color is Color.BLACK else self.white

    def as_json(self) -> dict[str, Any]:
        """Plain JSON-like data (what the store keeps and the replay page reads)."""
        data = asdict(self)
        for move in data["moves"]:
            move["judgement"] = move["judgement"].value
        return data

    def to_json(self) -> str:
        return json.dumps(self.as_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> GameReview:
        """The review :meth:`to_json` wrote (raises ValueError, KeyError or TypeError on other data)."""
        data = json.loads(text)
        positions = tuple(PositionEval(**{**p, "line": tuple(p["line"])}) for p in data["positions"])
        moves = tuple(
            MoveReview(**{**m, "judgement": Judgement(m["judgement"]), "line": tuple(m["line"])}) for m in data["moves"]
        )
        return cls(
            data["variant"],
            data["nodes"],
            positions,
            moves,
            PlayerReview(**data["black"]),
            PlayerReview(**data["white"]),
            data["version"],
        )


# -- evaluating positions ------------------------------------------------------------------------------------------


def expected(score: float) -> float:
    """The expected score (0 to 1) of a side whose search score is ``score`` (hundredths of a man)."""
    if score > MATE_BOUND:
        return 1.0
    if score < -MATE_BOUND:
        return 0.0
    return 1.0 / (1.0 + math.exp(-score / MAN))


def _for_black(score: int, color: Color) -> int:
    return score if color is Color.BLACK else -score


def _terminal(board: Board, ply: int, legal: int) -> PositionEval | None:
    """The evaluation of a position whose game is over by the rules, else None."""
    outcome = board.outcome()
    if outcome is None:
        return None
    win = MATE_BOUND + 1
    score = 0 if outcome.winner is None else win if outcome.winner is Color.BLACK else -win
    return PositionEval(ply, score, expected(score), legal=legal)


def reproducible_search(
    board: Board,
    seed: int,
    *,
    nodes: int | None = None,
    depth: int | None = None,
    endgames: bool = False,
    moves: Collection[str] | None = None,
    table_entries: int = REVIEW_TABLE_ENTRIES,
    patterns: bool = True,
) -> SearchResult:
    """The compiled kernel's search of ``board`` held to ``nodes`` nodes (or ``depth`` plies), with an empty table of
    its own and the root's equal moves in the order ``seed`` picks, so the same position always gets the same answer
    whatever the process searched before; ``endgames`` probes the databases, ``moves`` restricts the root (see
    :func:`ai.kernel.engine.search`; ``patterns`` false evaluates with the hand-picked features alone). The review's
    evaluations and the puzzles' verdicts (:mod:`ai.puzzles`)."""
    from ai.kernel import engine  # the kernel (and numba) only where a search runs

    limits = Limits(time=TIME_BACKSTOP, nodes=nodes, depth=depth)
    return engine.search(
        board,
        limits,
        random.Random(seed),
        table_entries=table_entries,
        endgames=endgames,
        fresh=True,
        moves=moves,
        patterns=patterns,
    )


def evaluate_position(game: GameInput, ply: int, nodes: int = REVIEW_NODES) -> PositionEval:
    """The evaluation of the position after ``ply`` moves of ``game``: the function a worker runs for one slice of a
    review (module-level, picklable arguments). Raises :class:`core.RulesError` for a game that does not replay."""
    board = GameInput(game.variant, game.fen, game.moves[:ply]).board()
    done = _terminal(board, ply, 0)
    if done is not None:
        return done
    legal = len(board.legal_moves)
    forced: list[str] = []
    while len(board.legal_moves) == 1 and len(forced) < MAX_FORCED:
        only = board.legal_moves[0]
        board.push(only)
        forced.append(only.text())
        done = _terminal(board, ply, legal)
        if done is not None:
            return PositionEval(ply, done.score, done.expected, forced[0], tuple(forced), legal)
    found = reproducible_search(board, ply, nodes=nodes)
    score = _for_black(int(found.score), board.turn)
    line = (*forced, *found.pv)
    return PositionEval(ply, score, expected(score), line[0], line, legal, found.depth, found.nodes)


# -- judging moves -----------------------------------------------------------------------------------------------------


def _judgement(loss: float, best: bool) -> Judgement:
    if best:
        return Judgement.BEST
    if loss >= BLUNDER:
        return Judgement.BLUNDER
    if loss >= MISTAKE:
        return Judgement.MISTAKE
    if loss >= INACCURACY:
        return Judgement.INACCURACY
    return Judgement.GOOD


def _standing(value: float) -> int:
    """1 won, 0 drawn, -1 lost, for a side whose expected score is ``value``."""
    return 1 if value >= WON else -1 if value <= 1 - WON else 0


def move_accuracy(loss: float) -> float:
    """lichess's accuracy of one move (0 to 100) from the expected score it lost (0 to 1)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * loss * 100) - 3.1669))


def judge_move(
    ply: int, move: str, mover: Color, before: PositionEval, after: PositionEval, book: Collection[str] = ()
) -> MoveReview:
    """The verdict on ``move``, played by ``mover`` from ``before`` (the position after ``ply - 1`` moves) to
    ``after``; ``book`` holds the moves of opening theory from ``before`` (:func:`ai.book.opening_theory`)."""
    side = "black" if mover is Color.BLACK else "white"
    mine_before = round(before.expected if mover is Color.BLACK else 1.0 - before.expected, 4)
    mine_after = round(after.expected if mover is Color.BLACK else 1.0 - after.expected, 4)
    if before.legal <= 1:
        return MoveReview(ply, move, side, Judgement.FORCED, 0.0, mine_before, mine_after)
    if move in book:
        return MoveReview(ply, move, side, Judgement.BOOK, 0.0, mine_before, mine_after)
    best = move == before.best
    loss = 0.0 if best else round(max(0.0, mine_before - mine_after), 4)
    judgement = _judgement(loss, best)
    if not judgement.is_error:
        return MoveReview(ply, move, side, judgement, loss, mine_before, mine_after)
    fall = (_standing(mine_before), _standing(mine_after))
    threw_away = "win" if fall[0] == 1 and fall[1] < 1 else "draw" if fall == (0, -1) else None
    return MoveReview(ply, move, side, judgement, loss, mine_before, mine_after, before.best, before.line, threw_away)


def _summary(color: Color, moves: Sequence[MoveReview]) -> PlayerReview:
    side = "black" if color is Color.BLACK else "white"
    judged = [m for m in moves if m.mover == side and m.judgement not in (Judgement.FORCED, Judgement.BOOK)]
    accuracy = sum(move_accuracy(m.loss) for m in judged) / len(judged) if judged else None

    def count(judgement: Judgement) -> int:
        return sum(m.judgement is judgement for m in judged)

    return PlayerReview(
        side,
        round(accuracy, 1) if accuracy is not None else None,
        count(Judgement.INACCURACY),
        count(Judgement.MISTAKE),
        count(Judgement.BLUNDER),
    )


def assemble(game: GameInput, positions: Sequence[PositionEval], nodes: int = REVIEW_NODES) -> GameReview:
    """The review of ``game`` from the evaluations of its positions (one per ply, the start first)."""
    if len(positions) != len(game.moves) + 1:
        raise ValueError(f"a game of {len(game.moves)} moves has {len(game.moves) + 1} positions, not {len(positions)}")
    board = Board(game.fen, game.variant)
    moves = []
    for ply, text in enumerate(game.moves, start=1):
        mover = board.turn
        theory = opening_theory(board)
        board.push_text(text)
        moves.append(judge_move(ply, text, mover, positions[ply - 1], positions[ply], theory))
    return GameReview(
        board.variant.name,
        nodes,
        tuple(positions),
        tuple(moves),
        _summary(Color.BLACK, moves),
        _summary(Color.WHITE, moves),
    )


def review_game(game: GameInput, nodes: int = REVIEW_NODES) -> GameReview:
    """The whole review in this process, one position after another (tests and scripts; the bot slices it in its AI
    pool instead)."""
    return assemble(game, [evaluate_position(game, ply, nodes) for ply in range(len(game.moves) + 1)], nodes)
