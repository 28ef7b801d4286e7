"""Prometheus metrics, written with prometheus-client.

One :class:`Metrics` object per running bot, with its own registry (so tests can run several), created in the
composition root and handed to the parts that record into it. Gauges that mirror live state (active games, the AI
queue) are read through callbacks when ``/metrics`` is scraped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from bot.service import Event, GameOver, MovePlayed

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)


class Metrics:
    """The bot's metrics and the registry that serves them."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        counter = partial(Counter, registry=self.registry)
        gauge = partial(Gauge, registry=self.registry)
        latency = partial(Histogram, buckets=LATENCY_BUCKETS, registry=self.registry)
        self.moves = counter("kingme_moves", "Moves played, by who played them", ["player"])
        self.games_finished = counter("kingme_games_finished", "Games that ended, by how", ["termination"])
        self.active_games = gauge("kingme_active_games", "Games in progress")
        self.ai_queue_depth = gauge("kingme_ai_queue_depth", "AI moves waiting or running")
        self.ai_busy_workers = gauge("kingme_ai_busy_workers", "AI workers searching")
        self.ai_live_workers = gauge("kingme_ai_live_workers", "AI worker processes alive")
        self.ai_latency = latency("kingme_ai_move_seconds", "Time from asking the AI for a move to its answer")
        self.interaction_latency = latency(
            "kingme_interaction_seconds", "Time from receiving a Discord interaction to its first response", ["kind"]
        )
        self.interaction_errors = counter(
            "kingme_interaction_errors", "Interactions answered with an error message", ["kind"]
        )
        self.sweeper_lease = gauge("kingme_sweeper_lease_held", "1 while this process holds the sweeper's lease")
        self.sweeps = gauge("kingme_sweeps", "Sweeps this process has run since it started")

    def bind_ai(
        self,
        queue_depth: Callable[[], float],
        busy_workers: Callable[[], float],
        live_workers: Callable[[], float] | None = None,
    ) -> None:
        """Read the AI pool's queue depth, busy workers and live workers at scrape time."""
        self.ai_queue_depth.set_function(queue_depth)
        self.ai_busy_workers.set_function(busy_workers)
        if live_workers is not None:
            self.ai_live_workers.set_function(live_workers)

    def bind_sweeper(self, holds_lease: Callable[[], bool], runs: Callable[[], int]) -> None:
        """Read whether this process runs the sweeps, and how many it ran, at scrape time."""
        self.sweeper_lease.set_function(lambda: float(holds_lease()))
        self.sweeps.set_function(lambda: float(runs()))

    def count_events(self, events: Sequence[Event]) -> None:
        """Count the moves (``kingme_moves_total{player}``, ``human`` or ``ai``) and the endings
        (``kingme_games_finished_total{termination}``) among the events of a committed step: the game service's
        observer. Counting committed events counts each move once, whether it came from a command, a click or an AI
        turn, and none that was refused; the events say who moved, so nothing is read back from the position."""
        for event in events:
            if isinstance(event, MovePlayed):
                self.moves.labels("ai" if event.ai else "human").inc()
            elif isinstance(event, GameOver):
                self.games_finished.labels(event.termination or "unknown").inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)
