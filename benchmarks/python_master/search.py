"""``python-master``: the pure-Python iterative-deepening principal-variation search (negamax) on raw bitboards that
``master`` played before the compiled kernel (:mod:`ai.kernel`), kept here as a benchmark of the kernel's progress;
the product does not ship it.

- A transposition table (:mod:`benchmarks.python_master.tt`) keyed by the Zobrist hash, kept incrementally.
- Move ordering: the table's move, then captures by the number of pieces taken, killer moves (two per ply) and the
  history heuristic.
- Capture quiescence: captures are compulsory, so at the depth limit the search goes on while the side to move has a
  capture, and a position is only evaluated when it is quiet. A node with a single legal move is not counted as a ply.
- Draws from the game's history: a position that has already occurred (in the game since the last irreversible move,
  or on the search path) scores as a draw, and so does reaching the 80-ply rule.
- Mate-distance scores: a win ``ply`` plies from the root is worth ``MATE - ply``, so the quickest win and the
  slowest loss are preferred.
- Time control: the clock is read every 1024 nodes; an iteration that is cut off keeps the best root move it had
  completed, and no new iteration starts once half of the time is gone.
- The evaluation is :func:`ai.features.make_evaluator` with the weights tuned on self-play data.
"""

from __future__ import annotations

import random

from ai.budget import Budget, OutOfBudget
from ai.features import Evaluate, make_evaluator
from ai.player import Limits, SearchResult
from ai.rawgame import PASS_RAW, Rules, node_of, root_moves
from ai.tt import EXACT, LOWER, MATE, MATE_BOUND, UPPER, from_tt, mate_window, to_tt
from benchmarks.python_master.tt import TranspositionTable
from core import Board, Variant, zobrist
from core.movegen import RawMove

DEFAULT_TIME = 2.0
MAX_PLY = 128
MAX_DEPTH = 60
_TABLES: dict[str, TranspositionTable] = {}
_EVALUATORS: dict[int, Evaluate] = {}


def table_for(variant: Variant) -> TranspositionTable:
    """The transposition table of a variant, kept between moves in this process."""
    table = _TABLES.get(variant.name)
    if table is None:
        table = _TABLES[variant.name] = TranspositionTable()
    return table


def evaluator_for(variant: Variant) -> Evaluate:
    size = variant.geometry.size
    evaluate = _EVALUATORS.get(size)
    if evaluate is None:
        evaluate = _EVALUATORS[size] = make_evaluator(variant.geometry)
    return evaluate


def raw_text(variant: Variant, move: RawMove) -> str:
    """PDN text of a raw move."""
    frm, to, _, path = move
    if not frm:
        return "pass"
    sq = variant.geometry.square_of_bit
    if path is None:
        return f"{sq[frm]}-{sq[to]}"
    return "x".join([str(sq[frm]), *(str(sq[p]) for p in path)])


