"""The ``hard`` level: seed 004's iterative-deepening alpha-beta player (``shared/seeds/004_*``, alorber/AI-Checkers).

What the seed describes, and how it is done here:

- Iterative deepening under a time limit (1 s a move by default): alpha-beta to depth 1, 2, 3, ...; if at any point
  the time is up the search in progress is dropped and the move of the last completed depth is played; if half the
  time has passed when a depth is completed, the search stops there (the next depth would not finish in time).
- A single legal move is played at once, without searching.
- The evaluation is applied at the depth limit or when the side to move cannot move, except that the search goes on
  while captures are pending, so that an exchange is never evaluated half-way.
- The early-game / end-game heuristic of :class:`ai.evaluation.Seed004Evaluator`, with its small random value.
- A won or lost game is worth ``±WIN_UNIT × (MAX_PLY − ply)``: shifted far beyond the heuristic and in proportion to
  the remaining depth, so that the quickest win and the slowest loss are preferred.
"""

from __future__ import annotations

import random

from ai.api import Limits, SearchResult
from ai.budget import Budget, OutOfBudget
from ai.evaluation import Seed004Evaluator
from ai.rawgame import DRAW, Rules, apply, expand, node_of, root_moves
from core import Board
from core.movegen import RawMove

WIN_UNIT = 1000.0
MAX_PLY = 256
DEFAULT_TIME = 1.0
MAX_DEPTH = 64


def win_value(ply: int) -> float:
    """The value of a game won ``ply`` plies below the root (its negation for a lost one)."""
    return WIN_UNIT * (MAX_PLY - ply)


class HardPlayer:
    """Seed 004's player: iterative deepening alpha-beta with capture extension and the two-phase heuristic."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        roots = root_moves(board)
        if len(roots) == 1:
            only = roots[0][1].text()
            return SearchResult(only, 0.0, 0, (only,), 0, 0.0)
        budget = Budget(Limits(limits.time if limits.time is not None else DEFAULT_TIME, None, limits.nodes))
        search = _Search(Rules.of(board.variant), Seed004Evaluator(board.variant.geometry, rng), budget)
        me, opp, kings, black = node_of(board)
        order = list(range(len(roots)))
        best, score, depth = rng.randrange(len(roots)), 0.0, 0
        for d in range(1, min(MAX_DEPTH, limits.depth or MAX_DEPTH) + 1):
            try:
                index, value = search.root(me, opp, kings, black, [roots[i][0] for i in order], d)
            except OutOfBudget:
                break
            best, score, depth = order[index], value, d
            order.remove(best)
            order.insert(0, best)
            if abs(value) >= win_value(MAX_PLY // 2) or budget.fraction_used() >= 0.5:
                break
        move = roots[best][1].text()
        return SearchResult(move, score, depth, (move,), budget.nodes, budget.elapsed())


class _Search:
    __slots__ = ("budget", "evaluate", "gen", "rules")

    def __init__(self, rules: Rules, evaluate: Seed004Evaluator, budget: Budget) -> None:
        self.rules, self.gen, self.evaluate, self.budget = rules, rules.gen, evaluate, budget

    def root(self, me: int, opp: int, kings: int, black: bool, moves: list[RawMove], depth: int) -> tuple[int, float]:
        best, best_index, alpha = -float("inf"), 0, -float("inf")
        for i, move in enumerate(moves):
            c_me, c_opp, c_kings = apply(self.gen, me, opp, kings, black, move)
            value = -self.negamax(c_me, c_opp, c_kings, not black, depth - 1, 1, -float("inf"), -alpha)
            if value > best:
                best, best_index = value, i
                alpha = max(alpha, value)
        return best_index, best

    def negamax(
        self, me: int, opp: int, kings: int, black: bool, depth: int, ply: int, alpha: float, beta: float
    ) -> float:
        self.budget.tick()
        moves = expand(self.rules, me, opp, kings, black)
        if isinstance(moves, int):
            return 0.0 if moves == DRAW else moves * win_value(ply)
        if (depth <= 0 and not moves[0][2]) or ply >= MAX_PLY - 1:
            return self.evaluate(me, opp, kings, black)
        best = -float("inf")
        gen = self.gen
        for move in moves:
            c_me, c_opp, c_kings = apply(gen, me, opp, kings, black, move)
            value = -self.negamax(c_me, c_opp, c_kings, not black, depth - 1, ply + 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best
