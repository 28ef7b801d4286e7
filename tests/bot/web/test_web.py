"""The HTTP side over real HTTP: /healthz against a real redis-server (running, stopped, silent) and /metrics as
Prometheus text from the real registry, both on the operators' application only; the public application has the
pages."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import aiohttp
import pytest
import redis.asyncio as aioredis
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import Metrics
from bot.redis_process import EmbeddedRedis
from bot.web import HealthSource, WebServer, create_ops_app, create_public_app


@dataclass
class World:
    """The state the probes read: the pool's health and the gateway's, as the runtime's callables would."""

    pool_healthy: bool = True
    ready: bool = True
    closed: bool = False


def make_health(client: aioredis.Redis, world: World, *, redis_timeout: float = 1.0) -> HealthSource:
    return HealthSource(
        redis_ping=client.ping,
        pool_healthy=lambda: world.pool_healthy,
        gateway_ready=lambda: world.ready,
        gateway_closed=lambda: world.closed,
        redis_timeout=redis_timeout,
    )


@pytest.fixture
async def redis_client(redis_server: EmbeddedRedis) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_server.url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def metrics() -> Metrics:
    return Metrics()


async def serve(app: web.Application) -> TestClient[web.Request, web.Application]:
    client: TestClient[web.Request, web.Application] = TestClient(TestServer(app, host="127.0.0.1"))
    await client.start_server()
    return client


@pytest.fixture
async def http(
    redis_client: aioredis.Redis, world: World, metrics: Metrics
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    client = await serve(create_ops_app(make_health(redis_client, world), metrics))
    try:
        yield client
    finally:
        await client.close()


async def healthz(http: TestClient[web.Request, web.Application]) -> tuple[int, dict[str, object]]:
    response = await http.get("/healthz")
    assert response.content_type == "application/json"
    return response.status, await response.json()


async def test_healthz_ok_when_every_part_is_well(http: TestClient[web.Request, web.Application]) -> None:
    status, body = await healthz(http)
    assert status == 200
    assert body["status"] == "ok"
    assert (body["redis"], body["pool"], body["gateway"]) == ("ok", "ok", "ready")
    assert set(body) == {
        "status",
        "redis",
        "pool",
        "gateway",
        "uptime_seconds",
    }  # nothing else: no settings, no secrets


async def test_healthz_503_when_redis_is_stopped(
    http: TestClient[web.Request, web.Application], redis_server: EmbeddedRedis
) -> None:
    redis_server.stop()
    status, body = await healthz(http)
    assert status == 503
    assert (body["status"], body["redis"], body["pool"], body["gateway"]) == ("unavailable", "down", "ok", "ready")

    redis_server.start()  # recovers by itself: the client reconnects
    status, body = await healthz(http)
    assert (status, body["redis"]) == (200, "ok")


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A TCP server that accepts connections and never answers, like a hung Redis."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    listener.settimeout(0.05)
    try:
        yield f"redis://127.0.0.1:{listener.getsockname()[1]}/0"
    finally:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                break
        for conn in accepted:
            conn.close()
        listener.close()


async def test_healthz_times_out_on_a_silent_redis(silent_server: str, world: World, metrics: Metrics) -> None:
    client = aioredis.Redis.from_url(silent_server)
    http = await serve(create_ops_app(make_health(client, world, redis_timeout=0.2), metrics))
    try:
        status, body = await healthz(http)  # answers: the PING's own timeout ends the wait, not the test's
        assert (status, body["redis"]) == (503, "timeout")
    finally:
        await http.close()
        await client.aclose()


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        ({"pool_healthy": False}, "pool", "unhealthy"),
        ({"ready": False}, "gateway", "connecting"),
        ({"ready": False, "closed": True}, "gateway", "closed"),
    ],
)
async def test_healthz_503_when_pool_or_gateway_is_down(
    http: TestClient[web.Request, web.Application], world: World, change: dict[str, bool], field: str, value: str
) -> None:
    for name, state in change.items():
        setattr(world, name, state)
    status, body = await healthz(http)
    assert (status, body["status"], body[field], body["redis"]) == (503, "unavailable", value, "ok")


