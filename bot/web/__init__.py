"""The HTTP side of the bot (aiohttp, in the bot's process): health checks, Prometheus metrics, static files.

    app = create_web_app(HealthSource(redis_ping=client.ping, pool_healthy=..., ...), metrics)
    server = WebServer(app, "0.0.0.0", 8080)
    await server.start()

It only reads the state it is handed (small callables and the :class:`~bot.metrics.Metrics` object): it imports
neither discord nor redis, and it never shows a setting or a secret.
"""

from bot.web._app import Collector, create_web_app
from bot.web._health import GatewayState, HealthReport, HealthSource, ai_gauges
from bot.web._server import WebServer
from bot.web._static import StaticFiles

__all__ = [
    "Collector",
    "GatewayState",
    "HealthReport",
    "HealthSource",
    "StaticFiles",
    "WebServer",
    "ai_gauges",
    "create_web_app",
]
