"""The sandbox page's key: a secret its address carries and its socket must present (see :class:`SandboxBridge`).

Without a data folder a sandbox makes a new key at every start. With one, the key is made once and kept there, in a
file only its owner may read, so the address printed at the first start, and a tab open on it, keep working after a
restart.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path
from typing import Final

KEY_FILE: Final = "sandbox-key"
"""The key's file in a sandbox's data folder."""
_KEY: Final = re.compile(r"[A-Za-z0-9_-]{16,128}")
"""What a key looks like (:func:`new_key` makes 24 such characters)."""


def new_key() -> str:
    return secrets.token_urlsafe(18)


def kept_key(path: Path) -> str:
    """The key kept in ``path``, made and written there (readable by its owner only) when the file is missing or holds
    no key. Raises :class:`OSError` when the file cannot be read or written."""
    try:
        kept = path.read_bytes().decode("ascii", "replace").strip()
    except FileNotFoundError:
        kept = ""
    if _KEY.fullmatch(kept):
        if os.name == "posix" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # a copy made with looser permissions: the key is a password to the page
        return kept
    key = new_key()
    _write_private(path, key + "\n")
    return key


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a new file created with mode 0600, then renamed over it, so no moment shows
    a half-written key or one that others may read."""
    scratch = path.with_name(path.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        scratch.unlink()
    descriptor = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(descriptor, "w", encoding="ascii") as file:
        file.write(text)
    os.replace(scratch, path)