async def test_metrics_are_prometheus_text(redis_client: aioredis.Redis, world: World, metrics: Metrics) -> None:
    active = 0

    async def count_games() -> None:
        nonlocal active
        active += 4  # proves the collector runs at every scrape, before rendering
        metrics.active_games.set(active)

    metrics.moves.labels(player="human").inc(3)
    metrics.moves.labels(player="ai").inc()
    metrics.games_finished.labels(termination="resignation").inc()
    metrics.bind_ai(queue_depth=lambda: 2, busy_workers=lambda: 1)
    metrics.ai_latency.observe(0.3)
    metrics.interaction_latency.labels(kind="command").observe(0.02)
    http = await serve(create_ops_app(make_health(redis_client, world), metrics, collectors=[count_games]))
    try:
        response = await http.get("/metrics")
        assert response.status == 200
        assert response.headers["Content-Type"] == CONTENT_TYPE_LATEST
        text = await response.text()
        second = await (await http.get("/metrics")).text()
    finally:
        await http.close()

    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    assert samples[("kingme_moves_total", (("player", "human"),))] == 3
    assert samples[("kingme_moves_total", (("player", "ai"),))] == 1
    assert samples[("kingme_games_finished_total", (("termination", "resignation"),))] == 1
    assert samples[("kingme_active_games", ())] == 4
    assert samples[("kingme_ai_queue_depth", ())] == 2
    assert samples[("kingme_ai_busy_workers", ())] == 1
    assert samples[("kingme_ai_move_seconds_count", ())] == 1
    assert samples[("kingme_ai_move_seconds_bucket", (("le", "0.5"),))] == 1
    assert samples[("kingme_ai_move_seconds_bucket", (("le", "0.25"),))] == 0
    assert samples[("kingme_interaction_seconds_count", (("kind", "command"),))] == 1
    assert "kingme_active_games 8.0" in second


async def test_a_failing_collector_does_not_break_the_scrape(
    redis_client: aioredis.Redis, world: World, metrics: Metrics
) -> None:
    async def broken() -> None:
        raise ConnectionError("redis is away")

    metrics.active_games.set(7)
    http = await serve(create_ops_app(make_health(redis_client, world), metrics, collectors=[broken]))
    try:
        response = await http.get("/metrics")
        assert response.status == 200
        assert "kingme_active_games 7.0" in await response.text()
    finally:
        await http.close()


async def test_the_public_app_has_the_pages_and_not_healthz_or_metrics() -> None:
    pages = web.RouteTableDef()

    @pages.get("/leaderboard")
    async def leaderboard(request: web.Request) -> web.Response:
        return web.Response(text="top players")

    app = create_public_app()
    app.add_routes(pages)  # as the public pages and the sandbox add theirs
    http = await serve(app)
    try:
        response = await http.get("/leaderboard")
        assert await response.text() == "top players"
        assert response.headers["Server"] == "King Me" and response.headers["X-Content-Type-Options"] == "nosniff"
        for path in ("/healthz", "/metrics", "/nothing-here"):
            assert (await http.get(path)).status == 404, path
    finally:
        await http.close()


async def test_the_ops_app_has_healthz_and_metrics_and_nothing_else(
    http: TestClient[web.Request, web.Application],
) -> None:
    assert (await http.get("/healthz")).status == 200
    assert (await http.get("/metrics")).status == 200
    assert (await http.get("/leaderboard/global/american")).status == 404


async def test_web_server_binds_and_refuses_a_taken_port(
    redis_client: aioredis.Redis, world: World, metrics: Metrics
) -> None:
    server = WebServer(create_ops_app(make_health(redis_client, world), metrics), "127.0.0.1", 0)
    await server.start()
    try:
        assert server.port > 0
        async with aiohttp.ClientSession() as session, session.get(f"{server.url}/healthz") as response:
            assert response.status == 200
            assert json.loads(await response.text())["status"] == "ok"
        clash = WebServer(create_ops_app(make_health(redis_client, world), metrics), "127.0.0.1", server.port)
        with pytest.raises(OSError):
            await clash.start()
    finally:
        await server.stop()
