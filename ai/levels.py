"""The registry of named AI levels, with the built-in ones in the order players see them.

A level is a name, a one-line summary in players' words, a factory of its :class:`ai.player.Player` and its default
limits; its strength, an Elo-style rating, is measured by our own round robin and shipped as data
(:mod:`ai.strength`). Old names stay valid as aliases: :func:`get_level` accepts them (so stored games and typed
commands keep working) while :func:`levels`, which the menus and help list weakest to strongest, shows only the real
names.

A learning level with trained weights is named ``level@FILE`` (``lms@weights.json``, as ``kingme bestmove --weights``
and ``kingme arena --weights-a`` spell it): :func:`get_level` builds it from the weights file; it is hidden, so no
game's options accept it. The name alone says everything, so it crosses to the arena's worker processes as text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ai.alphabeta import CautiousPlayer, GreedyPlayer, MediumPlayer
from ai.book import WithBook
from ai.endgames import LEVEL as ENDGAME_LEVEL
from ai.endgames import EndgamePlayer
from ai.iterative import SteadyPlayer
from ai.kernel import KernelPlayer
from ai.learners import FrozenPlayer, WeightsFileError, read_weights
from ai.learners.lms import LmsPlayer
from ai.learners.qlearning import QLearningPlayer
from ai.learners.sarsa import SarsaPlayer
from ai.mini_solver import SolvedOnMini
from ai.player import Limits, Player
from ai.random_player import RandomPlayer
from ai.strength import rating
from core import RulesError


@dataclass(frozen=True)
class Level:
    """A named AI level in the registry."""

    name: str
    summary: str
    """One line in players' words on how it plays (no jargon: the README and ``docs/ai.md`` say how it works), for
    ``/checkers help``, the level choices and ``kingme levels``; translated (``scripts/i18n`` extracts it)."""
    factory: Callable[[], Player]
    default_limits: Limits = field(default_factory=Limits)
    max_time: float = 10.0
    """The most thinking time per move the level accepts from a caller."""
    aliases: tuple[str, ...] = ()
    """Former names, still accepted by :func:`get_level` but never listed."""
    hidden: bool = False
    """A benchmark player, not a level people play: :func:`get_level` finds it (the arena, ``kingme bestmove``, the
    benchmarks) but :func:`levels` leaves it out, so no menu, help text or game option offers it."""
    trained: Callable[[Mapping[str, dict[str, Any]]], Player] | None = None
    """A learning level's player with the models of a weights file instead of the shipped ones (None: not a
    learner)."""

    @property
    def rating(self) -> int | None:
        """How strong it plays: its rating from our round robin (:mod:`ai.strength`); None if it was not measured."""
        return rating(self.name)


class UnknownLevelError(RulesError):
    """A level name that the registry does not know."""


_LEVELS: dict[str, Level] = {}
_ALIASES: dict[str, str] = {}


def register(level: Level) -> Level:
    """Add a level, and its aliases, to the registry."""
    _LEVELS[level.name] = level
    for alias in level.aliases:
        _ALIASES[alias] = level.name
    return level


def levels() -> dict[str, Level]:
    """Every registered level that people play, by name, weakest to strongest by their measured ratings (those not
    measured last, in registration order); aliases and hidden levels left out."""
    shown = sorted((level for level in _LEVELS.values() if not level.hidden), key=_weakest_first)
    return {level.name: level for level in shown}


def _weakest_first(level: Level) -> tuple[bool, int]:
    strength = level.rating
    return strength is None, strength or 0


def get_level(name: str, *, hidden: bool = True) -> Level:
    """The level called ``name`` (or formerly called so); a hidden one only if ``hidden`` (a game's options say
    ``hidden=False``, so players cannot pick a benchmark player)."""
    base, at, path = name.partition("@")
    key = base.strip().lower()
    level = _LEVELS.get(key) or _LEVELS.get(_ALIASES.get(key, ""))
    if level is None or (level.hidden and not hidden) or (at and not hidden):
        raise UnknownLevelError(f"unknown AI level {name!r}: choose one of {', '.join(levels())}")
    return with_weights(level, Path(path)) if at else level


def with_weights(level: Level, path: Path) -> Level:
    """``level`` playing the weights in the file at ``path`` (a hidden level named ``name@path``)."""
    trained = level.trained
    if trained is None:
        learners = ", ".join(name for name, known in _LEVELS.items() if known.trained is not None)
        raise UnknownLevelError(f"only the learning levels ({learners}) play from a weights file, not {level.name}")
    try:
        models = read_weights(path, level.name)
    except WeightsFileError as exc:
        raise UnknownLevelError(str(exc)) from None
    return replace(level, name=f"{level.name}@{path}", factory=lambda: trained(models), hidden=True, aliases=())


def merge_limits(level: Level, limits: Limits | None) -> Limits:
    """The caller's limits over the level's defaults, with the time clamped to the level's maximum."""
    base = level.default_limits
    if limits is None:
        return base
    time = limits.time if limits.time is not None else base.time
    if time is not None:
        time = max(0.01, min(time, level.max_time))
    return Limits(
        time=time,
        depth=limits.depth if limits.depth is not None else base.depth,
        nodes=limits.nodes if limits.nodes is not None else base.nodes,
    )


