"""``kingme sandbox`` as a newcomer runs it: a process that prints the page's address, serves it, and on Ctrl-C stops
with nothing left behind; a taken port is one line and exit status 1."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STARTUP_TIMEOUT = 60.0
ADDRESS = re.compile(r"King Me sandbox: open (http://127\.0\.0\.1:\d+)/\?key=[\w-]+ ")
DATA_DIR = re.compile(r"data in (\S+)/redis")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(
    tmp_path: Path,
    *args: str,
    command: tuple[str, ...] = ("sandbox", "--no-browser"),
    port: int | None = None,
    ops_port: int = 0,
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REDIS_URL", "HTTP_PORT", "OPS_PORT")}
    # BROWSER=true: where the sandbox opens a browser, the "browser" is the `true` command
    env |= {"USE_THREADS": "true", "AI_WORKERS": "1", "PYTHONPATH": str(ROOT), "BROWSER": "true"}
    env["OPS_PORT"] = str(ops_port)  # /healthz and /metrics: any free port unless the test picks one
    if port is not None:
        env["HTTP_PORT"] = str(port)
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *command, *args],
            cwd=tmp_path,  # no .env of the repository
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    return process, out, err


def wait_for_address(process: subprocess.Popen[bytes], out: Path, err: Path) -> str:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        match = ADDRESS.search(out.read_text())
        if match:
            return match[1]
        assert process.poll() is None, f"kingme sandbox ended early: {err.read_text()[-2000:]}"
        time.sleep(0.1)
    raise AssertionError(f"no address printed within {STARTUP_TIMEOUT}s: {err.read_text()[-2000:]}")


def live_processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline)
    return found


def test_sandbox_prints_its_address_serves_and_stops_cleanly(tmp_path: Path) -> None:
    ops_port = free_port()
    process, out, err = start(tmp_path, "--port", "0", ops_port=ops_port)
    try:
        address = wait_for_address(process, out, err)
        with urllib.request.urlopen(address + "/") as response:
            assert response.status == 200 and b"King Me sandbox" in response.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{ops_port}/healthz") as response:
            assert response.status == 200
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(address + "/healthz")  # not on the page's port
        kept = [line for line in out.read_text().splitlines() if line.startswith("Games are kept")]
        assert kept == ["Games are kept until you stop; use --data DIR to keep them"], "said once, at start"
        data_dir = DATA_DIR.search(err.read_text())
        assert data_dir, "the embedded redis-server's data directory is logged"
        assert Path(data_dir[1]).is_dir()
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    assert code == 0, err.read_text()[-2000:]
    assert not Path(data_dir[1]).exists(), "the sandbox's temporary data directory is left behind"
    assert live_processes_mentioning(data_dir[1]) == [], "a redis-server of the sandbox is still running"


def test_a_taken_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process, _, err = start(tmp_path, "--port", str(port))
        code = process.wait(timeout=30)
    assert code == 1
    lines = [line for line in err.read_text().splitlines() if line.startswith("kingme:")]
    assert lines == [lines[0]] and f"HTTP port {port} on 127.0.0.1 is already in use" in lines[0]
    assert "Traceback" not in err.read_text()


def test_plain_kingme_without_a_token_runs_the_sandbox(tmp_path: Path) -> None:
    port = free_port()
    process, out, err = start(tmp_path, command=(), port=port)
    try:
        address = wait_for_address(process, out, err)
        assert address == f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(address + "/") as response:
            assert response.status == 200 and b"King Me sandbox" in response.read()
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    assert code == 0, err.read_text()[-2000:]


def test_a_damaged_world_file_is_one_line_and_is_left_alone(tmp_path: Path) -> None:
    data = tmp_path / "kept"
    data.mkdir()
    world = data / "discord-world.json"
    world.write_text('{"format": "kingme-discord-world", "version": 1, "users": [')
    before = world.read_bytes()
    process, out, err = start(tmp_path, "--port", "0", "--data", str(data))
    code = process.wait(timeout=60)
    assert code == 1
    lines = [line for line in err.read_text().splitlines() if line.startswith("kingme:")]
    assert len(lines) == 1 and f"{world} is not valid JSON" in lines[0], err.read_text()[-2000:]
    assert "Traceback" not in err.read_text() and "King Me sandbox: open" not in out.read_text()
    assert world.read_bytes() == before, "the world file was overwritten"
