"""The compiled search: iterative deepening principal-variation search (negamax) on the kernel's raw bitboards.

- Aspiration windows: from depth :data:`ASPIRATION_FROM` on, an iteration first searches a window of
  :data:`ASPIRATION` around the last score and opens the failing side to the full range if the score falls outside.
- The transposition table of :mod:`ai.kernel.tt`; move ordering by the table's move, then captures by the number of
  pieces taken, two killer moves per ply and the history heuristic (raised for a quiet move that cuts off, lowered for
  the quiet moves tried before it); late-move reductions of quiet moves in null-window searches, growing with the
  depth and the move's rank.
- Capture quiescence: captures are compulsory, so at the depth limit the search goes on while the side to move has a
  capture, and a position is only evaluated when it is quiet (the evaluation plus the
  :func:`~ai.kernel.evaluation.drive` of an ending where one side has only kings). A node with a single legal move is
  not counted as a ply.
- Draws from the game's history: a king's step back into a position that occurred since the last capture or man move
  (in the game before the root or on the search path) scores as a draw, and so does reaching the 80-ply rule.
- Mate-distance scores: a win ``ply`` plies from the root is worth ``MATE - ply``.
- Endgame databases (:mod:`ai.kernel.egdb`, English draughts): every node below the root with no more pieces than
  the database holds is probed, whether a capture is pending or not (the tables value those positions too). A draw
  scores 0 at once. A win or loss in other material than the root's (a capture, a man's move or a crowning has
  happened: the *conversions*, which also restart the 40-move count) scores ``KNOWN_WIN - ply``, so the search takes
  the shortest conversion that keeps the win; one in the root's own material is searched on, and scored at the
  horizon as ``KNOWN_WIN - PROGRESS_BASE`` plus :func:`~ai.kernel.evaluation.progress`. So a won ending is played
  towards its next conversion instead of wandering among positions the database only calls won.
- The budget: nodes are counted at every node and the clock is read every ``CHECK_MASK + 1`` nodes; an iteration cut
  off keeps the best root move it had proven. The time is a hard limit, never passed, and a soft one,
  :data:`SOFT_SHARE` of it: a new iteration starts while the soft limit is not reached, or until the hard limit if the
  last iteration changed its best move or its score fell by :data:`DROP` or more (the search is unsure: it spends
  what it has).

The mutable state lives in arrays the caller allocates (:func:`new_work`, :func:`new_keys`, the move buffer and the
table), so the compiled code allocates nothing.

Plies are passed to ``pvs`` as int64 values, never as literals: numba compiles a separate copy of a function for a
literal argument, and a recursive function whose copies call each other cannot be loaded back from the on-disk cache
(the call between the copies is left unlinked).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ai.kernel import movegen as mg
from ai.kernel import tables as t
from ai.kernel.egdb import DRAW, UNKNOWN, WIN
from ai.kernel.egdb import probe as probe_database
from ai.kernel.evaluation import drive, evaluate, progress
from ai.kernel.jit import njit, now, popcount
from ai.kernel.tt import MOVE, SCORE, depth_of, flag_of, from_tt, mate_window, probe, store, to_tt
from ai.tt import EXACT, LOWER, MATE, MATE_BOUND, UPPER

Array = npt.NDArray[np.int64]

MAX_PLY = 128
"""Nominal plies below the root; captures may run on past it (the buffers leave room for that)."""
PLIES = MAX_PLY + 64
MAX_DEPTH = 100
INFINITE = MATE + 1
ASPIRATION = 40
ASPIRATION_FROM = 5
KNOWN_WIN = MATE_BOUND - 1000
"""A win the endgame database proves; below every mate score, above every evaluation."""
PROGRESS_BASE = 500
"""How far below a conversion (``KNOWN_WIN - ply``) a won position scores before its conversion is in sight."""
SOFT_SHARE = 0.6
"""The soft time limit's share of the hard one."""
DROP = 20
"""A fall of the score between iterations (hundredths of a man) that extends the search to its hard limit."""

# The work array: counters, then killers (two a ply), history (by side, start and landing bit) and PV lengths.
NODES = 0
STOP = 1
MAX_NODES = 2
"""0 for no node limit."""
CHECK_MASK = 3
GENERATION = 4
ROOT = 5
"""Where the root's key is in the keys array (the game's earlier keys come before it)."""
ROOT_BEST = 6
"""The index of the best root move this iteration has proven so far, or -1."""
ROOT_SCORE = 7
ROOT_MOVES = 8
"""How many root moves the caller put at the start of the move buffer."""
ROOT_PIECES = 9
ROOT_MEN = 10
"""The root's number of pieces and its men: a node that differs in either has seen a conversion."""
KILLERS = 16
HISTORY = KILLERS + 2 * PLIES
PV_LENGTH = HISTORY + 2 * 4096
WORK_SIZE = PV_LENGTH + PLIES


