"""The built-in levels, registered in the order players see them."""

from __future__ import annotations

from ai.alphabeta import MediumPlayer, SeedAB3Player, SeedABPlayer
from ai.api import Level, Limits, register
from ai.iterative import HardPlayer
from ai.random_player import RandomPlayer
from ai.search import MasterPlayer

register(Level("easy", "Plays a random legal move: a gentle first opponent.", RandomPlayer, Limits(), max_time=1.0))
register(Level("medium", "Alpha-beta 5 plies deep on a material count (man 1, king 2).", MediumPlayer, Limits(depth=5)))
register(
    Level(
        "seed-ab",
        "Seed 000's alpha-beta: 4 plies, scores the change in men and kings since its turn began.",
        SeedABPlayer,
        Limits(depth=4),
    )
)
register(
    Level(
        "seed-ab3",
        "Seed 003's alpha-beta: 3 plies, pawns 1 and kings 2, ±500 at the end.",
        SeedAB3Player,
        Limits(depth=3),
    )
)
register(
    Level(
        "hard",
        "Iterative deepening alpha-beta for 1 s a move, reads exchanges to the end, early/end-game heuristic.",
        HardPlayer,
        Limits(time=1.0),
    )
)
register(
    Level(
        "master",
        "The strongest: principal-variation search with a tuned evaluation, 2 s a move; perfect on mini.",
        MasterPlayer,
        Limits(time=2.0),
    )
)
import ai.learners.levels  # noqa: E402,F401  (the learning levels: qlearning, lms, sarsa)
