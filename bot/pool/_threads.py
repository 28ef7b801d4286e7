"""The AI in threads of the bot's own process, for hosts where worker processes cost too much memory; game reviews
there too, at low priority (:mod:`bot.pool._slots`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar, TypeVarTuple

from ai.api import GameInput, Limits, SearchResult, choose_move, warm_up
from ai.review import REVIEW_NODES, GameReview, assemble, evaluate_position
from bot.pool._slots import PrioritySlots

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


class ThreadChooser:
    """AI searches in threads of this process (``USE_THREADS``): for small hosts where worker processes cost too much
    memory. The searches hold the GIL, so the event loop slows while one runs; the process pool is the default."""

    def __init__(self, workers: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kingme-ai")
        self._workers = workers
        self._slots = PrioritySlots(workers)
        """Threads for moves first, then for the slices of reviews: the executor never queues a move behind one."""
        self._in_flight = 0
        self._closed = False

    @property
    def healthy(self) -> bool:
        return not self._closed

    @property
    def capacity(self) -> int:
        """Moves it can run at once: one per thread."""
        return self._workers

    @property
    def queue_depth(self) -> int:
        return max(0, self._in_flight - self._workers)

    @property
    def busy_workers(self) -> int:
        return min(self._in_flight, self._workers)

    @property
    def worker_pids(self) -> tuple[int, ...]:
        return ()

    async def start(self) -> None:
        """Compile the search kernel or load it from its cache now, so that no move waits for it."""
        await asyncio.to_thread(warm_up)

    async def close(self) -> None:
        self._closed = True
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self._in_flight += 1
        try:
            return await self._run(False, choose_move, level, game, limits, seed)
        finally:
            self._in_flight -= 1

    async def review(self, game: GameInput) -> GameReview:
        """Review a game one position at a time, each slice run only when a thread is free and no move waits."""
        positions = [
            await self._run(True, evaluate_position, game, ply, REVIEW_NODES) for ply in range(len(game.moves) + 1)
        ]
        return assemble(game, positions)

    async def _run(self, low: bool, function: Callable[[*Ts], T], *args: *Ts) -> T:
        await self._slots.acquire(low=low)
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)
        finally:
            self._slots.release()
