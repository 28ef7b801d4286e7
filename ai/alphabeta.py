"""The fixed-depth alpha-beta levels on a material count: ``medium``, ``cautious`` and ``greedy``.

All three count material at the depth limit (men 1, kings 2: :func:`ai.evaluation.material`), whatever is going on
there, and differ in how far they look and how they score the end of the game:

- ``medium`` looks 5 plies ahead; a won or lost game is worth ±500.
- ``cautious`` looks 4 plies ahead, so every line it scores ends with the opponent's reply. It scores the material
  gained since its turn began (:class:`ai.evaluation.MaterialGainEvaluator`) and a won or lost game as ±infinity.
- ``greedy`` looks 3 plies ahead, so it counts what its second move takes without seeing the answer to it; a won or
  lost game is worth ±500.

The search is :class:`ai.negamax.Negamax`. Equal moves are chosen between at random (the root moves are shuffled with
the caller's ``rng``). The depth is reached by iterative deepening so that a caller's time or node limit can stop the
search early with the move of the last full iteration; with no such limit the result is that of the plain fixed-depth
search.
"""

from __future__ import annotations

import math
import random

from ai.budget import Budget
from ai.evaluation import MATERIAL_WIN, Evaluate, MaterialGainEvaluator, material
from ai.negamax import Negamax
from ai.player import Limits, SearchResult
from ai.rawgame import Rules, node_of, root_moves
from core import Board

REPORTED_INFINITY = 1e9
"""``cautious`` scores won and lost games as ±infinity; results report them as ±1e9 (JSON has no infinity)."""


def _material(me: int, opp: int, kings: int, black: bool) -> float:
    return material(me, opp, kings)


class AlphaBetaPlayer:
    """Negamax alpha-beta to a fixed depth with a pluggable evaluation (the subclasses choose theirs)."""

    default_depth = 5
    win_score = MATERIAL_WIN

    def evaluator(self, board: Board) -> Evaluate:
        """The evaluation for a search from ``board`` (side-to-move point of view)."""
        return _material

    def win_value(self, ply: int) -> float:
        """The value of a won game, however far from the root."""
        return self.win_score

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        roots = root_moves(board)
        rng.shuffle(roots)
        budget = Budget(limits)
        depth_limit = max(1, limits.depth if limits.depth is not None else self.default_depth)
        search = Negamax(Rules.of(board.variant), self.evaluator(board), budget, self.win_value)
        best, score, depth = roots[0][1], 0.0, 0
        if len(roots) > 1 or limits.depth is not None:
            for d, index, value in search.deepen(node_of(board), [raw for raw, _ in roots], depth_limit):
                best, score, depth = roots[index][1], value, d
        score = max(-REPORTED_INFINITY, min(REPORTED_INFINITY, score))
        return SearchResult(best.text(), score, depth, (best.text(),), budget.nodes, budget.elapsed())


class MediumPlayer(AlphaBetaPlayer):
    """``medium``: alpha-beta to depth 5 on the material count (man 1, king 2; ±500 at the end)."""

    default_depth = 5


class GreedyPlayer(AlphaBetaPlayer):
    """``greedy``: alpha-beta to depth 3 on the material count (man 1, king 2; ±500 at the end)."""

    default_depth = 3


class CautiousPlayer(AlphaBetaPlayer):
    """``cautious``: alpha-beta to depth 4 on the material gained since the root; ±infinity when won or lost."""

    default_depth = 4
    win_score = math.inf

    def evaluator(self, board: Board) -> Evaluate:
        return MaterialGainEvaluator(*node_of(board))
