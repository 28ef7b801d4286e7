"""What ``/healthz`` checks: Redis answers PING, the AI pool is healthy, the Discord gateway is ready; and, when the
runtime asks for it, the AI's gauges (queue depth, job latency, live workers) and the embedded redis-server's
supervision (running, or being started again after it died, and how often it was) beside them."""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from bot.metrics import Metrics
from bot.web._json import JSON

DEFAULT_REDIS_TIMEOUT = 1.0
"""Seconds a PING may take before Redis counts as down (a container health check must answer quickly)."""


class GatewayState(enum.StrEnum):
    """The Discord client's connection, as ``is_ready()`` and ``is_closed()`` tell it."""

    READY = "ready"
    CONNECTING = "connecting"
    CLOSED = "closed"


@dataclass(frozen=True)
class HealthReport:
    """One health check's findings; ``healthy`` only when every part is."""

    redis: str
    """``ok``, ``down`` (PING failed) or ``timeout``."""
    pool: str
    """``ok`` or ``unhealthy``."""
    gateway: GatewayState
    uptime: float
    ai: Mapping[str, float] | None = None
    """The AI's gauges (see :func:`ai_gauges`), when the source reads them; they never change ``healthy``."""
    redis_server: Mapping[str, str | float] | None = None
    """The embedded redis-server as its supervisor sees it (``state``, ``restarts``...), when there is one; it never
    changes ``healthy`` (``redis`` says whether Redis answers)."""

    @property
    def healthy(self) -> bool:
        return self.redis == "ok" and self.pool == "ok" and self.gateway is GatewayState.READY

    def as_json(self) -> dict[str, JSON]:
        body: dict[str, JSON] = {
            "status": "ok" if self.healthy else "unavailable",
            "redis": self.redis,
            "pool": self.pool,
            "gateway": self.gateway.value,
            "uptime_seconds": round(self.uptime, 1),
        }
        if self.ai is not None:
            body["ai"] = dict(self.ai)
        if self.redis_server is not None:
            body["redis_server"] = dict(self.redis_server)
        return body


def ai_gauges(metrics: Metrics) -> dict[str, float]:
    """The AI's state as ``/metrics`` shows it: moves waiting for a worker, workers searching, live worker processes,
    and the moves answered with their mean latency (from asking to the answer, queue wait included)."""
    registry = metrics.registry

    def sample(name: str) -> float:
        return registry.get_sample_value(name) or 0.0

    moves = sample("kingme_ai_move_seconds_count")
    return {
        "queue_depth": sample("kingme_ai_queue_depth"),
        "busy_workers": sample("kingme_ai_busy_workers"),
        "live_workers": sample("kingme_ai_live_workers"),
        "moves": moves,
        "move_seconds_mean": round(sample("kingme_ai_move_seconds_sum") / moves, 3) if moves else 0.0,
    }


@dataclass(frozen=True)
class HealthSource:
    """The probes ``/healthz`` runs, as small callables so the web side imports neither redis nor discord.

    Args:
        redis_ping: sends PING (e.g. ``redis.asyncio.Redis.ping``); any exception means Redis is down.
        pool_healthy: the AI pool's state (``AiPool.healthy``).
        gateway_ready: the Discord client's ``is_ready``.
        gateway_closed: the Discord client's ``is_closed``.
        redis_timeout: seconds the PING may take.
        ai_gauges: the AI's gauges to show (e.g. :func:`ai_gauges` of the bot's metrics); None shows none.
        redis_server: the embedded redis-server's supervision to show (``RedisSupervisor.status().as_json``); None
            (an external Redis) shows none.
    """

    redis_ping: Callable[[], Awaitable[object]]
    pool_healthy: Callable[[], bool]
    gateway_ready: Callable[[], bool]
    gateway_closed: Callable[[], bool]
    redis_timeout: float = DEFAULT_REDIS_TIMEOUT
    ai_gauges: Callable[[], Mapping[str, float]] | None = None
    redis_server: Callable[[], Mapping[str, str | float]] | None = None
    started: float = field(default_factory=time.monotonic)

    async def check(self) -> HealthReport:
        return HealthReport(
            redis=await self._redis(),
            pool="ok" if self.pool_healthy() else "unhealthy",
            gateway=self._gateway(),
            uptime=time.monotonic() - self.started,
            ai=self.ai_gauges() if self.ai_gauges is not None else None,
            redis_server=self.redis_server() if self.redis_server is not None else None,
        )

    async def _redis(self) -> str:
        try:
            async with asyncio.timeout(self.redis_timeout):
                await self.redis_ping()
        except TimeoutError:
            return "timeout"
        except Exception:  # any failure to answer is "down"; the reason (which may name hosts) stays in the logs
            return "down"
        return "ok"

    def _gateway(self) -> GatewayState:
        if self.gateway_closed():
            return GatewayState.CLOSED
        return GatewayState.READY if self.gateway_ready() else GatewayState.CONNECTING
