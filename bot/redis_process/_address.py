"""Where a private ``redis-server`` listens: a unix socket (preferred) or TCP on the loopback, never a public
interface. The address is chosen once, so a restarted server is found at the same URL."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal
from urllib.parse import quote

MAX_UNIX_SOCKET_PATH: Final = 107
"""Longest unix socket path the kernel accepts (``sun_path`` is 108 bytes on Linux, NUL included)."""
LOCALHOST: Final = "127.0.0.1"
SOCKET_NAME: Final = "redis.sock"

Transport = Literal["unix", "tcp"]


@dataclass
class Address:
    """A unix socket path, or else a TCP port on :data:`LOCALHOST`."""

    socket_path: Path | None = None
    port: int | None = None
    auto_port: bool = False
    """The port was picked here (so another may be picked if someone takes it first)."""

    @property
    def transport(self) -> Transport:
        return "unix" if self.socket_path is not None else "tcp"

    @property
    def url(self) -> str:
        """Connection URL for ``redis.Redis.from_url``: ``unix:///path`` or ``redis://127.0.0.1:PORT/0``."""
        if self.socket_path is not None:
            return "unix://" + quote(str(self.socket_path), safe="/")
        return f"redis://{LOCALHOST}:{self.port}/0"

    def pick_another_port(self) -> None:
        """Replace a port lost to a race (another process bound it between the pick and the server's start)."""
        self.port = free_tcp_port()


def choose_address(data_dir: Path, transport: Transport, port: int | None) -> Address:
    """The address of a server whose data lives in ``data_dir``.

    ``"unix"`` listens on ``<data_dir>/redis.sock`` when that path is short enough, else inside a short private temp
    directory (removed when the address is garbage-collected), else (no short directory available) falls back to
    TCP. ``"tcp"`` listens on ``port``, or on a free port when ``port`` is None.
    """
    if transport == "unix":
        path = data_dir / SOCKET_NAME
        if socket_path_fits(path):
            return Address(socket_path=path)
        for parent in short_dir_candidates():
            if not socket_path_fits(parent / "kingme-redis-XXXXXXXX" / SOCKET_NAME):
                continue
            short_dir = Path(tempfile.mkdtemp(prefix="kingme-redis-", dir=parent))
            address = Address(socket_path=short_dir / SOCKET_NAME)
            weakref.finalize(address, shutil.rmtree, short_dir, ignore_errors=True)
            return address
    if port is None:
        return Address(port=free_tcp_port(), auto_port=True)
    return Address(port=port)


def socket_path_fits(path: Path) -> bool:
    """Whether ``path`` is short enough to bind a unix socket to."""
    return len(os.fsencode(path)) <= MAX_UNIX_SOCKET_PATH


def short_dir_candidates() -> list[Path]:
    """Directories in which a fallback socket directory may be created, shortest first."""
    candidates: list[Path] = []
    for raw in ("/tmp", tempfile.gettempdir()):
        path = Path(raw)
        if path.is_dir() and os.access(path, os.W_OK | os.X_OK) and path not in candidates:
            candidates.append(path)
    return sorted(candidates, key=lambda p: len(os.fsencode(p)))


def free_tcp_port() -> int:
    """Ask the kernel for a currently free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOCALHOST, 0))
        port: int = sock.getsockname()[1]
        return port
