"""The shared handling of search limits: a budget of time and nodes that a search checks as it goes."""

from __future__ import annotations

import time

from ai.player import Limits


class OutOfBudget(Exception):  # noqa: N818  (a control-flow signal, not an error)
    """Raised inside a search when its time or node budget is spent; the search unwinds to the last full iteration."""


class Budget:
    """Time and node limits of one search. ``tick`` is called once per node; the clock is read every ``every`` nodes."""

    __slots__ = ("deadline", "every", "max_nodes", "nodes", "start")

    def __init__(self, limits: Limits, *, every: int = 1024) -> None:
        self.start = time.perf_counter()
        self.deadline = self.start + limits.time if limits.time is not None else None
        self.max_nodes = limits.nodes
        self.nodes = 0
        if limits.nodes is not None:
            while every > 1 and every > limits.nodes // 4:
                every //= 2
        self.every = every - 1

    def tick(self) -> None:
        """Count a node; raise :class:`OutOfBudget` when the budget is spent."""
        self.nodes += 1
        if not self.nodes & self.every:
            self.check()

    def check(self) -> None:
        if self.max_nodes is not None and self.nodes >= self.max_nodes:
            raise OutOfBudget
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise OutOfBudget

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def fraction_used(self) -> float:
        """How much of the time budget is spent (0 with no time limit)."""
        if self.deadline is None:
            return 0.0
        total = self.deadline - self.start
        return self.elapsed() / total if total > 0 else 1.0
