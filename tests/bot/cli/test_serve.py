"""The bot served as the ``kingme`` process: the real KingMeBot on the local Discord emulator, an embedded
redis-server in a temporary data directory, real AI worker processes and the web server over real HTTP, stopped by
SIGTERM; then the ways it can fail to start, each ending in one line on stderr and no process left behind."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.cli import main as cli_main
from bot.cli.serve import run_async, serve
from bot.emulator import DiscordEmulator
from bot.runtime import Runtime, StartupError
from bot.service import UserId
from tests.bot.test_runtime import make_settings
from tests.support import eventually

STARTUP_TIMEOUT = 60.0  # spawning and warming an AI worker on a loaded 2-core machine


def processes_using(path: Path) -> list[str]:
    """Command lines of live processes that mention ``path`` (an embedded redis-server runs its config from there)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in cmdline:
            found.append(f"{entry.name}: {cmdline}")
    return found


def listening_on(port: int) -> set[str]:
    """The local addresses (``127.0.0.1``, ``0.0.0.0``...) of the IPv4 TCP sockets listening on ``port``, as the kernel
    shows them in ``/proc/net/tcp``."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def exists(pid: int) -> bool:
    """Whether ``pid`` is still in the process table (a child not reaped shows as a zombie, which counts)."""
    return Path(f"/proc/{pid}").exists()


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("kingme:")]


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with session.get(url) as response:
        return response.status, await response.text()


async def wait_ready(runtime: Runtime, task: asyncio.Task[None]) -> None:
    """Wait until the bot is ready on the emulator; fail early if the runtime task ended."""
    await eventually(
        lambda: task.done() or (runtime.bot is not None and runtime.bot.is_ready()), STARTUP_TIMEOUT, "a ready bot"
    )
    assert not task.done(), f"the runtime ended early: {task.exception()!r}"


@pytest.mark.parametrize("use_threads", [False, True], ids=["processes", "threads"])
async def test_starts_serves_and_stops_cleanly_on_sigterm(
    emulator: DiscordEmulator, tmp_path: Path, use_threads: bool
) -> None:
    settings = make_settings(tmp_path, discord_token=emulator.token, use_threads=use_threads)
    runtime = Runtime(settings, bot_options={"guild_ready_timeout": 0.05})
    task = asyncio.create_task(serve(runtime))
    await wait_ready(runtime, task)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{runtime.ops_url}/healthz") as response:
            assert response.status == 200
            health = await response.json()
        assert (health["status"], health["redis"], health["pool"], health["gateway"]) == ("ok", "ok", "ok", "ready")

        # /healthz and /metrics on their own listener, on the loopback (OPS_HOST's default), and not on the public one
        assert runtime.ops is not None and runtime.web is not None and runtime.ops.port != runtime.web.port
        assert listening_on(runtime.ops.port) == {"127.0.0.1"}
        for path in ("/healthz", "/metrics"):
            assert (await get(session, runtime.web_url + path))[0] == 404, path
        assert (await get(session, runtime.web_url + "/leaderboard/global/american.json"))[0] == 200
        assert (await get(session, runtime.ops_url + "/leaderboard/global/american.json"))[0] == 404

        # the parts are the real ones, wired together
        assert runtime.embedded is not None and runtime.embedded.running
        assert runtime.embedded.data_dir == (tmp_path / "data" / "redis").absolute()
        assert runtime.embedded.aof_path.exists()  # append-only persistence is on
        assert runtime.bot is not None and runtime.bot.user is not None
        assert runtime.bot.user.id == emulator.bot_user.id
        assert "checkers" in {command.name for command in emulator.registered_commands()}
        redis_pid = runtime.embedded.pid
        assert redis_pid is not None
        assert runtime.ai is not None
        worker_pids = runtime.ai.worker_pids
        assert len(worker_pids) == (0 if use_threads else 1)

        # a game against the AI through a slash command: the service, the store, the pool and the relay at work
        reply = await emulator.invoke(
            emulator.user("alice"), ["checkers", "play"], {"level": "easy", "colour": "white"}
        )
        assert reply is not None
        assert runtime.service is not None
        await eventually(
            lambda: runtime.metrics.registry.get_sample_value("kingme_moves_total", {"player": "ai"}) == 1,
            within=30,
            what="the AI's first move",
        )
        games = await runtime.service.user_games(UserId(str(emulator.user("alice").id)))
        assert len(games) == 1

        status, text = await get(session, f"{runtime.ops_url}/metrics")
        assert status == 200
        samples = {
            (sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
        }
        assert samples[("kingme_active_games", ())] == 1
        assert samples[("kingme_ai_busy_workers", ())] == 0
        moves = sum(value for (name, _), value in samples.items() if name == "kingme_moves_total")
        assert moves == len(games[0].game.moves) == 1
        assert samples[("kingme_moves_total", (("player", "ai"),))] == 1
        assert samples[("kingme_ai_move_seconds_count", ())] == 1
        assert samples[("kingme_interaction_seconds_count", (("kind", "command"),))] >= 1

        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.wait_for(task, 30)
        assert task.result() is None

        with pytest.raises(aiohttp.ClientConnectionError):
            await get(session, f"{runtime.ops_url}/healthz")
    assert runtime.bot.is_closed()
    assert not runtime.embedded.running and not exists(redis_pid)
    assert not any(exists(pid) for pid in worker_pids)
    assert processes_using(tmp_path) == []
    assert not emulator.connected


async def test_a_bad_token_is_one_line(
    emulator: DiscordEmulator, tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """The login is tried while the AI workers load the kernel, so a refused token ends the start at once: the workers
    are stopped mid-load, with nothing said but the one line."""
    settings = make_settings(tmp_path, discord_token="wrong-token-s3cret")
    status = await asyncio.wait_for(run_async(Runtime(settings)), STARTUP_TIMEOUT)
    err = capfd.readouterr().err
    assert status == 1
    assert error_lines(err) == [
        "kingme: Discord refused the token in DISCORD_TOKEN (LoginFailure): copy it again from the Developer Portal, "
        "Bot page"
    ]
    assert "Traceback" not in err and "s3cret" not in err
    gc.collect()  # asyncio says a future's failure was never retrieved when the future is collected
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert processes_using(tmp_path) == []  # the embedded redis-server was stopped


async def test_a_missing_redis_server_is_one_line(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "bin" / "redis-server"
    status = await run_async(Runtime(make_settings(tmp_path), redis_binary=missing))
    err = capfd.readouterr().err
    assert status == 1
    assert error_lines(err) == [
        f"kingme: redis-server binary not found: {missing} (or set REDIS_URL to use another Redis)"
    ]
    assert "Traceback" not in err


async def test_a_redis_server_that_cannot_start_is_one_line(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "redis-server"
    broken.write_text("#!/bin/sh\necho 'FATAL: cannot start' >&2\nexit 3\n")
    broken.chmod(0o755)
    status = await run_async(Runtime(make_settings(tmp_path), redis_binary=broken))
    [line] = error_lines(capfd.readouterr().err)
    assert status == 1
    assert line.startswith("kingme: redis-server exited with code 3 during startup")
    assert line.endswith(f"see {tmp_path / 'data' / 'redis' / 'redis-server.log'}")


@pytest.mark.parametrize("name", ["HTTP", "OPS"])
async def test_a_port_in_use_is_one_line_and_leaves_nothing_behind(tmp_path: Path, name: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        runtime = Runtime(make_settings(tmp_path, **{f"{name.lower()}_port": port}))
        with pytest.raises(
            StartupError, match=rf"^{name} port {port} on 127.0.0.1 is already in use \(set {name}_PORT\)$"
        ):
            await asyncio.wait_for(serve(runtime, handle_signals=False), STARTUP_TIMEOUT)
    assert runtime.embedded is not None and not runtime.embedded.running
    assert runtime.ai is not None and runtime.ai.worker_pids == () and not runtime.ai.healthy
    assert processes_using(tmp_path) == []


def test_an_unreachable_redis_is_one_line_in_a_real_process(tmp_path: Path) -> None:
    """``kingme run`` as an operator runs it: no traceback, no password, no token, exit status 1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "DISCORD_TOKEN": "token-that-must-not-show",
        "REDIS_URL": f"redis://:hunter2@127.0.0.1:{port}/0",
        "AI_WORKERS": "1",
        "HTTP_PORT": "0",
        "OPS_PORT": "0",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "run"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    [line] = error_lines(proc.stderr)
    assert line.startswith(f"kingme: cannot reach Redis at redis://:***@127.0.0.1:{port}/0: Error 111 connecting")
    assert "Traceback" not in proc.stderr
    assert "hunter2" not in proc.stderr + proc.stdout and "must-not-show" not in proc.stderr + proc.stdout


def test_kingme_without_a_token_prints_the_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert cli_main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "DISCORD_TOKEN is not set" in err and "kingme sandbox" in err

    monkeypatch.setenv("HTTP_PORT", "eighty")
    assert cli_main(["run"]) == 2
    assert (
        capsys.readouterr().err == "kingme: invalid setting HTTP_PORT: Input should be a valid integer, unable to "
        "parse string as an integer\n"
    )
    monkeypatch.setenv("HTTP_PORT", "8080")
    monkeypatch.setenv("TURN_TIME_DEFAULT", "10")  # a rule between settings: said as itself, not "setting settings"
    assert cli_main(["run"]) == 2
    assert (
        capsys.readouterr().err
        == "kingme: invalid settings: TURN_TIME_DEFAULT must lie between TURN_TIME_MIN and TURN_TIME_MAX\n"
    )
