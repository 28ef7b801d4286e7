"""The pool's own errors: each carries a short message fit for a player and a detail for the logs."""

from __future__ import annotations


class PoolError(Exception):
    """Base of the pool's own errors. ``str(error)`` is a short message fit for a player; ``detail`` is for logs."""

    user_message = "the AI is unavailable right now, try again later"

    def __init__(self, detail: str = "") -> None:
        super().__init__(self.user_message)
        self.detail = detail


class PoolBusyError(PoolError):
    """Too many moves are already waiting or running."""

    user_message = "the AI is busy, try again in a moment"
    retry_after = 1.0
    """Seconds after which asking again makes sense (the game service's AI turns wait that long, then retry)."""


class AiOfflineError(PoolBusyError):
    """No worker is live to search the move (the job queue with every ``kingme worker`` gone): nothing was queued, no
    try is spent; the game service tells the players that the AI is offline and asks again after ``retry_after``."""

    user_message = "the AI is offline; its move comes when it is back"
    offline = True
    """What tells this "busy" from the others (:class:`bot.service.Offline`)."""


class AiTimeoutError(PoolError):
    """The move took longer than its time limit plus slack."""

    user_message = "the AI took too long to move, try again"


class AiUnavailableError(PoolError):
    """The workers keep dying, or the pool is closed."""
