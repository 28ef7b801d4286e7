"""Public pages on the bot's HTTP side, for the real bot and the sandbox alike: a leaderboard per server and variant
(``/leaderboard/{guild_id}/{variant}``, and ``.json``), a page per finished game with its PDN and a replay
(``/games/{game_id}``, and ``.pdn``, ``.json``), and a page per tournament with its standings and the links to its
games (``/tournaments/{tournament_id}``, and ``.json``), and a puzzle's solution (``/puzzles/{puzzle_id}``)."""

from bot.public._layout import GLOBAL, game_path, leaderboard_path, public_url, tournament_path
from bot.public._pages import register_public_routes
from bot.public._puzzle_page import puzzle_path
from bot.public._replay import Position, Replay, replay

__all__ = [
    "GLOBAL",
    "Position",
    "Replay",
    "game_path",
    "leaderboard_path",
    "public_url",
    "puzzle_path",
    "register_public_routes",
    "replay",
    "tournament_path",
]