def new_work() -> Array:
    return np.zeros(WORK_SIZE, dtype=np.int64)


def new_pv() -> Array:
    """The triangular principal-variation table."""
    return np.zeros((PLIES, PLIES), dtype=np.int64)


def new_keys(history: list[int]) -> Array:
    """The keys array: the game's keys since its last irreversible move (the root's last), then room for a search."""
    keys = np.zeros(len(history) + PLIES, dtype=np.int64)
    keys[: len(history)] = history
    return keys


@njit
def _repeats(keys: Array, index: int, key: int, clock: int) -> bool:
    """Whether ``key``, about to be written at ``index``, occurred in the last ``clock`` plies."""
    low = max(index - clock, 0)
    j = index - 2
    while j >= low:
        if keys[j] == key:
            return True
        j -= 2
    return False


@njit
def _tick(work: Array, deadline: float) -> bool:
    """Count a node, or say that the search must stop (the budget is spent: that node is not visited)."""
    if work[STOP]:
        return True
    nodes = work[NODES]
    limit = work[MAX_NODES]
    if (limit and nodes >= limit) or (deadline > 0.0 and not nodes & work[CHECK_MASK] and now() >= deadline):
        work[STOP] = 1
        return True
    work[NODES] = nodes + 1
    return False


@njit
def _history_index(move: int, black: bool) -> int:
    return HISTORY + (0 if black else 4096) + ((move >> mg.FROM_SHIFT) & 63) * 64 + ((move >> mg.TO_SHIFT) & 63)


@njit
def _order(buf: mg.Buffer, at: int, end: int, tt_move: int, ply: int, black: bool, capture: bool, work: Array) -> None:
    """Give each move an ordering score in row 2: the table's move, captures by pieces taken, killers, history."""
    killer0 = work[KILLERS + 2 * ply]
    killer1 = work[KILLERS + 2 * ply + 1]
    for i in range(at, end):
        move = buf[0, i]
        if move == tt_move:
            score = 1 << 50
        elif capture:
            score = popcount(move & mg.CAPTURED)
        elif move == killer0:
            score = 1 << 45
        elif move == killer1:
            score = 1 << 44
        else:
            score = work[_history_index(move, black)]
        buf[2, i] = score


@njit
def _pick(buf: mg.Buffer, i: int, end: int) -> int:
    """Swap the best-scored move of ``i:end`` to ``i`` and return it."""
    best = i
    for j in range(i + 1, end):
        if buf[2, j] > buf[2, best]:
            best = j
    if best != i:
        for row in range(3):
            buf[row, i], buf[row, best] = buf[row, best], buf[row, i]
    return int(buf[0, i])


@njit
def _reward(buf: mg.Buffer, at: int, cut: int, ply: int, depth: int, black: bool, work: Array) -> None:
    """The quiet move at ``cut`` caused a cut-off: make it the first killer of its ply, raise its history and lower
    the history of the quiet moves tried before it."""
    move = buf[0, cut]
    slot = KILLERS + 2 * ply
    if work[slot] != move:
        work[slot + 1] = work[slot]
        work[slot] = move
    d = max(depth, 1)
    work[_history_index(move, black)] += d * d
    for i in range(at, cut):
        work[_history_index(buf[0, i], black)] -= d * d


@njit
def _reduction(depth: int, index: int) -> int:
    """Late-move reduction of the ``index``-th quiet move (from 0) at ``depth``: more for later moves deeper down."""
    if index < 1:
        return 0
    if index < 3 or depth < 4:
        return 1
    if index < 6 or depth < 7:
        return 2
    return 3


@njit
def _update_pv(pv: Array, work: Array, ply: int, move: int) -> None:
    pv[ply, ply] = move
    child = work[PV_LENGTH + ply + 1]
    for j in range(ply + 1, child):
        pv[ply, j] = pv[ply + 1, j]
    work[PV_LENGTH + ply] = max(child, ply + 1)


