"""The checkers feature of the Discord bot: the ``/checkers`` commands, the board, and its components; and the
``/tournament`` commands, a cog of their own."""

from bot.games._announce import PublicLinks
from bot.games._cog import GamesCog, command_list
from bot.games._components import DYNAMIC_ITEMS as GAME_ITEMS
from bot.games._locale import CommandTranslator
from bot.games._puzzle_components import PUZZLE_ITEMS
from bot.games._theme import UNICODE, Theme, TileTheme
from bot.games._tournament_cog import TournamentCog, tournament_commands

DYNAMIC_ITEMS = GAME_ITEMS + PUZZLE_ITEMS

__all__ = [
    "DYNAMIC_ITEMS",
    "UNICODE",
    "CommandTranslator",
    "GamesCog",
    "PublicLinks",
    "Theme",
    "TileTheme",
    "TournamentCog",
    "command_list",
    "tournament_commands",
]
