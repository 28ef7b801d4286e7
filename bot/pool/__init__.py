"""The AI compute of the bot: a pool of worker processes that runs the AI without blocking the event loop (or, on
small hosts, threads of the bot's own process), or a job queue on Redis served by ``kingme worker`` processes on any
machine; and the timing of its moves into the metrics."""

from bot.pool._backend import AiBackend
from bot.pool._errors import AiOfflineError, AiTimeoutError, AiUnavailableError, PoolBusyError, PoolError
from bot.pool._metered import MeteredChooser
from bot.pool._pool import AiPool, PoolCounters, move_time
from bot.pool._queue import QueueBackend, QueueCounters
from bot.pool._queue_wire import WorkerBeat
from bot.pool._queue_worker import WorkerOptions, run_workers
from bot.pool._threads import ThreadChooser
from bot.pool._worker import MoveFunction

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
]
