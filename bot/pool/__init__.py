"""The AI compute of the bot: a pool of worker processes that runs the AI without blocking the event loop (or, on
small hosts, threads of the bot's own process), and the timing of its moves into the metrics."""

from bot.pool._backend import AiBackend
from bot.pool._errors import AiTimeoutError, AiUnavailableError, PoolBusyError, PoolError
from bot.pool._metered import MeteredChooser
from bot.pool._pool import AiPool, PoolCounters, move_time
from bot.pool._threads import ThreadChooser
from bot.pool._worker import MoveFunction

__all__ = [
    "AiBackend",
    "AiPool",
    "AiTimeoutError",
    "AiUnavailableError",
    "MeteredChooser",
    "MoveFunction",
    "PoolBusyError",
    "PoolCounters",
    "PoolError",
    "ThreadChooser",
    "move_time",
]