@njit
def pvs(
    me: int,
    opp: int,
    kings: int,
    black: bool,
    h: int,
    clock: int,
    depth: int,
    ply: int,
    alpha: int,
    beta: int,
    k: t.Constants,
    table: Array,
    buf: mg.Buffer,
    stack: mg.Buffer,
    keys: Array,
    work: Array,
    pv: Array,
    db: Array,
    deadline: float,
) -> int:
    """The value of the node for the side to move, searched ``depth`` plies deep within ``(alpha, beta)``.

    At the root (ply 0) the moves are the ``work[ROOT_MOVES]`` moves the caller put at the start of ``buf``, searched
    in that order, and the best one proven so far is recorded in ``work[ROOT_BEST]`` (its index) and
    ``work[ROOT_SCORE]``.
    """
    if _tick(work, deadline):
        return 0
    work[PV_LENGTH + ply] = ply
    if not me:
        return ply - MATE
    if clock >= k[t.MOVE_LIMIT]:
        return 0
    if ply and db[0] and popcount(me | opp) <= db[0]:
        known = probe_database(me, opp, kings, black, db)
        if known == DRAW:
            return 0
        if known != UNKNOWN:  # a win or a loss
            sign = 1 if known == WIN else -1
            if popcount(me | opp) != work[ROOT_PIECES] or (me | opp) & ~kings != work[ROOT_MEN]:
                return sign * (KNOWN_WIN - ply)
            if depth <= 0:
                winner, loser = (me, opp) if known == WIN else (opp, me)
                return sign * (KNOWN_WIN - PROGRESS_BASE + progress(winner, loser, kings, k))
    leaf = depth <= 0 or ply >= MAX_PLY
    if leaf and not mg.jumpers(me, opp, kings, black, k) and mg.step_count(me, opp, kings, black, k):
        return evaluate(me, opp, kings, black, k) + drive(me, opp, kings, k)  # a quiet leaf: no need for its moves
    alpha, beta = mate_window(alpha, beta, ply)
    if alpha >= beta:
        return alpha
    root = ply == 0
    at = ply * mg.MAX_MOVES
    tt_move = mg.NO_MOVE
    row = -1 if root else probe(table, h)
    if row >= 0:
        tt_move = table[row, MOVE]
        if depth_of(table, row) >= depth:
            stored = from_tt(table[row, SCORE], ply)
            flag = flag_of(table, row)
            if flag == EXACT or (flag == LOWER and stored >= beta) or (flag == UPPER and stored <= alpha):
                return stored
    end = at + work[ROOT_MOVES] if root else mg.generate(me, opp, kings, black, k, buf, at, stack)
    if end == at:
        if k[t.PASSES] == 0:
            return ply - MATE
        if mg.can_pass(me, opp, kings, black, k, buf, at, stack):
            buf[0, at] = mg.PASS
            end = at + 1
        elif k[t.COUNT_WINS]:
            diff = popcount(me) - popcount(opp)
            return MATE - ply if diff > 0 else ply - MATE if diff < 0 else 0
        else:
            return 0
    capture = (buf[0, at] & mg.CAPTURED) != 0
    if leaf and not capture:
        return evaluate(me, opp, kings, black, k) + drive(me, opp, kings, k)  # a blocked side that passes
    ordered = end - at > 1 and not root
    if ordered:
        _order(buf, at, end, tt_move, ply, black, capture, work)
    next_depth = depth - 1 if end - at > 1 or depth <= 0 else depth
    keys[work[ROOT] + ply] = h
    alpha0 = alpha
    best = -INFINITE
    best_move = buf[0, at]
    reducible = depth >= 3 and not capture and beta - alpha == 1 and not root
    for i in range(at, end):
        move = _pick(buf, i, end) if ordered else buf[0, i]
        c_me, c_opp, c_kings = mg.apply(me, opp, kings, black, move, k)
        c_h = mg.key_after(h, kings, black, move, k)
        c_clock = mg.clock_after(clock, kings, move)
        work[PV_LENGTH + ply + 1] = ply + 1
        if c_clock and move != mg.PASS and _repeats(keys, work[ROOT] + ply + 1, c_h, c_clock):
            value = 0
        elif i == at:
            value = -pvs(
                c_me, c_opp, c_kings, not black, c_h, c_clock, next_depth, ply + 1, -beta, -alpha,
                k, table, buf, stack, keys, work, pv, db, deadline,
            )  # fmt: skip
        else:
            reduced = next_depth - _reduction(depth, i - at) if reducible else next_depth
            value = -pvs(
                c_me, c_opp, c_kings, not black, c_h, c_clock, reduced, ply + 1, -alpha - 1, -alpha,
                k, table, buf, stack, keys, work, pv, db, deadline,
            )  # fmt: skip
            if value > alpha and reduced < next_depth:
                value = -pvs(
                    c_me, c_opp, c_kings, not black, c_h, c_clock, next_depth, ply + 1, -alpha - 1, -alpha,
                    k, table, buf, stack, keys, work, pv, db, deadline,
                )  # fmt: skip
            if alpha < value < beta:
                value = -pvs(
                    c_me, c_opp, c_kings, not black, c_h, c_clock, next_depth, ply + 1, -beta, -alpha,
                    k, table, buf, stack, keys, work, pv, db, deadline,
                )  # fmt: skip
        if work[STOP]:
            return 0
        if value > best:
            best = value
            best_move = move
            if value > alpha:
                alpha = value
                _update_pv(pv, work, ply, move)
                if root:
                    work[ROOT_BEST] = i
                    work[ROOT_SCORE] = value
                if alpha >= beta:
                    if not capture and move != mg.PASS:
                        _reward(buf, at, i, ply, depth, black, work)
                    break
    flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
    store(table, h, depth, flag, to_tt(best, ply), best_move, work[GENERATION])
    return best


