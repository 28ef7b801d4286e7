"""How strong each level plays: Elo-style ratings fitted to our own round robin of the levels, shipped as
``data/levels.json``.

``python -m benchmarks.strength`` plays every pair of levels, fits one rating per level to all the results with
:func:`fit_ratings` (a Bradley–Terry maximum-likelihood fit on the Elo scale, anchored on :data:`ANCHOR`) and writes
the file with how it was measured (:class:`Measurement`). The menus, ``/checkers help`` and ``kingme levels`` read it
through :func:`measured`; :func:`ai.levels.levels` lists the levels weakest to strongest by it.

The figures compare the levels with each other only: a level of 1400 scores about 76% against one of 1200 (the Elo
rule, 200 points), whatever its opponent's style. They are not the players' Glicko ratings, which come from games
between people.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS_FILE = Path(__file__).with_name("data") / "levels.json"
FORMAT = 1
ANCHOR = "easy"
"""The level whose rating is fixed: the others are placed against it."""
ANCHOR_RATING = 1000
PRIOR_DRAWS = 1.0
"""Virtual drawn games added to every pair before the fit: without them a level that won every game would have no
finite maximum-likelihood rating (a short run often ends a pair 4-0)."""


@dataclass(frozen=True)
class PairResult:
    """A match between two levels, from ``a``'s side."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def fit_ratings(
    results: Iterable[PairResult],
    anchor: str = ANCHOR,
    anchor_rating: float = ANCHOR_RATING,
    prior_draws: float = PRIOR_DRAWS,
    tolerance: float = 1e-10,
    max_rounds: int = 100_000,
) -> dict[str, float]:
    """One rating per level that best explains every result at once: the maximum-likelihood Bradley–Terry strengths
    (a draw counted as half a win), with ``prior_draws`` virtual draws added to each pair, on the Elo scale
    (``400·log10`` of the strength) and shifted so that ``anchor`` is ``anchor_rating``.

    The fit is Hunter's minorisation–maximisation iteration (the classic one for Bradley–Terry): each level's
    strength becomes its points divided by the sum, over its games, of ``1 / (its strength + the opponent's)``.
    At the optimum each level's expected points equal the points it scored.

    Raises :class:`ValueError` when ``anchor`` played no game, or when some level cannot be compared with the anchor
    (no chain of matches joins them), or when a level scored nothing or everything with ``prior_draws`` of 0.
    """
    pairs = [r for r in results if r.games + prior_draws > 0]
    names = sorted({n for r in pairs for n in (r.a, r.b)})
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} played no game")
    _check_connected(names, pairs, anchor)
    points = dict.fromkeys(names, 0.0)
    games: dict[str, dict[str, float]] = {n: {} for n in names}
    for r in pairs:
        points[r.a] += r.wins + (r.draws + prior_draws) / 2
        points[r.b] += r.losses + (r.draws + prior_draws) / 2
        n = r.games + prior_draws
        games[r.a][r.b] = games[r.a].get(r.b, 0.0) + n
        games[r.b][r.a] = games[r.b].get(r.a, 0.0) + n
    hopeless = [n for n in names if points[n] <= 0 or points[n] >= sum(games[n].values())]
    if hopeless:
        raise ValueError(f"no finite rating for {', '.join(hopeless)}: every game lost or won (add prior draws)")
    strength = dict.fromkeys(names, 1.0)
    for _ in range(max_rounds):
        new = {i: points[i] / sum(n / (strength[i] + strength[j]) for j, n in games[i].items()) for i in names}
        scale = math.exp(sum(math.log(s) for s in new.values()) / len(new))  # geometric mean 1: no drift
        new = {i: s / scale for i, s in new.items()}
        change = max(abs(math.log(new[i] / strength[i])) for i in names)
        strength = new
        if change < tolerance:
            break
    zero = 400 * math.log10(strength[anchor])
    return {n: anchor_rating + 400 * math.log10(strength[n]) - zero for n in names}


