"""What the composition root needs of the AI compute, whichever runs it (worker processes or threads)."""

from __future__ import annotations

from typing import Protocol

from ai.api import GameInput, Limits, SearchResult
from ai.review import GameReview


class AiBackend(Protocol):
    """Chooses AI moves (so it serves as the game service's ``MoveChooser``) and reviews games, with a lifecycle and
    the gauges that ``/healthz`` and ``/metrics`` read."""

    @property
    def capacity(self) -> int:
        """Moves it can run at once (the game service never asks for more at a time, so none waits inside)."""
        ...

    @property
    def healthy(self) -> bool: ...

    @property
    def queue_depth(self) -> int: ...

    @property
    def busy_workers(self) -> int: ...

    @property
    def worker_pids(self) -> tuple[int, ...]: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult: ...

    async def review(self, game: GameInput) -> GameReview:
        """Review a finished game without delaying live moves (so it serves as the game service's
        ``GameReviewer``)."""
        ...
