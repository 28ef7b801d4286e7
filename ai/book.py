"""The opening book of English draughts: moves and scores from our own deep searches, shipped as ``data/book.json``.

:func:`build` (``kingme book build``) searches with the compiled kernel every position of the first three plies that
the ACF three-move deck passes through, and every position one move beyond them: the start, the 7 positions after
one move, the 49 after two and the 213 after three (the 156 deck openings among them). A position of the first two
plies keeps every legal move with its score (the search's score of the position it leads to, for the side that
moves), so the book can vary between moves that score alike. Each deck position keeps its best move, and so does each
position along the main line the search found from it (its principal variation, :data:`MAIN_LINE` plies on).

:meth:`Book.choose` is how ``master`` plays from it (:class:`WithBook`): among the moves within :data:`MARGIN` of the
best, one at random with a weight that grows with its score. Scores are in hundredths of a man for the side to move.

:func:`extend` (``kingme book lines``) adds what the deck openings lead to, searched with ``master``'s own evaluation
and databases: every reply to each deck opening is searched, and from the book's own move and the best replies
(within :data:`REPLY_MARGIN` of the best, at most :data:`MAX_REPLIES`) a line is played out to :data:`LINE_PLIES`
plies from the start, both sides moving by the search, each position of it kept with the searched move.

:func:`widen` (``kingme book widen``) adds the opponent's second choices along the lines the book already holds: each
position of the book between plies :data:`BRANCH_FROM` and :data:`BRANCH_TO` that the deck openings lead to (by the
book's moves, or by any move to a position the book holds) is searched again without its book move, and where the
best other move scores within :data:`REPLY_MARGIN` of the book's and leads out of the book, a line is played from it
as :func:`extend` plays its lines, until it reaches :data:`BRANCH_PLIES` or a position the book already holds. Run
again, it widens the lines it added.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
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
DECK_PLIES = 3
"""The plies of every ACF deck opening."""
LINE_TIME = 1.0
"""Seconds :func:`extend` searches each position of a line (each reply to a deck opening: half of it)."""
LINE_PLIES = 20
"""How far from the start :func:`extend`'s lines go, in plies."""
REPLY_MARGIN = 20
"""How far below the best reply to a deck opening a reply may score and still start a line of its own."""
MAX_REPLIES = 2
"""The most replies to a deck opening that start lines (the book's own move starts one besides)."""
BRANCH_FROM = 4
BRANCH_TO = 8
"""The plies of the positions :func:`widen` branches from (the moves it adds are those of plies 5 to 9)."""
BRANCH_PLIES = 16
"""How far from the start :func:`widen`'s lines go, in plies."""
WIN_NOW = 10_000
"""The score of a move that leaves the opponent without a move."""


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


Line = tuple[str, tuple[str, ...]]
"""A line's start: a deck opening's position and the moves from it (the first of them the reply the line follows)."""
Entry = tuple[str, str, int]
"""A searched position of a line: its FEN, the move the search chose and its score for the side to move."""


def _line_player() -> Player:
    from ai.kernel import KernelPlayer

    return KernelPlayer(table_entries=BUILD_TABLE, endgames=True, network=True)


def _score_replies(task: tuple[str, float]) -> list[tuple[str, int]]:
    """Every legal move of a position with its score for the side that moves (the search of the position after it),
    best first."""
    fen, seconds = task
    player, board = _line_player(), Board(fen)
    rows: list[tuple[str, int]] = []
    for move in board.legal_moves:
        child = board.copy(stack=False)
        child.push(move)
        if child.legal_moves:
            score = -int(player.choose(child, Limits(time=seconds), random.Random(0)).score)
        else:
            score = WIN_NOW
        rows.append((move.text(), score))
    return sorted(rows, key=lambda row: -row[1])


_KNOWN: frozenset[str] = frozenset()
"""In a process playing lines: the positions where a line stops (the book's, for :func:`widen`)."""


def _know(known: frozenset[str]) -> None:
    global _KNOWN
    _KNOWN = known


def _play_line(task: tuple[Line, float, int, int]) -> list[Entry]:
    """Play a line out to ``plies`` plies from the start (its position is ``ply`` plies from it), both sides by the
    search, stopping at a position in :data:`_KNOWN`: its searched positions (a forced move is played, not kept)."""
    (fen, moves), seconds, plies, ply = task
    player, board = _line_player(), Board(fen)
    for text in moves:
        board.push_text(text)
    entries: list[Entry] = []
    rng = random.Random(0)
    ply += len(moves)
    while ply < plies and board.outcome() is None and board.fen() not in _KNOWN:
        legal = board.legal_moves
        if len(legal) == 1:
            board.push(legal[0])
        else:
            result = player.choose(board.copy(), Limits(time=seconds), rng)
            entries.append((board.fen(), result.move, int(result.score)))
            board.push_text(result.move)
        ply += 1
    return entries


def _play_lines(
    pool: ProcessPoolExecutor,
    tasks: Sequence[tuple[Line, float, int, int]],
    started: float,
    report: Callable[[str], None] | None,
) -> list[Entry]:
    """Play the lines in ``pool`` (:func:`_play_line`), saying every 20 how many are done: their entries, in order."""
    entries: list[Entry] = []
    for done, found in enumerate(pool.map(_play_line, tasks), start=1):
        entries.extend(found)
        if report is not None and (done % 20 == 0 or done == len(tasks)):
            report(f"{done}/{len(tasks)} lines played ({time.perf_counter() - started:.0f} s)")
    return entries


