"""King Me's AI players: search, evaluation, learning agents, training and the arena. Depends on core only."""

from ai.api import GameInput, Level, Limits, Player, SearchResult, UnknownLevelError, choose_move, get_level, levels

__all__ = [
    "GameInput",
    "Level",
    "Limits",
    "Player",
    "SearchResult",
    "UnknownLevelError",
    "choose_move",
    "get_level",
    "levels",
]
