"""The AI compute of the bot: a pool of worker processes that runs the AI without blocking the event loop (or, on
small hosts, threads of the bot's own process), or a job queue on Redis served by ``kingme worker`` processes on any
machine; and the timing of its moves into the metrics.

The names below are imported when first used (PEP 562): a worker process of the pool imports this package to reach
:mod:`bot.pool._worker`, and needs neither the job queue (arq, redis) nor the metrics, whose imports would cost each
worker most of a second at every start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.pool._backend import AiBackend
    from bot.pool._early import start_early
    from bot.pool._errors import AiOfflineError, AiTimeoutError, AiUnavailableError, PoolBusyError, PoolError
    from bot.pool._metered import MeteredChooser
    from bot.pool._pool import AiPool, PoolCounters, move_time
    from bot.pool._queue import QueueBackend, QueueCounters
    from bot.pool._queue_wire import WorkerBeat
    from bot.pool._queue_worker import WorkerOptions, run_workers
    from bot.pool._threads import ThreadChooser
    from bot.pool._worker import MoveFunction

_WHERE = {
    "AiBackend": "_backend",
    "start_early": "_early",
    "AiOfflineError": "_errors",
    "AiTimeoutError": "_errors",
    "AiUnavailableError": "_errors",
    "PoolBusyError": "_errors",
    "PoolError": "_errors",
    "MeteredChooser": "_metered",
    "AiPool": "_pool",
    "PoolCounters": "_pool",
    "move_time": "_pool",
    "QueueBackend": "_queue",
    "QueueCounters": "_queue",
    "WorkerBeat": "_queue_wire",
    "WorkerOptions": "_queue_worker",
    "run_workers": "_queue_worker",
    "ThreadChooser": "_threads",
    "MoveFunction": "_worker",
}
"""Each exported name and the private module that defines it."""

__all__ = [
    "AiBackend",
    "AiOfflineError",
    "AiPool",
    "AiTimeoutError",
    "AiUnavailableError",
    "MeteredChooser",
    "MoveFunction",
    "PoolBusyError",
    "PoolCounters",
    "PoolError",
    "QueueBackend",
    "QueueCounters",
    "ThreadChooser",
    "WorkerBeat",
    "WorkerOptions",
    "move_time",
    "run_workers",
    "start_early",
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # looked up once
    return value
