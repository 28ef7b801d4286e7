"""The ``redis-server`` child process: launched with its generated config, awaited until it answers as itself,
stopped gracefully (or killed, as a crash would)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Final, Self

import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from bot.redis_process._address import LOCALHOST, Address, Transport, choose_address
from bot.redis_process._binary import find_redis_server
from bot.redis_process._config import (
    AOF_NAME,
    CONFIG_NAME,
    LOG_NAME,
    AppendFsync,
    Persistence,
    check_extra_config,
    render_config,
)
from bot.redis_process._errors import RedisServerStartError

_LOG_TAIL_LINES: Final = 20
_PORT_RETRIES: Final = 3
_POLL_INTERVAL: Final = 0.01
_PROBE_TIMEOUT: Final = 0.5


def _stop_process(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM ``proc`` (a graceful SHUTDOWN for redis), SIGKILL it after ``timeout``, and reap it."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()


class EmbeddedRedis:
    """A private ``redis-server`` child process bound to a data directory.

    Args:
        data_dir: Where the config file, log, AOF and RDB live; created (mode 0700) if missing.
        transport: ``"unix"`` (default) listens only on a unix socket, ``<data_dir>/redis.sock`` when
            that path is short enough, else inside a short private temp directory, else (no short
            directory available) falls back to TCP. ``"tcp"`` listens only on ``127.0.0.1``.
        port: TCP port (``transport="tcp"`` only); ``None`` picks a free one.
        appendonly: Enable AOF persistence (on by default; off only for tests that need volatility).
        appendfsync: ``"everysec"`` (default): the AOF is fsynced once a second, so a killed server loses
            nothing acknowledged (each write had reached the kernel) and a power cut or kernel crash loses at
            most about the last second; ``"always"``: fsynced before each write is acknowledged, so not even a
            power cut loses an acknowledged write, at a throughput cost. Any other value is a ValueError.
        rdb_snapshots: Enable RDB snapshots with the stock save points (off by default).
        binary: Explicit ``redis-server`` path; see :func:`find_redis_server` for the default.
        start_timeout: Seconds :meth:`start` waits for the server to answer PING.
        stop_timeout: Seconds :meth:`stop` waits after SIGTERM before sending SIGKILL.
        extra_config: Additional redis.conf directives (e.g. ``{"maxmemory": "64mb"}``); the
            directives this class manages (address, persistence, ``dir``...) are rejected.

    The address (socket path or port) is chosen once and kept for the lifetime of the object, so
    :meth:`restart` (and ``stop()`` followed by ``start()``) serve the same data at the same URL.
    A server still running when the object is garbage-collected or the interpreter exits is stopped.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        transport: Transport = "unix",
        port: int | None = None,
        appendonly: bool = True,
        appendfsync: AppendFsync = "everysec",
        rdb_snapshots: bool = False,
        binary: str | os.PathLike[str] | None = None,
        start_timeout: float = 10.0,
        stop_timeout: float = 10.0,
        extra_config: Mapping[str, str] | None = None,
    ) -> None:
        if transport not in ("unix", "tcp"):
            raise ValueError(f"transport must be 'unix' or 'tcp', not {transport!r}")
        if port is not None and transport != "tcp":
            raise ValueError("port is only valid with transport='tcp'")
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"invalid TCP port: {port}")
        self._extra_config = check_extra_config(extra_config or {})
        self._binary = find_redis_server(binary)
        self._data_dir = Path(data_dir).absolute()
        self._persistence = Persistence(appendonly, appendfsync, rdb_snapshots)
        self._start_timeout = start_timeout
        self._stop_timeout = stop_timeout
        self._address: Address = choose_address(self._data_dir, transport, port)
        self._proc: subprocess.Popen[bytes] | None = None
        self._started = False
        self._proc_finalizer: weakref.finalize[[subprocess.Popen[bytes], float], EmbeddedRedis] | None = None

    # ------------------------------------------------------------------------------- properties

    @property
    def binary(self) -> Path:
        """The ``redis-server`` executable in use."""
        return self._binary

    @property
    def data_dir(self) -> Path:
        """Absolute data directory (config, log, AOF, RDB)."""
        return self._data_dir

    @property
    def config_path(self) -> Path:
        """The generated ``redis.conf`` (rewritten on every start)."""
        return self._data_dir / CONFIG_NAME

    @property
    def log_path(self) -> Path:
        """The server's log (stdout and stderr), appended to across restarts."""
        return self._data_dir / LOG_NAME

    @property
    def aof_path(self) -> Path:
        """The append-only file."""
        return self._data_dir / AOF_NAME

    @property
    def transport(self) -> Transport:
        """The transport actually used (``"tcp"`` if a unix socket had to be given up)."""
        return self._address.transport

    @property
    def socket_path(self) -> Path | None:
        """The unix socket path, or ``None`` over TCP."""
        return self._address.socket_path

    @property
    def host(self) -> str | None:
        """``127.0.0.1`` over TCP, else ``None``."""
        return LOCALHOST if self.transport == "tcp" else None

    @property
    def port(self) -> int | None:
        """The TCP port, or ``None`` over a unix socket."""
        return self._address.port

    @property
    def url(self) -> str:
        """Connection URL for ``redis.Redis.from_url``: ``unix:///path`` or ``redis://127.0.0.1:PORT/0``."""
        return self._address.url

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs, else ``None``."""
        return self._proc.pid if self.running and self._proc is not None else None

    @property
    def running(self) -> bool:
        """Whether the server process is alive (it may still be loading its data)."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def exit_code(self) -> int | None:
        """How the server ended, when it ended on its own (a crash, the OOM killer, a ``kill -9`` from outside): its
        exit status, or minus the signal that killed it. ``None`` while it runs, before it starts, and after
        :meth:`stop` or :meth:`kill` (its owner's doing, which a supervisor leaves alone)."""
        return self._proc.poll() if self._proc is not None else None

    # -------------------------------------------------------------------------------- lifecycle

    def start(self) -> Self:
        """Launch the server and wait until it answers PING; a no-op if it is already running.

        Raises:
            RedisServerStartError: the process exited or did not answer within ``start_timeout``;
                the message includes the last lines of the server log.
        """
        if self.running:
            return self
        self._reap()
        self._data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        # a port may be picked again only before the first start: after it, clients hold the URL
        attempts = _PORT_RETRIES if self._address.auto_port and not self._started else 1
        for attempt in range(1, attempts + 1):
            try:
                self._launch()
                self._started = True
                return self
            except RedisServerStartError as exc:
                if attempt == attempts or "Address already in use" not in str(exc):
                    raise
                self._address.pick_another_port()
        raise AssertionError("unreachable")  # pragma: no cover

    def stop(self, timeout: float | None = None) -> None:
        """Shut the server down (SIGTERM: flush the AOF, remove the socket) and wait for it to exit.

        Sends SIGKILL if it has not exited after ``timeout`` (default ``stop_timeout``) seconds. The
        process is always reaped, so no zombie or orphan is left. A no-op if it is not running.
        """
        proc, self._proc = self._proc, None
        self._detach_finalizer()
        if proc is not None:
            _stop_process(proc, self._stop_timeout if timeout is None else timeout)

    def kill(self) -> None:
        """SIGKILL the server, as a crash would, and reap it. For crash-recovery tests; as its owner's doing, it is not
        an :attr:`exit_code`, so a supervisor leaves the server stopped."""
        proc, self._proc = self._proc, None
        self._detach_finalizer()
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        if proc is not None:
            proc.wait()

    def restart(self) -> Self:
        """Stop (if running) and start again with the same data directory, config and address."""
        self.stop()
        return self.start()

    def ping(self, timeout: float = 1.0) -> bool:
        """Whether the server answers PING with PONG right now."""
        try:
            with self._client(timeout) as client:
                return bool(client.ping())
        except (RedisError, OSError):
            return False

    def log_tail(self, lines: int = _LOG_TAIL_LINES, *, since: int = 0) -> str:
        """The last ``lines`` lines of the server log (from byte offset ``since``)."""
        try:
            with self.log_path.open("rb") as fh:
                fh.seek(since)
                data = fh.read()
        except OSError:
            return ""
        return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])

    # ------------------------------------------------------------------------ context managers

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.stop)

    def __repr__(self) -> str:
        state = f"pid={self.pid}" if self.running else "stopped"
        return f"<EmbeddedRedis {self.url} data_dir={str(self._data_dir)!r} {state}>"

    # ------------------------------------------------------------------------------- internals

    def _launch(self) -> None:
        """Write the config, spawn the process and wait for it to answer as itself."""
        config = render_config(self._address, self._data_dir, self._persistence, self._extra_config)
        self.config_path.write_text(config, encoding="utf-8")
        if self._address.socket_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._address.socket_path.unlink()  # stale socket left by a killed server
        log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            try:
                proc = subprocess.Popen(
                    [str(self._binary), str(self.config_path)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    cwd=self._data_dir,
                    close_fds=True,
                    # its own session: a Ctrl-C in the terminal reaches the bot, which stops Redis in order
                    start_new_session=True,
                )
            except OSError as exc:
                raise RedisServerStartError(f"cannot execute {self._binary}: {exc}") from exc
        self._proc = proc
        self._proc_finalizer = weakref.finalize(self, _stop_process, proc, self._stop_timeout)
        try:
            self._wait_ready(proc, log_offset)
        except BaseException:
            self.kill()
            raise

    def _wait_ready(self, proc: subprocess.Popen[bytes], log_offset: int) -> None:
        """Poll until ``proc`` answers PING (and INFO reports its pid), it exits, or the timeout."""
        deadline = time.monotonic() + self._start_timeout
        while True:
            code = proc.poll()
            if code is not None:
                raise RedisServerStartError(
                    f"redis-server exited with code {code} during startup ({self._binary}); "
                    f"last log lines from {self.log_path}:\n{self.log_tail(since=log_offset)}"
                )
            if self._answers_as(proc.pid):
                return
            if time.monotonic() >= deadline:
                raise RedisServerStartError(
                    f"redis-server (pid {proc.pid}) did not answer PING at {self.url} within "
                    f"{self._start_timeout:g}s; last log lines from {self.log_path}:\n"
                    f"{self.log_tail(since=log_offset)}"
                )
            time.sleep(_POLL_INTERVAL)

    def _answers_as(self, pid: int) -> bool:
        """Whether the server at our address is up and is process ``pid`` (not a squatter on the port)."""
        try:
            with self._client(_PROBE_TIMEOUT) as client:
                # PING raises BusyLoadingError while the AOF is replayed
                return bool(client.ping()) and client.info("server").get("process_id") == pid
        except (RedisError, OSError):
            return False

    def _client(self, timeout: float) -> redis.Redis:
        """A client for one probe: short timeouts and no retries (the callers poll, or want the answer now)."""
        return redis.Redis.from_url(
            self.url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )

    def _reap(self) -> None:
        """Forget a process that has already exited (e.g. crashed) so start() can launch a new one."""
        if self._proc is not None and self._proc.poll() is not None:
            self._proc = None
            self._detach_finalizer()

    def _detach_finalizer(self) -> None:
        if self._proc_finalizer is not None:
            self._proc_finalizer.detach()
            self._proc_finalizer = None
