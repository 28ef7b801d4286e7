"""Public pages on the bot's HTTP side, for the real bot and the sandbox alike: a leaderboard per server and variant
(``/leaderboard/{guild_id}/{variant}``, and ``.json``) and a page per finished game with its PDN and a replay
(``/games/{game_id}``, and ``.pdn``, ``.json``)."""

from bot.public._layout import GLOBAL, game_path, leaderboard_path, public_url
from bot.public._pages import register_public_routes
from bot.public._replay import Position, Replay, replay

__all__ = [
    "GLOBAL",
    "Position",
    "Replay",
    "game_path",
    "leaderboard_path",
    "public_url",
    "register_public_routes",
    "replay",
]
