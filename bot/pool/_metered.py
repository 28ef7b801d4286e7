"""Timing the AI's moves into the bot's metrics, around whichever chooser runs them."""

from __future__ import annotations

import time

from ai.api import GameInput, Limits, SearchResult
from bot.metrics import Metrics
from bot.pool._backend import AiBackend


class MeteredChooser:
    """Times every AI move into ``kingme_ai_move_seconds``."""

    def __init__(self, chooser: AiBackend, metrics: Metrics) -> None:
        self._chooser = chooser
        self._metrics = metrics

    @property
    def capacity(self) -> int:
        return self._chooser.capacity

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        started = time.perf_counter()
        result = await self._chooser.choose(level, game, limits, seed)
        self._metrics.ai_latency.observe(time.perf_counter() - started)
        return result
