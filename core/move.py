"""The :class:`Move` value."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Move:
    """A move as PDN squares: the path the piece takes (start first) and the squares of the pieces it takes.

    A step has a path of two squares and no captures; a capture lists every landing square. The empty path is a pass
    (in the variants where a side with no move passes). ``repr`` reads back as code.
    """

    path: tuple[int, ...]
    captures: tuple[int, ...] = ()

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    @property
    def is_pass(self) -> bool:
        return not self.path

    def text(self) -> str:
        """PDN move text: ``11-15``, ``15x24``, ``1x10x19`` (every landing square), or ``pass``."""
        if not self.path:
            return "pass"
        return ("x" if self.captures else "-").join(str(n) for n in self.path)

    def algebraic(self, name: Callable[[int], str]) -> str:
        """The move with each square written by ``name`` (a board's algebraic names: ``f6-e5``, ``f6xd4xb6``)."""
        if not self.path:
            return "pass"
        return ("x" if self.captures else "-").join(name(n) for n in self.path)

    def __str__(self) -> str:
        return self.text()


PASS = Move(())
