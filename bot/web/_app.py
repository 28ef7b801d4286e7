"""The aiohttp application with the operational routes, ``/healthz`` and ``/metrics``.

Routes live in route tables (``web.RouteTableDef``), one per concern. Other pages (the public leaderboards and
replays, the sandbox) add their own routes to the application this module creates, before it starts.
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


def create_web_app(
    health: HealthSource,
    metrics: Metrics,
    *,
    collectors: Iterable[Collector] = (),
) -> web.Application:
    """The bot's HTTP application: ``GET /healthz`` and ``GET /metrics``."""
    app = web.Application(middlewares=[_headers])
    app.on_response_prepare.append(_no_version)
    app[HEALTH_KEY] = health
    app[METRICS_KEY] = metrics
    app[COLLECTORS_KEY] = tuple(collectors)
    app.add_routes(ops_routes)
    return app
