"""The opening book of English draughts: moves and scores from our own deep searches, shipped as ``data/book.json``.

:func:`build` (``kingme book build``) searches with the compiled kernel every position of the first three plies that
the ACF three-move deck passes through, and every position one move beyond them: the start, the 7 positions after
one move, the 49 after two and the 213 after three (the 156 deck openings among them). A position of the first two
plies keeps every legal move with its score (the search's score of the position it leads to, for the side that
moves), so the book can vary between moves that score alike. Each deck position keeps its best move, and so does each
position along the main line the search found from it (its principal variation, :data:`MAIN_LINE` plies on).

:meth:`Book.choose` is how ``master`` plays from it (:class:`WithBook`): among the moves within :data:`MARGIN` of the
best, one at random with a weight that grows with its score. Scores are in hundredths of a man for the side to move.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ai.ballots import acf_deck
from ai.player import Limits, Player, SearchResult
from core import AMERICAN, Board

BOOK_FILE = Path(__file__).with_name("data") / "book.json"
FORMAT = 1
MARGIN = 12
"""How far below the best move's score a move may be and still be played from the book."""
MAIN_LINE = 6
"""Plies of each deck position's principal variation kept in the book."""
SEARCH_TIME = 3.0
"""Seconds the build searches each position."""
BUILD_TABLE = 1 << 21


@dataclass(frozen=True)
class BookMove:
    move: str
    score: int


@dataclass(frozen=True)
class Book:
    """Book moves by position (``Board.fen()``), best first."""

    positions: dict[str, tuple[BookMove, ...]]
    seconds: float = 0.0
    """The search time each position had in the build."""

    def moves(self, board: Board) -> tuple[BookMove, ...]:
        """The book's moves in ``board`` (none if it is not in the book or not English draughts)."""
        if board.variant is not AMERICAN:
            return ()
        return self.positions.get(board.fen(), ())

    def playable(self, board: Board) -> tuple[BookMove, ...]:
        """The legal book moves of ``board`` within :data:`MARGIN` of the best (the moves ``master`` plays from it)."""
        legal = {m.text() for m in board.legal_moves}
        moves = [m for m in self.moves(board) if m.move in legal]
        if not moves:
            return ()
        best = max(m.score for m in moves)
        return tuple(m for m in moves if m.score >= best - MARGIN)

    def choose(self, board: Board, rng: random.Random) -> BookMove | None:
        """A legal book move for ``board`` (see the module's docstring), or None if the book has none."""
        playable = self.playable(board)
        if not playable:
            return None
        best = max(m.score for m in playable)
        weights = [1 + m.score - (best - MARGIN) for m in playable]
        return rng.choices(playable, weights=weights)[0]

    def to_json(self) -> str:
        rows = {fen: [[m.move, m.score] for m in moves] for fen, moves in sorted(self.positions.items())}
        data = {"format": FORMAT, "variant": AMERICAN.name, "seconds": self.seconds, "positions": rows}
        return json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Book:
        data = json.loads(text)
        if data.get("format") != FORMAT or data.get("variant") != AMERICAN.name:
            raise ValueError("not a King Me opening book of this format")
        positions = {
            fen: tuple(BookMove(str(move), int(score)) for move, score in rows)
            for fen, rows in data["positions"].items()
        }
        return cls(positions, float(data.get("seconds", 0.0)))


@functools.cache
def shipped() -> Book:
    """The book shipped with King Me (an empty one if the file is missing), read once per process."""
    if not BOOK_FILE.is_file():
        return Book({})
    return Book.from_json(BOOK_FILE.read_text(encoding="utf-8"))


def opening_theory(board: Board) -> frozenset[str]:
    """The moves from ``board`` that are opening theory: the shipped book's playable moves, and in a game from the
    start position the next move of every ACF deck ballot the game has followed so far (the deck's openings are
    tournament-tested, whatever a search of them says)."""
    known = {m.move for m in shipped().playable(board)}
    if board.variant is AMERICAN and board.initial_fen == Board().initial_fen:
        played = tuple(m.text() for m in board.move_stack)
        for ballot in acf_deck():
            if len(ballot.moves) > len(played) and ballot.moves[: len(played)] == played:
                known.add(ballot.moves[len(played)])
    return frozenset(known)


@dataclass(frozen=True)
class WithBook:
    """A player that plays from the shipped book when the position is in it, without searching, and asks ``inner``
    otherwise."""

    inner: Player

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        found = shipped().choose(board, rng)
        if found is None:
            return self.inner.choose(board, limits, rng)
        return SearchResult(found.move, float(found.score), 0, (found.move,), 0, 0.0, source="book")


def opening_positions() -> list[list[Board]]:
    """The positions of plies 0, 1, 2 and 3 that the deck passes through or that lie one move beyond them."""
    layers: list[dict[str, Board]] = [{Board().fen(): Board()}]
    on_deck: list[set[str]] = [{Board().fen()}, set(), set()]
    for ballot in acf_deck():
        board = Board()
        for ply, text in enumerate(ballot.moves[:2], start=1):
            board.push_text(text)
            on_deck[ply].add(board.fen())
    for ply in range(3):
        following: dict[str, Board] = {}
        for fen, board in layers[ply].items():
            if fen not in on_deck[ply]:
                continue
            for move in board.legal_moves:
                child = board.copy(stack=False)
                child.push(move)
                following.setdefault(child.fen(), child)
        layers.append(following)
    return [list(layer.values()) for layer in layers]


def build(seconds: float = SEARCH_TIME, *, report: Callable[[str], None] | None = None) -> Book:
    """Search the opening positions (see the module's docstring) for ``seconds`` each and make the book."""
    from ai.kernel import KernelPlayer

    player = KernelPlayer(table_entries=BUILD_TABLE)
    limits = Limits(time=seconds)
    rng = random.Random(0)
    layers = opening_positions()
    deck = {ballot.board().fen() for ballot in acf_deck()}
    scores: dict[str, int] = {}
    positions: dict[str, tuple[BookMove, ...]] = {}
    main_lines: dict[str, tuple[BookMove, ...]] = {}
    started = time.perf_counter()
    done = 0
    total = sum(len(layer) for layer in layers[1:])
    for layer in reversed(layers[1:]):
        for board in layer:
            fen = board.fen()
            if not board.legal_moves:
                continue
            result = player.choose(board, limits, rng)
            scores[fen] = int(result.score)
            if fen in deck:
                positions[fen] = (BookMove(result.move, int(result.score)),)
                _keep_main_line(board, result.pv, int(result.score), main_lines)
            done += 1
            if report is not None and done % 20 == 0:
                report(f"{done}/{total} positions searched ({time.perf_counter() - started:.0f} s)")
    for layer in layers[:3]:
        for board in layer:
            rows = []
            for move in board.legal_moves:
                child = board.copy(stack=False)
                child.push(move)
                if child.fen() in scores:
                    rows.append(BookMove(move.text(), -scores[child.fen()]))
            if rows:
                positions[board.fen()] = tuple(sorted(rows, key=lambda m: -m.score))
    for fen, moves in main_lines.items():
        positions.setdefault(fen, moves)
    return Book(positions, seconds)


def _keep_main_line(board: Board, pv: tuple[str, ...], score: int, book: dict[str, tuple[BookMove, ...]]) -> None:
    """Add the positions after the first move of a principal variation, each with the variation's next move."""
    line = board.copy(stack=False)
    for ply, move in enumerate(pv[: MAIN_LINE + 1]):
        if ply:
            book.setdefault(line.fen(), (BookMove(move, score if ply % 2 == 0 else -score),))
        line.push_text(move)
