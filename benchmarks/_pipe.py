"""A benchmark's peer in a process of its own, spoken to in JSON lines: one object in, one object out."""

from __future__ import annotations

import json
import subprocess
from typing import Any


class Pipe:
    """A running peer process (``argv``) that answers each JSON line on its stdin with one on its stdout."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        reply: dict[str, Any] = json.loads(self.process.stdout.readline())
        return reply

    def close(self, timeout: float = 30) -> None:
        """Close its stdin (the peer ends when it reads the end) and wait for it."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=timeout)
