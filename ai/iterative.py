"""The ``steady`` level (``hard`` before the compiled kernel): iterative-deepening alpha-beta under a time limit,
reading exchanges to the end.

- Iterative deepening under a time limit (1 s a move by default): alpha-beta to depth 1, 2, 3, ...; if at any point
  the time is up the search in progress is dropped and the move of the last completed depth is played; if half the
  time has passed when a depth is completed, the search stops there (the next depth would not finish in time).
- A single legal move is played at once, without searching.
- The evaluation is applied at the depth limit or when the side to move cannot move, except that the search goes on
  while captures are pending, so that an exchange is never evaluated half-way.
- The early-game / end-game heuristic of :class:`ai.evaluation.TwoPhaseEvaluator`, with its small random value.
- A won or lost game is worth ``±WIN_UNIT × (MAX_PLY − ply)``: shifted far beyond the heuristic and in proportion to
  the remaining depth, so that the quickest win and the slowest loss are preferred.
"""

from __future__ import annotations

import random

from ai.budget import Budget
from ai.evaluation import TwoPhaseEvaluator
from ai.negamax import Negamax
from ai.player import Limits, SearchResult
from ai.rawgame import Rules, node_of, root_moves
from core import Board

WIN_UNIT = 1000.0
MAX_PLY = 256
DEFAULT_TIME = 1.0
MAX_DEPTH = 64


def win_value(ply: int) -> float:
    """The value of a game won ``ply`` plies below the root (its negation for a lost one)."""
    return WIN_UNIT * (MAX_PLY - ply)


class SteadyPlayer:
    """Iterative deepening alpha-beta with capture extension and the two-phase heuristic."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        roots = root_moves(board)
        if len(roots) == 1:
            only = roots[0][1].text()
            return SearchResult(only, 0.0, 0, (only,), 0, 0.0)
        budget = Budget(Limits(limits.time if limits.time is not None else DEFAULT_TIME, None, limits.nodes))
        evaluate = TwoPhaseEvaluator(board.variant.geometry, rng)
        search = Negamax(
            Rules.of(board.variant), evaluate, budget, win_value, extend_captures=True, max_ply=MAX_PLY - 1
        )
        max_depth = min(MAX_DEPTH, limits.depth or MAX_DEPTH)
        order = list(range(len(roots)))
        moves = [raw for raw, _ in roots]
        best, score, depth = rng.randrange(len(roots)), 0.0, 0
        for d, index, value in search.deepen(node_of(board), moves, max_depth):
            best, score, depth = order[index], value, d
            order.insert(0, order.pop(index))  # the best move first at the next depth
            moves.insert(0, moves.pop(index))
            if abs(value) >= win_value(MAX_PLY // 2) or budget.fraction_used() >= 0.5:
                break
        move = roots[best][1].text()
        return SearchResult(move, score, depth, (move,), budget.nodes, budget.elapsed())
