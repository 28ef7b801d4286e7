"""What the application uses of the AI: the player types, the level registry (with the levels' measured strength,
:func:`measured`) and :func:`choose_move`, the module-level function a worker process runs.

The types live in :mod:`ai.player` and the registry in :mod:`ai.levels`; this module gathers them for callers outside
``ai/`` and adds the one call that turns plain, picklable data into a move. A worker process calls :func:`warm_up` when
it starts, so that the compiled search kernel (and the endgame trainer's distances of up to three pieces) is ready
before the first move.
"""

from __future__ import annotations

import random

from ai import endgames, kernel
from ai.levels import Level, UnknownLevelError, get_level, levels, merge_limits, register
from ai.player import GameInput, Limits, Player, SearchResult
from ai.strength import Measurement, measured

__all__ = [
    "GameInput",
    "Level",
    "Limits",
    "Measurement",
    "Player",
    "SearchResult",
    "UnknownLevelError",
    "choose_move",
    "get_level",
    "levels",
    "measured",
    "merge_limits",
    "register",
    "warm_up",
]


def warm_up() -> float:
    """Compile the search kernel and the endgame trainer's distances, or load them from the on-disk cache (call once
    when a worker process starts); the seconds it took."""
    return kernel.warm_up() + endgames.warm_up()


def choose_move(level: str, game: GameInput, limits: Limits | None = None, seed: int = 0) -> SearchResult:
    """Pick a move for the side to move in ``game`` with the named level: the function a worker process runs.

    Raises :class:`UnknownLevelError`, :class:`core.RulesError` for a bad game, or :class:`ValueError` when the game
    has no legal move.
    """
    spec = get_level(level)
    board = game.board()
    if not board.legal_moves:
        raise ValueError("the game is over: there is no move to choose")
    player = spec.factory()
    return player.choose(board, merge_limits(spec, limits), random.Random(seed))
