"""Where numba keeps the kernel's compiled code, without importing numba.

The folder is ``$NUMBA_CACHE_DIR`` if that is set, else ``$KINGME_DATA/numba-cache`` if the data folder is set, else
``$XDG_CACHE_HOME/kingme/numba`` (``~/.cache/kingme/numba``). Inside it the code lives in a subfolder named after a
fingerprint of the kernel's sources: numba checks only a function's own file when it reuses cached code, so a change to
the move generator would otherwise leave the search compiled against the old one.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_SOURCES = Path(__file__).resolve().parent


def base_dir() -> Path:
    """The configured cache folder (see the module's docstring)."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    data = os.environ.get("KINGME_DATA")
    if data:
        return Path(data) / "numba-cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "kingme" / "numba"


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