def _check_connected(names: list[str], pairs: list[PairResult], anchor: str) -> None:
    neighbours: dict[str, set[str]] = {n: set() for n in names}
    for r in pairs:
        neighbours[r.a].add(r.b)
        neighbours[r.b].add(r.a)
    reached, todo = {anchor}, [anchor]
    while todo:
        for other in neighbours[todo.pop()] - reached:
            reached.add(other)
            todo.append(other)
    if len(reached) < len(names):
        apart = ", ".join(n for n in names if n not in reached)
        raise ValueError(f"no chain of matches joins {apart} to {anchor}")


@dataclass(frozen=True)
class Measurement:
    """The ratings of the levels and how they were measured (the contents of ``data/levels.json``)."""

    ratings: Mapping[str, int]
    command: str
    """The command that measured them, as typed."""
    date: str
    variant: str
    games_per_pair: int
    time_per_move: float | None
    """Seconds a move for every level (None: each level's own)."""
    minutes: float
    """How long the round robin took, wall clock."""
    cpu_minutes: float
    """The CPU time it took, every worker process counted."""
    cpus: int
    """The cores of the machine it ran on."""
    prior_draws: float = PRIOR_DRAWS
    anchor: str = ANCHOR
    anchor_rating: int = ANCHOR_RATING
    results: tuple[PairResult, ...] = field(default=())

    def rating(self, level: str) -> int | None:
        return self.ratings.get(level)

    def to_json(self) -> str:
        data = {
            "format": FORMAT,
            "about": "each level's Elo-style rating, fitted to our own round robin (python -m benchmarks.strength)",
            "ratings": dict(self.ratings),
            "anchor": {"level": self.anchor, "rating": self.anchor_rating},
            "method": {
                "fit": "Bradley-Terry maximum likelihood on the Elo scale, draws as half a win",
                "prior_draws_per_pair": self.prior_draws,
            },
            "measured": {
                "command": self.command,
                "date": self.date,
                "variant": self.variant,
                "games_per_pair": self.games_per_pair,
                "time_per_move": self.time_per_move,
                "minutes": round(self.minutes, 1),
                "cpu_minutes": round(self.cpu_minutes, 1),
                "cpus": self.cpus,
            },
            "results": "RESULTS",
        }
        rows = ",\n".join(f"  {json.dumps([r.a, r.b, r.wins, r.draws, r.losses])}" for r in self.results)
        text = json.dumps(data, indent=1, ensure_ascii=False)  # one match a line: [a, b, a's wins, draws, losses]
        return text.replace('"RESULTS"', f"[\n{rows}\n ]" if rows else "[]") + "\n"

    @classmethod
    def from_json(cls, text: str) -> Measurement:
        """The measurement a file holds; :class:`ValueError` if it is not one of ours."""
        try:
            data: dict[str, Any] = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT}")
            measured, method, anchor = data["measured"], data["method"], data["anchor"]
            time_per_move = measured["time_per_move"]
            return cls(
                ratings={str(k): int(v) for k, v in data["ratings"].items()},
                command=str(measured["command"]),
                date=str(measured["date"]),
                variant=str(measured["variant"]),
                games_per_pair=int(measured["games_per_pair"]),
                time_per_move=None if time_per_move is None else float(time_per_move),
                minutes=float(measured["minutes"]),
                cpu_minutes=float(measured["cpu_minutes"]),
                cpus=int(measured["cpus"]),
                prior_draws=float(method["prior_draws_per_pair"]),
                anchor=str(anchor["level"]),
                anchor_rating=int(anchor["rating"]),
                results=tuple(
                    PairResult(str(a), str(b), int(w), int(d), int(lo)) for a, b, w, d, lo in data["results"]
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a levels file: {exc}") from None


@functools.cache
def measured() -> Measurement | None:
    """The measurement shipped with King Me (None if the file is missing), read once per process."""
    if not LEVELS_FILE.is_file():
        return None
    return Measurement.from_json(LEVELS_FILE.read_text(encoding="utf-8"))


def rating(level: str) -> int | None:
    """The shipped rating of the level named ``level`` (None: not measured)."""
    found = measured()
    return found.rating(level) if found is not None else None
