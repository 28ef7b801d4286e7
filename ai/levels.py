"""The built-in levels, registered in the order players see them."""

from __future__ import annotations

from ai.api import Level, Limits, register
from ai.random_player import RandomPlayer

register(Level("easy", "Plays a random legal move: a gentle first opponent.", RandomPlayer, Limits(), max_time=1.0))
