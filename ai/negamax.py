"""Plain negamax alpha-beta on raw bitboards: the search of the fixed-depth levels (medium, cautious, greedy).

The players differ only in the parameters of :class:`Negamax`: how a won game is scored (:attr:`Negamax.win`, by its
distance from the root or not), whether the search goes on past the depth limit while captures are pending (so that an
exchange is never evaluated half-way) and the ply at which it stops whatever is going on. ``master`` and ``hard`` play
the compiled kernel's richer search (:mod:`ai.kernel`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from ai.budget import Budget, OutOfBudget
from ai.evaluation import Evaluate
from ai.rawgame import DRAW, Rules, apply, expand
from core.movegen import RawMove

Node = tuple[int, int, int, bool]
"""A search node ``(me, opp, kings, black)`` (see :mod:`ai.rawgame`)."""
NO_PLY_LIMIT = 1 << 30


class Negamax:
    """One search's alpha-beta over the nodes below a root."""

    __slots__ = ("budget", "evaluate", "extend_captures", "gen", "max_ply", "rules", "win")

    def __init__(
        self,
        rules: Rules,
        evaluate: Evaluate,
        budget: Budget,
        win: Callable[[int], float],
        *,
        extend_captures: bool = False,
        max_ply: int = NO_PLY_LIMIT,
    ) -> None:
        self.rules, self.gen, self.evaluate, self.budget = rules, rules.gen, evaluate, budget
        self.win = win
        """The value of a game won ``ply`` plies below the root (a lost one is worth its negation)."""
        self.extend_captures = extend_captures
        """At the depth limit, search on while the side to move has a capture."""
        self.max_ply = max_ply
        """The ply at which a node is evaluated whatever is going on there."""

    def deepen(self, root: Node, moves: list[RawMove], max_depth: int) -> Iterator[tuple[int, int, float]]:
        """Iterative deepening over the root ``moves``: ``(depth, index of the best move, its value)`` after each
        completed depth up to ``max_depth``, until the budget is spent. The caller may reorder ``moves`` in place
        between two depths (the indices are those of the list as it was searched)."""
        for depth in range(1, max_depth + 1):
            try:
                index, value = self.root(root, moves, depth)
            except OutOfBudget:
                return
            yield depth, index, value

    def root(self, root: Node, moves: list[RawMove], depth: int) -> tuple[int, float]:
        """The index of the best of ``moves`` from ``root`` at ``depth`` plies, and its value (the first of equals)."""
        me, opp, kings, black = root
        best, best_index, alpha = -math.inf, 0, -math.inf
        for i, move in enumerate(moves):
            c_me, c_opp, c_kings = apply(self.gen, me, opp, kings, black, move)
            value = -self.negamax(c_me, c_opp, c_kings, not black, depth - 1, 1, -math.inf, -alpha)
            if value > best:
                best, best_index = value, i
                alpha = max(alpha, value)
        return best_index, best

    def negamax(
        self, me: int, opp: int, kings: int, black: bool, depth: int, ply: int, alpha: float, beta: float
    ) -> float:
        """The value of a node for its side to move, exact inside ``(alpha, beta)`` (fail-soft)."""
        self.budget.tick()
        moves = expand(self.rules, me, opp, kings, black)
        if isinstance(moves, int):
            return 0.0 if moves == DRAW else moves * self.win(ply)
        if (depth <= 0 and not (self.extend_captures and moves[0][2])) or ply >= self.max_ply:
            return self.evaluate(me, opp, kings, black)
        best = -math.inf
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