Position = tuple[int, int, int, bool, int, int]
"""A node as :func:`pvs` takes it: the mover's and the opponent's pieces, the kings, whether Black moves, the key and
the clock of moves without a capture or a man's move."""
Context = tuple[t.Constants, Array, mg.Buffer, mg.Buffer, Array, Array, Array, Array]
"""What every node of one search shares, in :func:`pvs`'s order: the variant's constants, the transposition table, the
move buffer, the undo stack, the keys of the game so far, the work counters, the principal variations and the endgame
database (:func:`ai.egdb.empty_database` for none)."""


@njit
def search(
    position: Position, roots: Array, max_depth: int, seconds: float, max_nodes: int, context: Context, line: Array
) -> tuple[int, int, int, int]:
    """Search the root moves ``roots`` (tried in that order at first) of ``position`` by iterative deepening.

    ``seconds`` (0 for none) and ``max_nodes`` (0 for none) bound the search; ``work[ROOT]`` must hold the index of
    the root's key in ``keys`` and ``work[GENERATION]`` the number of this search. Returns the best move, its score,
    the last completed depth and the length of the principal variation written to ``line``.
    """
    me, opp, kings, black, h, clock = position
    k, table, buf, stack, keys, work, pv, db = context
    start = now()
    deadline = start + seconds if seconds > 0.0 else 0.0
    every = 1024
    while max_nodes and every > 1 and every > max_nodes // 4:
        every //= 2
    work[NODES] = 0
    work[STOP] = 0
    work[MAX_NODES] = max_nodes
    work[CHECK_MASK] = every - 1
    work[KILLERS:HISTORY] = 0
    work[HISTORY:PV_LENGTH] //= 2  # the history of earlier searches in this game still orders, at half weight
    work[PV_LENGTH:] = 0
    work[ROOT_MOVES] = len(roots)
    buf[0, : len(roots)] = roots
    keys[work[ROOT]] = h
    work[ROOT_PIECES] = popcount(me | opp)
    work[ROOT_MEN] = (me | opp) & ~kings
    root_ply = int(0)  # noqa: UP018, RUF046  (an int64, not a literal: see the module's docstring)
    best = roots[0]
    score = 0
    done = 0
    length = 0
    line[0] = best
    for depth in range(1, max_depth + 1):
        if depth >= ASPIRATION_FROM and abs(score) < MATE_BOUND:
            alpha = score - ASPIRATION
            beta = score + ASPIRATION
        else:
            alpha = -INFINITE
            beta = INFINITE
        previous_best = best
        previous_score = score
        work[ROOT_BEST] = -1  # a fail-high keeps its move while the wider search runs; a fail-low proves none
        while True:
            value = pvs(
                me, opp, kings, black, h, clock, depth, root_ply, alpha, beta,
                k, table, buf, stack, keys, work, pv, db, deadline,
            )  # fmt: skip
            if work[STOP] or alpha < value < beta:
                break
            if value <= alpha:
                alpha = -INFINITE
            else:
                beta = INFINITE
        found = work[ROOT_BEST]
        if found >= 0:
            best = buf[0, found]
            score = work[ROOT_SCORE]
            length = work[PV_LENGTH]
            line[:length] = pv[0, :length]
            for j in range(found, 0, -1):
                buf[0, j] = buf[0, j - 1]
            buf[0, 0] = best
        if work[STOP]:
            break
        done = depth
        if abs(score) > MATE_BOUND and depth > MATE - abs(score):
            break
        if deadline > 0.0 and now() - start >= seconds * SOFT_SHARE:
            unsure = depth > 1 and (best != previous_best or score <= previous_score - DROP)
            if not unsure:
                break
    return best, score, done, max(length, 1)
