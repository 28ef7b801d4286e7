"""``kingme sandbox`` as a newcomer runs it: a process that prints the page's address, serves it, and on Ctrl-C stops
with nothing left behind; a taken port is one line and exit status 1; the search kernel compiles once per machine,
in the user's cache folder, whatever the data folder."""

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
from collections.abc import Mapping
from pathlib import Path

import pytest

from ai.kernel.cache import fingerprint

ROOT = Path(__file__).resolve().parents[3]
STARTUP_TIMEOUT = 60.0
READY_TIMEOUT = 300.0
"""Seconds a start that compiles the search kernel may take (13 s alone; much more on a loaded machine)."""
ADDRESS = re.compile(r"King Me sandbox: open (http://127\.0\.0\.1:\d+)/\?key=[\w-]+ ")
PAGE = re.compile(r"King Me sandbox: open (\S+) ")
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
    env: Mapping[str, str | None] | None = None,
    ops_port: int = 0,
) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """Start ``kingme COMMAND ARGS`` in ``tmp_path``, output in files there; ``env`` sets variables (None: unset)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    environment = {
        k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "REDIS_URL", "HTTP_PORT", "OPS_PORT")
    }
    # BROWSER=true: where the sandbox opens a browser, the "browser" is the `true` command
    environment |= {"USE_THREADS": "true", "AI_WORKERS": "1", "PYTHONPATH": str(ROOT), "BROWSER": "true"}
    environment["OPS_PORT"] = str(ops_port)  # /healthz and /metrics: any free port unless the test picks one
    if port is not None:
        environment["HTTP_PORT"] = str(port)
    for name, value in (env or {}).items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", *command, *args],
            cwd=tmp_path,  # no .env of the repository
            env=environment,
            stdout=stdout,
            stderr=stderr,
        )
    return process, out, err


def wait_for_address(
    process: subprocess.Popen[bytes], out: Path, err: Path, *, timeout: float = STARTUP_TIMEOUT
) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = ADDRESS.search(out.read_text())
        if match:
            return match[1]
        assert process.poll() is None, f"kingme sandbox ended early: {err.read_text()[-2000:]}"
        time.sleep(0.1)
    raise AssertionError(f"no address printed within {timeout}s: {err.read_text()[-2000:]}")


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


def browser_recorder(folder: Path) -> tuple[str, Path]:
    """A "browser" for ``BROWSER``: a script that writes each address it is asked to open into a file."""
    opened = folder / "opened"
    script = folder / "browser"
    script.write_text(f'#!/bin/sh\necho "$1" >> "{opened}"\n')
    script.chmod(0o755)
    return str(script), opened


@pytest.mark.parametrize("no_browser", [False, True], ids=["opens-the-page", "no-browser"])
def test_plain_kingme_without_a_token_runs_the_sandbox(tmp_path: Path, no_browser: bool) -> None:
    """``kingme`` alone runs the sandbox and opens its page, address and key, in the browser; ``kingme --no-browser``
    only prints it."""
    port = free_port()
    browser, opened = browser_recorder(tmp_path)
    command = ("--no-browser",) if no_browser else ()
    process, out, err = start(tmp_path, command=command, port=port, env={"BROWSER": browser})
    try:
        address = wait_for_address(process, out, err)
        assert address == f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(address + "/") as response:
            assert response.status == 200 and b"King Me sandbox" in response.read()
        page = PAGE.search(out.read_text())
        assert page is not None
        if not no_browser:
            deadline = time.monotonic() + STARTUP_TIMEOUT
            while not opened.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert opened.read_text().split() == [page[1]], "the page, with its key, is opened once"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    assert code == 0, err.read_text()[-2000:]
    assert opened.exists() is not no_browser
    assert f"sandbox ready at {page[1]}" in err.read_text(), "the log's last word is the whole address, key and all"


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


def numba_files(folder: Path) -> dict[Path, int]:
    """numba's cache files under ``folder`` (index ``.nbi``, code ``.nbc``) and their modification times."""
    return {path: path.stat().st_mtime_ns for path in folder.rglob("*.nb[ic]")}


def test_the_kernel_compiles_once_in_the_users_cache_folder_whatever_the_data_folder(tmp_path: Path) -> None:
    """A first start compiles the search kernel into the user's cache folder, never into its data folder; a second
    start with another data folder, and then the CLI with KINGME_DATA set, load it from there and compile nothing.
    numba's own cache log (NUMBA_DEBUG_CACHE) says which: "data saved to" a compile, "data loaded from" a reuse."""
    cache = tmp_path / "xdg-cache"
    kernel = cache / "kingme" / "numba" / f"kernel-{fingerprint()}"
    env: dict[str, str | None] = {
        "NUMBA_CACHE_DIR": None,  # the suite's shared cache (tests/conftest.py): this test needs its own, empty
        "XDG_CACHE_HOME": str(cache),
        "USE_THREADS": "false",  # the AI in worker processes, as plain `kingme` runs it
        "NUMBA_DEBUG_CACHE": "1",
        "PYTHONUNBUFFERED": "1",  # the workers' log reaches the file before they are stopped
    }
    logs: list[str] = []
    for run in ("first", "second"):
        data = tmp_path / run / "data"
        process, out, err = start(tmp_path / run, "--port", "0", "--data", str(data), env=env)
        try:
            wait_for_address(process, out, err, timeout=READY_TIMEOUT)
        finally:
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=60)
        assert code == 0, err.read_text()[-2000:]
        assert numba_files(data) == {}, "the kernel was compiled into the data folder"
        logs.append(out.read_text())
        if run == "first":
            compiled = numba_files(kernel)
            assert any(path.suffix == ".nbi" for path in compiled), logs[0][-2000:]
            assert f"data saved to '{kernel}" in logs[0]

    assert f"data loaded from '{kernel}" in logs[1], logs[1][-2000:]
    assert "saved to" not in logs[1], "the second start compiled the kernel again"
    assert numba_files(kernel) == compiled

    cli = tmp_path / "cli"
    engine = env | {"KINGME_DATA": str(cli / "data")}
    process, out, err = start(cli, command=("bestmove", "start", "--level", "hard", "--info"), env=engine)
    assert process.wait(timeout=READY_TIMEOUT) == 0, err.read_text()[-2000:]
    assert f"data loaded from '{kernel}" in out.read_text() and "saved to" not in out.read_text()
    assert numba_files(kernel) == compiled and numba_files(cli) == {}