class Engine:
    """One search from one position."""

    lmr = True
    """Late-move reductions: in null-window searches, quiet moves after the first three are searched one ply less
    first (and again at full depth if they beat alpha)."""

    def __init__(self, board: Board, limits: Limits, table: TranspositionTable | None = None) -> None:
        variant = board.variant
        self.variant = variant
        self.rules = Rules.of(variant)
        self.gen = variant.generator
        self.evaluate = evaluator_for(variant)
        self.table = table if table is not None else table_for(variant)
        self.budget = Budget(Limits(limits.time if limits.time is not None else DEFAULT_TIME, None, limits.nodes))
        self.max_depth = min(MAX_DEPTH, limits.depth) if limits.depth is not None else MAX_DEPTH
        self.board = board
        self.move_limit = variant.move_limit
        self.seen: dict[int, int] = {}
        for h in board.history_hashes():
            self.seen[h] = self.seen.get(h, 0) + 1
        self.killers: list[list[RawMove | None]] = [[None, None] for _ in range(MAX_PLY + 64)]
        self.history: dict[int, int] = {}

    # -- root -------------------------------------------------------------------------------------------------------

    def run(self, rng: random.Random) -> SearchResult:
        board = self.board
        roots = root_moves(board)
        if len(roots) == 1:
            only = roots[0][1].text()
            return SearchResult(only, 0.0, 0, (only,), 0, 0.0)
        rng.shuffle(roots)
        self.table.new_search()
        me, opp, kings, black = node_of(board)
        h = board.hash
        moves = [raw for raw, _ in roots]
        entry = self.table.get(h)
        if entry is not None and entry[3] in moves:
            moves.remove(entry[3])
            moves.insert(0, entry[3])
        best, score, depth = moves[0], 0, 0
        for d in range(1, self.max_depth + 1):
            try:
                best, score = self._root(me, opp, kings, black, h, moves, d, board.halfmove_clock)
            except OutOfBudget as stop:
                partial = stop.args[0] if stop.args else None
                if partial is not None:
                    best, score = partial
                break
            depth = d
            moves.remove(best)
            moves.insert(0, best)
            if (abs(score) > MATE_BOUND and d > MATE - abs(score)) or self.budget.fraction_used() >= 0.5:
                break
        first = next(move.text() for raw, move in roots if raw == best)
        pv = (first, *self._pv_after(me, opp, kings, black, h, best, depth))
        return SearchResult(first, float(score), depth, pv, self.budget.nodes, self.budget.elapsed())

    def _root(
        self, me: int, opp: int, kings: int, black: bool, h: int, moves: list[RawMove], depth: int, clock: int
    ) -> tuple[RawMove, int]:
        alpha, beta = -MATE - 1, MATE + 1
        best: RawMove | None = None
        try:
            for i, move in enumerate(moves):
                c_me, c_opp, c_kings, c_h, c_clock = self._child(me, opp, kings, black, h, move, clock)
                if c_h in self.seen and move[0] & kings and not move[2]:
                    value = 0
                else:
                    self.seen[c_h] = self.seen.get(c_h, 0) + 1
                    try:
                        if i == 0:
                            value = -self._pvs(
                                c_me, c_opp, c_kings, not black, c_h, depth - 1, 1, -beta, -alpha, c_clock
                            )
                        else:
                            value = -self._pvs(
                                c_me, c_opp, c_kings, not black, c_h, depth - 1, 1, -alpha - 1, -alpha, c_clock
                            )
                            if value > alpha:
                                value = -self._pvs(
                                    c_me, c_opp, c_kings, not black, c_h, depth - 1, 1, -beta, -alpha, c_clock
                                )
                    finally:
                        self._unsee(c_h)
                if value > alpha:
                    alpha, best = value, move
        except OutOfBudget:
            raise OutOfBudget((best, alpha) if best is not None else None) from None
        assert best is not None
        self.table.store(h, depth, EXACT, to_tt(alpha, 0), best)
        return best, alpha

    def _pv_after(self, me: int, opp: int, kings: int, black: bool, h: int, move: RawMove, depth: int) -> list[str]:
        pv: list[str] = []
        seen = {h}
        for _ in range(max(0, depth - 1)):
            me, opp, kings, h, _clock = self._child(me, opp, kings, black, h, move, 0)
            black = not black
            entry = self.table.get(h)
            if entry is None or entry[3] is None or h in seen:
                break
            seen.add(h)
            legal = self.gen.moves(me, opp, kings, black) or [PASS_RAW]
            if entry[3] not in legal:
                break
            move = entry[3]
            pv.append(raw_text(self.variant, move))
        return pv

    # -- tree -------------------------------------------------------------------------------------------------------

    def _unsee(self, h: int) -> None:
        n = self.seen[h] - 1
        if n:
            self.seen[h] = n
        else:
            del self.seen[h]

    def _child(
        self, me: int, opp: int, kings: int, black: bool, h: int, move: RawMove, clock: int
    ) -> tuple[int, int, int, int, int]:
        """The child ``(me, opp, kings, hash, clock)`` after ``move`` (sides swapped)."""
        frm, to, captured, _ = move
        h ^= zobrist.WHITE_TO_MOVE
        if not frm:
            return opp, me, kings, h, clock + 1
        own_man, own_king, opp_man, opp_king = zobrist.MOVER_TABLES[black]
        crown = self.gen.black_crown if black else self.gen.white_crown
        me = (me ^ frm) | to
        if kings & frm:
            h ^= own_king[frm] ^ own_king[to]
            new_kings = (kings ^ frm) | to
            clock = 0 if captured else clock + 1
        else:
            h ^= own_man[frm]
            if to & crown:
                h ^= own_king[to]
                new_kings = kings | to
            else:
                h ^= own_man[to]
                new_kings = kings
            clock = 0
        if captured:
            rest = captured
            while rest:
                low = rest & -rest
                rest ^= low
                h ^= opp_king[low] if kings & low else opp_man[low]
            new_kings &= ~captured
            opp &= ~captured
        return opp, me, new_kings, h, clock

    def _pvs(
        self,
        me: int,
        opp: int,
        kings: int,
        black: bool,
        h: int,
        depth: int,
        ply: int,
        alpha: int,
        beta: int,
        clock: int,
    ) -> int:
        self.budget.tick()
        if not me:
            return ply - MATE
        if clock >= self.move_limit:
            return 0
        gen = self.gen
        if (
            (depth <= 0 or ply >= MAX_PLY)
            and not gen.has_capture(me, opp, kings, black)
            and gen.counter(black)(me, opp, kings)
        ):
            return self.evaluate(me, opp, kings, black)  # a quiet leaf: no need to generate its moves
        alpha, beta = mate_window(alpha, beta, ply)
        if alpha >= beta:
            return alpha
        table = self.table
        entry = table.get(h)
        tt_move = None
        if entry is not None:
            e_depth, flag, e_score, tt_move, _ = entry
            if e_depth >= depth:
                e_score = from_tt(e_score, ply)
                if flag == EXACT:
                    return e_score
                if flag == LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score
        moves = gen.moves(me, opp, kings, black)
        if not moves:
            rules = self.rules
            if not rules.passes:
                return ply - MATE
            if opp and gen.count(opp, me, kings, not black):
                moves = [PASS_RAW]
            elif rules.count_wins:
                diff = me.bit_count() - opp.bit_count()
                return MATE - ply if diff > 0 else ply - MATE if diff < 0 else 0
            else:
                return 0
        is_capture = moves[0][2] != 0
        if (depth <= 0 or ply >= MAX_PLY) and not is_capture:
            return self.evaluate(me, opp, kings, black)  # a blocked side that passes
        if len(moves) > 1:
            moves = self._order(moves, tt_move, ply, black, is_capture)
            next_depth = depth - 1
        else:
            next_depth = depth if depth > 0 else depth - 1
        alpha0 = alpha
        best = -MATE - 1
        best_move = moves[0]
        seen = self.seen
        first = True
        reducible = self.lmr and depth >= 3 and not is_capture and beta - alpha == 1
        for i, move in enumerate(moves):
            c_me, c_opp, c_kings, c_h, c_clock = self._child(me, opp, kings, black, h, move, clock)
            if c_h in seen and move[0] & kings and not move[2]:
                value = 0
            else:
                seen[c_h] = seen.get(c_h, 0) + 1
                try:
                    if first:
                        value = -self._pvs(
                            c_me, c_opp, c_kings, not black, c_h, next_depth, ply + 1, -beta, -alpha, c_clock
                        )
                    else:
                        # A null window, first one ply shallower for a late quiet move, then at full depth if it
                        # beat alpha.
                        reduction = 1 if reducible and i >= 3 else 0
                        for d in range(next_depth - reduction, next_depth + 1):
                            value = -self._pvs(
                                c_me, c_opp, c_kings, not black, c_h, d, ply + 1, -alpha - 1, -alpha, c_clock
                            )
                            if value <= alpha:
                                break
                        if alpha < value < beta:
                            value = -self._pvs(
                                c_me, c_opp, c_kings, not black, c_h, next_depth, ply + 1, -beta, -alpha, c_clock
                            )
                finally:
                    n = seen[c_h] - 1
                    if n:
                        seen[c_h] = n
                    else:
                        del seen[c_h]
            first = False
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if not move[2]:
                            self._reward(move, ply, depth, black)
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        table.store(h, depth, flag, to_tt(best, ply), best_move)
        return best

    def _order(
        self, moves: list[RawMove], tt_move: RawMove | None, ply: int, black: bool, is_capture: bool
    ) -> list[RawMove]:
        if is_capture:
            scored = sorted(moves, key=lambda m: -m[2].bit_count())
        else:
            history = self.history
            k1, k2 = self.killers[ply]
            side = 0 if black else 4096

            def score(m: RawMove) -> int:
                if m == k1:
                    return -1 << 40
                if m == k2:
                    return -1 << 39
                return -history.get(side + m[0].bit_length() * 64 + m[1].bit_length(), 0)

            scored = sorted(moves, key=score)
        if tt_move is not None and tt_move in scored:
            scored.remove(tt_move)
            scored.insert(0, tt_move)
        return scored

    def _reward(self, move: RawMove, ply: int, depth: int, black: bool) -> None:
        slot = self.killers[ply]
        if slot[0] != move:
            slot[1] = slot[0]
            slot[0] = move
        key = (0 if black else 4096) + move[0].bit_length() * 64 + move[1].bit_length()
        self.history[key] = self.history.get(key, 0) + max(depth, 1) * max(depth, 1)


class MasterPlayer:
    """The strongest level: the search of this module on the tuned evaluation; perfect play on ``mini``."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        if board.variant.name == "mini":
            from ai.mini_solver import choose_solved

            return choose_solved(board, rng)
        return Engine(board, limits).run(rng)
