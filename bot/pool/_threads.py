"""The AI in threads of the bot's own process, for hosts where worker processes cost too much memory."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from ai.api import GameInput, Limits, SearchResult, choose_move, warm_up


class ThreadChooser:
    """AI searches in threads of this process (``USE_THREADS``): for small hosts where worker processes cost too much
    memory. The searches hold the GIL, so the event loop slows while one runs; the process pool is the default."""

    def __init__(self, workers: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kingme-ai")
        self._workers = workers
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
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._executor, choose_move, level, game, limits, seed)
        finally:
            self._in_flight -= 1
