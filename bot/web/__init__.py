"""The HTTP side of the bot (aiohttp, in the bot's process): health checks and Prometheus metrics on the operators'
listener, the base of the public one, static files.

    ops = WebServer(create_ops_app(HealthSource(redis_ping=client.ping, ...), metrics), "127.0.0.1", 8090)
    public = WebServer(create_public_app(), "0.0.0.0", 8080)    # after the pages added their routes
    await ops.start(); await public.start()

It only reads the state it is handed (small callables and the :class:`~bot.metrics.Metrics` object): it imports
neither discord nor redis, and it never shows a setting or a secret.
"""

from bot.web._app import Collector, create_ops_app, create_public_app
from bot.web._health import GatewayState, HealthReport, HealthSource, ai_gauges
from bot.web._json import JSON
from bot.web._server import WebServer
from bot.web._static import StaticFiles

__all__ = [
    "JSON",
    "Collector",
    "GatewayState",
    "HealthReport",
    "HealthSource",
    "StaticFiles",
    "WebServer",
    "ai_gauges",
    "create_ops_app",
    "create_public_app",
]
