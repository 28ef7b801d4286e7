"""The bot's two aiohttp applications, each served on its own listener: the operators' one with ``/healthz`` and
``/metrics`` (``OPS_HOST:OPS_PORT``, the loopback by default), and the public one (``HTTP_HOST:HTTP_PORT``), to which
the public leaderboards and replays, and the sandbox, add their pages before it starts. Neither serves the other's
routes, so publishing the public port shows nobody how busy the bot is.

Routes live in route tables (``web.RouteTableDef``), one per concern.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.metrics import Metrics
from bot.web._health import HealthSource

log = logging.getLogger(__name__)

Collector = Callable[[], Awaitable[None]]
"""Refreshes metrics that need an await (e.g. a count read from Redis) just before ``/metrics`` renders."""

HEALTH_KEY = web.AppKey("health", HealthSource)
METRICS_KEY = web.AppKey("metrics", Metrics)
COLLECTORS_KEY = web.AppKey("collectors", tuple[Collector, ...])

ops_routes = web.RouteTableDef()


@ops_routes.get("/healthz")
async def healthz(request: web.Request) -> web.Response:
    """200 with ``{"status": "ok", ...}`` when Redis, the AI pool and the gateway are all well, else 503."""
    report = await request.app[HEALTH_KEY].check()
    status = 200 if report.healthy else 503
    return web.json_response(report.as_json(), status=status, headers={"Cache-Control": "no-store"})


@ops_routes.get("/metrics")
async def metrics(request: web.Request) -> web.Response:
    """Every metric in the Prometheus text format."""
    for collect in request.app[COLLECTORS_KEY]:
        try:
            await collect()
        except Exception:  # a failed refresh keeps the last value; the scrape still answers
            log.warning("a metrics collector failed", exc_info=True)
    body = request.app[METRICS_KEY].render()
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"})


@web.middleware
async def _headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    response = await handler(request)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    return response


async def _no_version(request: web.Request, response: web.StreamResponse) -> None:
    """Every response, static files and sockets included, names no software version (aiohttp's default says which
    Python and aiohttp answer)."""
    response.headers["Server"] = "King Me"


def create_public_app() -> web.Application:
    """The application of the public port, with no route yet: the pages add theirs. Every response says ``nosniff``
    and names no software version."""
    app = web.Application(middlewares=[_headers])
    app.on_response_prepare.append(_no_version)
    return app


def create_ops_app(
    health: HealthSource,
    metrics: Metrics,
    *,
    collectors: Iterable[Collector] = (),
) -> web.Application:
    """The application of the operators' port: ``GET /healthz`` and ``GET /metrics``, and nothing else."""
    app = create_public_app()
    app[HEALTH_KEY] = health
    app[METRICS_KEY] = metrics
    app[COLLECTORS_KEY] = tuple(collectors)
    app.add_routes(ops_routes)
    return app