def extend(
    book: Book,
    seconds: float = LINE_TIME,
    plies: int = LINE_PLIES,
    *,
    jobs: int = 1,
    openings: Sequence[Board] | None = None,
    report: Callable[[str], None] | None = None,
) -> Book:
    """``book`` with the lines of every deck opening (or of ``openings``, positions after three plies) added (see the
    module's docstring). The positions of the first three plies keep their entries; a line's position replaces any
    other (the first line to reach a position decides it)."""
    boards = [ballot.board() for ballot in acf_deck()] if openings is None else list(openings)
    unique = list(dict.fromkeys(board.fen() for board in boards))
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=multiprocessing.get_context("spawn")) as pool:
        scored = list(pool.map(_score_replies, [(fen, seconds / 2) for fen in unique]))
        if report is not None:
            report(f"the replies to {len(unique)} deck openings searched ({time.perf_counter() - started:.0f} s)")
        lines = [line for fen, rows in zip(unique, scored, strict=True) for line in _lines_of(book, fen, rows)]
        entries = _play_lines(pool, [(line, seconds, plies, DECK_PLIES) for line in lines], started, report)
    positions = dict(book.positions)
    first = {board.fen() for layer in opening_positions() for board in layer}
    seen: set[str] = set()
    for fen, move, score in entries:
        if fen not in first and fen not in seen:
            seen.add(fen)
            positions[fen] = (BookMove(move, score),)
    return Book(positions, book.seconds)


def _lines_of(book: Book, fen: str, rows: Sequence[tuple[str, int]]) -> list[Line]:
    """The lines a deck opening starts: the book's own move, and the best replies within :data:`REPLY_MARGIN`."""
    if not rows:
        return []
    best = rows[0][1]
    starts = [move for move, score in rows[:MAX_REPLIES] if score >= best - REPLY_MARGIN]
    own = [m.move for m in book.playable(Board(fen))]
    return [(fen, (move,)) for move in dict.fromkeys(own + starts)]


def _walk(book: Book, openings: Sequence[Board]) -> dict[str, int]:
    """The positions of ``book`` the ``openings`` (after :data:`DECK_PLIES` plies) lead to, by any moves to positions
    the book holds (a forced move on the way is played), each with its ply."""
    plies: dict[str, int] = {}
    stack = [(board, DECK_PLIES) for board in openings]
    while stack:
        board, ply = stack.pop()
        if board.fen() in plies:
            continue
        plies[board.fen()] = ply
        for move in board.legal_moves:
            child, after = board.copy(stack=False), ply + 1
            child.push(move)
            while len(child.legal_moves) == 1 and child.fen() not in book.positions:
                child.push(child.legal_moves[0])
                after += 1
            if child.fen() in book.positions:
                stack.append((child, after))
    return plies


def _second_choice(task: tuple[str, str, float]) -> tuple[str, int] | None:
    """The best move of a position but ``move`` and its score for the side to move (None if there is no other)."""
    fen, move, seconds = task
    board = Board(fen)
    others = [m.text() for m in board.legal_moves if m.text() != move]
    if not others:
        return None
    from ai.kernel import engine

    result = engine.search(
        board, Limits(time=seconds), random.Random(0), table_entries=BUILD_TABLE, endgames=True, network=True,
        moves=others,
    )  # fmt: skip
    return result.move, int(result.score)


def widen(
    book: Book,
    seconds: float = LINE_TIME,
    plies: int = BRANCH_PLIES,
    *,
    first: int = BRANCH_FROM,
    last: int = BRANCH_TO,
    jobs: int = 1,
    openings: Sequence[Board] | None = None,
    report: Callable[[str], None] | None = None,
) -> Book:
    """``book`` with the lines of the second choices from its positions of plies ``first`` to ``last`` that the deck
    openings (or ``openings``) lead to (see the module's docstring); the book's positions keep their entries."""
    boards = [ballot.board() for ballot in acf_deck()] if openings is None else list(openings)
    reached = _walk(book, boards)
    branching = sorted((ply, fen) for fen, ply in reached.items() if first <= ply <= last and book.positions.get(fen))
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    known = frozenset(book.positions)
    with ProcessPoolExecutor(
        max_workers=max(1, jobs), mp_context=context, initializer=_know, initargs=(known,)
    ) as pool:
        tasks = [(fen, book.positions[fen][0].move, seconds / 2) for _, fen in branching]
        found = list(pool.map(_second_choice, tasks))
        if report is not None:
            report(f"{len(tasks)} positions searched for a second choice ({time.perf_counter() - started:.0f} s)")
        lines: list[tuple[Line, float, int, int]] = []
        for (ply, fen), second in zip(branching, found, strict=True):
            if second is None or second[1] < book.positions[fen][0].score - REPLY_MARGIN:
                continue
            child = Board(fen)
            child.push_text(second[0])
            if child.fen() not in known:
                lines.append(((fen, (second[0],)), seconds, plies, ply))
        entries = _play_lines(pool, lines, started, report)
    positions = dict(book.positions)
    for fen, move, score in entries:
        positions.setdefault(fen, (BookMove(move, score),))
    return Book(positions, book.seconds)
