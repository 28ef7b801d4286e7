"""Fixed-depth alpha-beta players from the seed documents, on raw bitboards.

- ``medium``: seed 002 (``shared/seeds/002_*``), "Medium: Alpha Beta search with a uniform search depth limit of 5",
  evaluated with seed 003's material count (:func:`ai.evaluation.material_003`, ±500 for a won or lost game).
- ``seed-ab``: seed 000 (``shared/seeds/000_*``), "Alpha-Beta Pruning AI": depth 4 with the delta evaluation
  ``ΔU_s − ΔU_o + 2(ΔK_s − ΔK_o)`` (:class:`ai.evaluation.DeltaEvaluator`), ±infinity for a won or lost game.
- ``seed-ab3``: seed 003 (``shared/seeds/003_*``), "About Alpha-Beta agent": depth 3, +500/−500 at the end, pawns 1
  and kings 2.

The search is plain negamax alpha-beta: the evaluation is applied at the depth limit whatever is going on there, as in
the seeds. Equal moves are chosen between at random (the root moves are shuffled with the caller's ``rng``). The depth
is reached by iterative deepening so that a caller's time or node limit can stop the search early with the move of the
last full iteration; with no such limit the result is that of the plain fixed-depth search.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ai.api import Limits, SearchResult
from ai.budget import Budget, OutOfBudget
from ai.evaluation import SEED_003_WIN, DeltaEvaluator, material_003
from ai.rawgame import DRAW, Rules, apply, expand, node_of, root_moves
from core import Board
from core.movegen import RawMove

Evaluate = Callable[[int, int, int, bool], float]
REPORTED_INFINITY = 1e9
"""Seed 000 scores won and lost games as ±infinity; results report them as ±1e9 (JSON has no infinity)."""


def _material(me: int, opp: int, kings: int, black: bool) -> float:
    return material_003(me, opp, kings)


class AlphaBetaPlayer:
    """Negamax alpha-beta to a fixed depth with a pluggable evaluation (subclasses choose the seed's)."""

    default_depth = 5
    win_score = SEED_003_WIN

    def evaluator(self, board: Board) -> Evaluate:
        """The evaluation for a search from ``board`` (side-to-move point of view)."""
        return _material

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        roots = root_moves(board)
        rng.shuffle(roots)
        budget = Budget(limits)
        depth_limit = max(1, limits.depth if limits.depth is not None else self.default_depth)
        search = _Search(Rules.of(board.variant), self.evaluator(board), self.win_score, budget)
        me, opp, kings, black = node_of(board)
        best, score, depth = roots[0][1], 0.0, 0
        if len(roots) > 1 or limits.depth is not None:
            for d in range(1, depth_limit + 1):
                try:
                    index, value = search.root(me, opp, kings, black, [raw for raw, _ in roots], d)
                except OutOfBudget:
                    break
                best, score, depth = roots[index][1], value, d
        score = max(-REPORTED_INFINITY, min(REPORTED_INFINITY, score))
        return SearchResult(best.text(), score, depth, (best.text(),), budget.nodes, budget.elapsed())


class _Search:
    __slots__ = ("budget", "evaluate", "gen", "rules", "win")

    def __init__(self, rules: Rules, evaluate: Evaluate, win: float, budget: Budget) -> None:
        self.rules, self.gen, self.evaluate, self.win, self.budget = rules, rules.gen, evaluate, win, budget

    def root(self, me: int, opp: int, kings: int, black: bool, moves: list[RawMove], depth: int) -> tuple[int, float]:
        best, best_index, alpha = -math.inf, 0, -math.inf
        for i, move in enumerate(moves):
            c_me, c_opp, c_kings = apply(self.gen, me, opp, kings, black, move)
            value = -self.negamax(c_me, c_opp, c_kings, not black, depth - 1, -math.inf, -alpha)
            if value > best:
                best, best_index = value, i
                alpha = max(alpha, value)
        return best_index, best

    def negamax(self, me: int, opp: int, kings: int, black: bool, depth: int, alpha: float, beta: float) -> float:
        self.budget.tick()
        moves = expand(self.rules, me, opp, kings, black)
        if isinstance(moves, int):
            return 0.0 if moves == DRAW else moves * self.win
        if depth <= 0:
            return self.evaluate(me, opp, kings, black)
        best = -math.inf
        gen = self.gen
        for move in moves:
            c_me, c_opp, c_kings = apply(gen, me, opp, kings, black, move)
            value = -self.negamax(c_me, c_opp, c_kings, not black, depth - 1, -beta, -alpha)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best


class MediumPlayer(AlphaBetaPlayer):
    """Seed 002's "Medium": alpha-beta to depth 5, with seed 003's evaluation (man 1, king 2; ±500 at the end)."""

    default_depth = 5


class SeedAB3Player(AlphaBetaPlayer):
    """Seed 003's alpha-beta agent: depth 3, pawns 1 and kings 2 own minus the opponent's, +500/−500 at the end."""

    default_depth = 3


class SeedABPlayer(AlphaBetaPlayer):
    """Seed 000's alpha-beta AI: depth 4, ``ΔU_s − ΔU_o + 2(ΔK_s − ΔK_o)`` from the root, ±infinity when won/lost."""

    default_depth = 4
    win_score = math.inf

    def evaluator(self, board: Board) -> Evaluate:
        return DeltaEvaluator(*node_of(board))
