"""Where numba keeps the kernel's compiled code, without importing numba.

The folder is ``$NUMBA_CACHE_DIR`` if that is set, else ``kingme/numba`` in the user's cache folder:
``$XDG_CACHE_HOME`` if set, else ``~/.cache`` (``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows). It is
one per user and machine, never under the data folder (``KINGME_DATA``, or a sandbox's temporary one), so the kernel
compiles once (13 s or so) and every later start of the CLI, the sandbox or the bot only loads it. Inside it the code
lives in a subfolder named after a fingerprint of the kernel's sources: numba checks only a function's own file when it
reuses cached code, so a change to the move generator would otherwise leave the search compiled against the old one.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

_SOURCES = Path(__file__).resolve().parent


def user_cache_home() -> Path:
    """The user's cache folder: ``$XDG_CACHE_HOME`` (when it is an absolute path, as the XDG rules ask), else the
    platform's own."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg)
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "")
        return Path(local) if local else Path.home() / "AppData" / "Local"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path.home() / ".cache"


def base_dir() -> Path:
    """The configured cache folder (see the module's docstring)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return user_cache_home() / "kingme" / "numba"


def fingerprint() -> str:
    """A short hash of the kernel's source files."""
    digest = hashlib.sha256()
    for path in sorted(_SOURCES.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cache_dir() -> Path:
    """The folder numba reads and writes the kernel's compiled code in."""
    return base_dir() / f"kernel-{fingerprint()}"
