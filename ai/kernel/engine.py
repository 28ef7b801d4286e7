"""The bridge between ``core.Board`` and the compiled kernel: positions in, move texts and search results out.

Nothing outside :mod:`ai.kernel` sees the kernel's arrays. The root moves of a search are ``core``'s legal moves, so
the move a search returns is legal by construction; the principal variation is replayed on a copy of the board and
written as ``core`` writes moves.

The arrays a search needs (buffers, the transposition table) are allocated once per process, variant and table size,
and the table is kept between moves like ``master``'s. A search with the endgame databases empties it when its root
is in a database and in other material than the last root: the table's database scores tell conversions from the
root's material, so they hold for one material only.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field

import numpy as np

from ai import egdb
from ai.kernel import movegen as mg
from ai.kernel import tables
from ai.kernel.egdb import UNKNOWN, probe
from ai.kernel.evaluation import evaluate as _evaluate
from ai.kernel.perft import perft as _perft
from ai.kernel.search import GENERATION, MAX_DEPTH, NODES, PLIES, ROOT, Array, new_keys, new_pv, new_work
from ai.kernel.search import search as _search
from ai.kernel.tt import new_table
from ai.player import Limits, SearchResult
from core import AMERICAN, PASS, Board, Color, Move, Variant

DEFAULT_TIME = 2.0
"""Seconds a move when the limits give no time (``master``'s default)."""


def _node(board: Board) -> tuple[int, int, int, bool]:
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    return me, opp, board.kings, black


def _text(variant: Variant, move: int, path: int) -> str:
    """``core``'s text of a kernel move."""
    if move == mg.PASS:
        return PASS.text()
    square_of_bit = variant.geometry.square_of_bit
    start = square_of_bit[1 << ((move >> mg.FROM_SHIFT) & 63)]
    captured = move & mg.CAPTURED
    if not captured:
        return f"{start}-{square_of_bit[1 << ((move >> mg.TO_SHIFT) & 63)]}"
    landings = [((path >> (5 * j)) & 31) + 1 for j in range(captured.bit_count())]
    return "x".join(str(n) for n in (start, *landings))


def _packed(variant: Variant, move: Move) -> int:
    """The kernel's form of a ``core`` move."""
    if move.is_pass:
        return mg.PASS
    bit = variant.geometry.bit_of_square
    captured = 0
    for square in move.captures:
        captured |= bit[square]
    return (
        captured | (bit[move.start].bit_length() - 1) << mg.FROM_SHIFT | (bit[move.end].bit_length() - 1) << mg.TO_SHIFT
    )


def legal_moves(board: Board) -> list[str]:
    """The kernel's legal moves of ``board`` as ``core``'s move texts (``pass`` for a side that passes)."""
    me, opp, kings, black = _node(board)
    k = tables.of(board.variant)
    buf = mg.new_buffer(1)
    stack = mg.new_stack()
    end = mg.generate(me, opp, kings, black, k, buf, 0, stack)
    if not end:
        return [PASS.text()] if mg.can_pass(me, opp, kings, black, k, buf, 0, stack) else []
    return [_text(board.variant, int(buf[0, i]), int(buf[1, i])) for i in range(end)]


def perft(board: Board, depth: int) -> int:
    """``core.perft`` computed by the kernel."""
    if depth < 0:
        raise ValueError("depth must be 0 or more")
    me, opp, kings, black = _node(board)
    k = tables.of(board.variant)
    return int(_perft(me, opp, kings, black, depth, k, mg.new_buffer(depth + 1), mg.new_stack()))


def evaluate(board: Board, *, patterns: bool = True) -> int:
    """The kernel's evaluation of ``board`` for the side to move (``master``'s features and weights, and its learned
    patterns unless ``patterns`` is false)."""
    me, opp, kings, black = _node(board)
    return int(_evaluate(me, opp, kings, black, tables.of(board.variant, patterns=patterns)))


def key(board: Board) -> int:
    """The kernel's Zobrist key of ``board``, as ``core``'s unsigned hash."""
    k = tables.of(board.variant)
    return tables.unsigned(int(mg.key_of(board.black, board.white, board.kings, board.turn is Color.WHITE, k)))


def key_after(board: Board, move: Move) -> int:
    """The kernel's incremental key after ``move``, as ``core``'s unsigned hash."""
    _, _, kings, black = _node(board)
    k = tables.of(board.variant)
    h = mg.key_after(tables.signed(board.hash), kings, black, _packed(board.variant, move), k)
    return tables.unsigned(int(h))


def _history(board: Board) -> list[int]:
    """The keys of the game's positions since its last irreversible move, the current one last."""
    return [tables.signed(h) for h in board.history_hashes()]


@dataclass
class _Session:
    """The preallocated arrays of one variant's searches in this process."""

    table_entries: int
    table: Array = field(init=False)
    buf: mg.Buffer = field(default_factory=lambda: mg.new_buffer(PLIES, rows=3))
    stack: mg.Buffer = field(default_factory=mg.new_stack)
    work: Array = field(default_factory=new_work)
    pv: Array = field(default_factory=new_pv)
    line: Array = field(default_factory=lambda: np.zeros(PLIES, dtype=np.int64))
    searches: int = 0
    material: tuple[int, int] = (0, 0)
    """The pieces and men of the last root found in an endgame database."""

    def __post_init__(self) -> None:
        self.table = new_table(self.table_entries)


_SESSIONS: dict[tuple[str, int, bool, int], _Session] = {}
"""By variant, table size and thread: the kernel runs without the GIL, so searches in threads (the bot's
``USE_THREADS``) run at once and each needs arrays of its own."""


def _session(variant: Variant, table_entries: int, network: bool = False) -> _Session:
    key = (variant.name, table_entries, network, threading.get_ident())  # a network's scores are not the patterns'
    session = _SESSIONS.get(key)
    if session is None:
        session = _SESSIONS[key] = _Session(table_entries)
    return session


def forget() -> None:
    """Drop this process's transposition tables and buffers (the next search starts with an empty table)."""
    _SESSIONS.clear()


_NO_DATABASE = egdb.empty_database()


def _database(board: Board, wanted: bool) -> Array:
    """The endgame database a search of ``board`` probes: the largest one found (:func:`ai.egdb.loaded`) where it is
    ``wanted`` and the game is English draughts, else one that covers nothing."""
    if wanted and board.variant is AMERICAN:
        db = egdb.loaded()
        if db is not None:
            return db
    return _NO_DATABASE


def _forget_other_material(session: _Session, board: Board, db: Array) -> None:
    me, opp, kings, black = _node(board)
    pieces = (me | opp).bit_count()
    if pieces > db[0] or probe(me, opp, kings, black, db) == UNKNOWN:
        return
    material = (pieces, (me | opp) & ~kings)
    if material != session.material:
        session.table.fill(0)
        session.material = material


def search(
    board: Board,
    limits: Limits,
    rng: random.Random,
    *,
    table_entries: int,
    endgames: bool = False,
    weights: tuple[int, ...] | None = None,
    patterns: bool = True,
    network: bool = False,
    fresh: bool = False,
    moves: Collection[str] | None = None,
) -> SearchResult:
    """Search ``board`` (which has a legal move) within ``limits``, probing the endgame databases if ``endgames``, with
    the evaluation's ``weights`` (default: ``master``'s), its learned patterns unless ``patterns`` is false and the
    small network if ``network``; equal moves are tried in an order ``rng`` picks. With ``fresh`` the table starts
    empty, so the result depends on nothing searched before (a reproducible evaluation, :mod:`ai.review`).

    ``moves`` (move texts) restricts the root to those legal moves: the best of them and its score, searched even when
    there is one (a search that leaves out the best move finds the second best, :mod:`ai.puzzles`). Without it a
    position with a single legal move is not searched (its score is 0)."""
    started = time.perf_counter()
    legal = board.legal_moves
    if moves is not None:
        legal = [m for m in legal if m.text() in moves]
        if not legal:
            raise ValueError(f"none of {sorted(moves)} is a legal move")
    elif len(legal) == 1:
        only = legal[0].text()
        return SearchResult(only, 0.0, 0, (only,), 0, 0.0)
    variant = board.variant
    rng.shuffle(legal)
    roots = np.array([_packed(variant, m) for m in legal], dtype=np.int64)
    session = _session(variant, table_entries, network)
    if fresh:
        session.table[:] = 0
        session.work[:] = 0  # and the history the last searches left
    session.searches += 1
    db = _database(board, endgames)
    _forget_other_material(session, board, db)
    history = _history(board)
    keys = new_keys(history)
    work = session.work
    work[ROOT] = len(history) - 1
    work[GENERATION] = session.searches
    me, opp, kings, black = _node(board)
    seconds = limits.time if limits.time is not None else DEFAULT_TIME
    depth = min(MAX_DEPTH, limits.depth) if limits.depth is not None else MAX_DEPTH
    position = (me, opp, kings, black, history[-1], board.halfmove_clock)
    context = (
        tables.of(variant, weights, patterns, network),
        session.table,
        session.buf,
        session.stack,
        keys,
        work,
        session.pv,
        db,
    )
    best, score, done, length = _search(
        position, roots, depth, float(seconds), limits.nodes or 0, context, session.line
    )
    move = next(m.text() for m in legal if _packed(variant, m) == best)
    pv = _replay(board, [int(m) for m in session.line[:length]])
    return SearchResult(move, float(score), int(done), tuple(pv), int(work[NODES]), time.perf_counter() - started)


def _replay(board: Board, line: list[int]) -> list[str]:
    """The texts of the moves of ``line`` that are legal in turn from ``board`` (which is left as it was)."""
    replay = board.copy()
    texts: list[str] = []
    for move in line:
        found = next((m for m in replay.legal_moves if _packed(board.variant, m) == move), None)
        if found is None:
            break
        texts.append(found.text())
        replay.push(found)
    return texts


def warm_up() -> float:
    """Compile the kernel, or load it from the on-disk cache, by running every entry point once, and read the endgame
    database if there is one; the seconds it took."""
    started = time.perf_counter()
    board = Board("W:WK2,22,23,25,26,27,28,29,30,31,32:B1,4,5,6,7,8,12,13,14,15")
    legal_moves(board)
    perft(board, 2)
    evaluate(board)
    key(board)
    key_after(board, board.legal_moves[0])
    search(Board(), Limits(nodes=200), random.Random(0), table_entries=2)
    egdb.loaded()
    return time.perf_counter() - started
