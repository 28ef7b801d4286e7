"""The pool of worker processes that runs the AI for the bot without blocking its event loop."""

from bot.pool._pool import (
    AiPool,
    AiTimeoutError,
    AiUnavailableError,
    MoveFunction,
    PoolBusyError,
    PoolCounters,
    PoolError,
    move_time,
)

__all__ = [
    "AiPool",
    "AiTimeoutError",
    "AiUnavailableError",
    "MoveFunction",
    "PoolBusyError",
    "PoolCounters",
    "PoolError",
    "move_time",
]
