"""Random inputs for the fuzz: the well-formed ones a front end sends and the hostile ones a person can type, all
drawn from one seeded :class:`random.Random` so that a seed names a run."""

from __future__ import annotations

import functools
import math
import os
import random
import secrets
from collections.abc import Sequence
from typing import TypeVar

from ai.api import levels
from core import VARIANTS

T = TypeVar("T")

SEED_VARIABLE = "KINGME_FUZZ_SEED"
"""The environment variable that chooses a run: ``KINGME_FUZZ_SEED=<seed> pytest tests/bot/fuzz`` replays one,
``KINGME_FUZZ_SEED=random`` draws a fresh seed (printed, so a failure can be replayed)."""

FIXED_SEED = 1225238914
"""The seed of a run that names none, so CI repeats the same random choices every time (this one broke the invariant
"no game in a closed thread" before game rooms were closed atomically)."""

HOSTILE_TEXT = (
    "",
    " ",
    "\u2028",
    "\u2029",
    "\x00",
    "<script>alert(1)</script>",
    "@everyone",
    "<@&1>",
    "`` ` ``",
    "*",
    "../../etc/passwd",
    "kingme:v1:names",
    "9" * 40,
    "é" * 40,
    "💥" * 20,
    "x" * 1000,
    "%s%s%n",
    "None",
    "-1",
)
"""Text nobody should ever choke on: empty, separators, control characters, markup, key-like, very long."""

FENS = (
    "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "B:WK30:BK3",
    "W:W18:B14",
    "B:W5:B32",
    "B:W:B1",
    "B:W1,1:B2",
    "B:W33:B1",
    "W:WK1,K2,K3:BK32",
    "B:W13,14,15,16,17,18:B1,2,3,4,5,6",
    "Q:W1:B2",
    "B:Wx:By",
)
"""Start positions: real ones, one with a side already lost, duplicate and off-board squares, broken text."""


@functools.cache
def seed() -> int:
    """This run's seed: :data:`SEED_VARIABLE` (a number, or ``random`` for a fresh one), else :data:`FIXED_SEED`."""
    given = os.environ.get(SEED_VARIABLE, "").strip()
    if given == "random":
        return secrets.randbits(32)
    return int(given) if given else FIXED_SEED


def replay_hint(seed_value: int, test: str) -> str:
    return f"replay with: {SEED_VARIABLE}={seed_value} python -m pytest -q {test}"


class Inputs:
    """Draws inputs: ``inputs.pick(seq)``, ``inputs.chance(p)``, and the option values of each kind."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self._levels = [name for name, level in levels().items() if not level.hidden]

    def pick(self, items: Sequence[T]) -> T:
        return items[self.rng.randrange(len(items))]

    def chance(self, probability: float) -> bool:
        return self.rng.random() < probability

    def text(self) -> str:
        return self.pick(HOSTILE_TEXT)

    def variant(self) -> str:
        return self.pick(list(VARIANTS)) if self.chance(0.85) else self.pick(("AMERICAN", "chess", *HOSTILE_TEXT))

    def level(self) -> str:
        """Mostly ``easy`` (a random legal move at once), so AI turns happen without eating the time budget."""
        if self.chance(0.9):
            return "easy"
        return self.pick(self._levels) if self.chance(0.4) else self.pick(("EASY", "hidden", *HOSTILE_TEXT))

    def colour(self) -> str:
        return self.pick(("black", "white", "random")) if self.chance(0.9) else self.pick(("purple", "BLACK", ""))

    def fen(self) -> str | None:
        if self.chance(0.85):
            return None
        return self.pick(FENS) if self.chance(0.8) else self.text()

    def think(self) -> float | None:
        if self.chance(0.7):
            return None
        return self.pick((0.01, 0.05, 0.2, 0.0, -1.0, math.nan, math.inf, -math.inf, 1e308, 5e-324))

    def turn_time(self) -> float | None:
        if self.chance(0.6):
            return None
        return self.pick((60, 300, 3600, 86400, 604800, 59, 0, -60, math.nan, math.inf, 1e12, 60.5))

    def version(self, current: int) -> int:
        """The version a click carries: mostly the one shown, else a stale, a future or an absurd one."""
        if self.chance(0.7):
            return current
        return self.pick((current - 1, current - 2, current + 1, 0, -1, 10**9 - 1, 1))

    def fresh_id(self) -> str:
        """Shaped like a real game or challenge id, but naming nothing."""
        return f"{self.rng.getrandbits(48):012x}"

    def id_like(self, real: str | None) -> str:
        """A hostile id: malformed, key-like, a real one bent, or one naming nothing."""
        bent = [real + ":moves", real + ":result", real.upper(), real[:-1], real + "0", f"game:{real}"] if real else []
        return self.pick([*bent, self.fresh_id(), *HOSTILE_TEXT[:13]])