HARD_DEPTH = 6
"""The nominal depth ``hard`` never searches beyond, whatever its time: ``master`` reaches about 18 in a second."""
HARD_TABLE_ENTRIES = 1 << 18
"""``hard``'s transposition table (8 MiB): a size of its own, so it keeps a table apart from ``master``'s. ``hard``
evaluates with the hand-picked features alone, without ``master``'s learned patterns, so that its strength (and its
place on the ladder) stays what it was measured to be."""


def _learner(name: str, summary: str, player: type[FrozenPlayer[Any]]) -> Level:
    """A learning level: it plays its shipped weights, or a weights file's as ``name@FILE`` (:func:`with_weights`)."""
    return Level(name, summary, player, Limits(), max_time=1.0, trained=lambda models: player(models=models))


BUILT_IN = (
    Level("easy", "Plays random legal moves: for your very first games.", RandomPlayer, Limits(), max_time=1.0),
    _learner("qlearning", "Learnt from its own games; judges a move by the shape it leaves.", QLearningPlayer),
    _learner("sarsa", "Learnt from its own games; judges a move by what the move itself does.", SarsaPlayer),
    Level(
        "greedy",
        "Reads three turns ahead and grabs pieces, not seeing you take back.",
        GreedyPlayer,
        Limits(depth=3),
        aliases=("seed-ab3",),
    ),
    _learner("lms", "Learnt from its own games; weighs pieces, kings and threats one move on.", LmsPlayer),
    Level("medium", "Reads five turns ahead and counts the pieces each side wins.", MediumPlayer, Limits(depth=5)),
    Level(
        "cautious",
        "Reads four turns ahead, always up to your reply, and counts pieces.",
        CautiousPlayer,
        Limits(depth=4),
        aliases=("seed-ab",),
    ),
    Level("steady", "Thinks a second a move and follows every exchange to its end.", SteadyPlayer, Limits(time=1.0)),
    Level(
        "hard",
        "Master's engine held back to six turns ahead: a real test.",
        lambda: KernelPlayer(table_entries=HARD_TABLE_ENTRIES, max_depth=HARD_DEPTH, patterns=False),
        Limits(time=1.0),
    ),
    Level(
        "master",
        "The strongest: reads deep, knows openings and endings; perfect on mini.",
        lambda: SolvedOnMini(WithBook(KernelPlayer(endgames=True, network=True))),
        Limits(time=2.0),
    ),
)
"""The levels King Me ships, weakest to strongest as last measured (:func:`levels` orders them by the measured
ratings, so a new measurement reorders the menus by itself). How each works is in the README and ``docs/ai.md``."""

for _level in BUILT_IN:
    register(_level)
register(
    Level(
        ENDGAME_LEVEL,
        "Defends endings of kings perfectly, from the endgame databases.",
        EndgamePlayer,
        max_time=1.0,
        hidden=True,  # the endgame trainer's defender: it plays only the trainer's endings (ai.endgames)
    )
)
