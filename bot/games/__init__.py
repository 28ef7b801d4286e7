"""The checkers feature of the Discord bot: the ``/checkers`` commands, the board, and its components."""

from bot.games._announce import PublicLinks
from bot.games._cog import GamesCog, command_list
from bot.games._components import DYNAMIC_ITEMS
from bot.games._locale import CommandTranslator
from bot.games._theme import UNICODE, Theme, TileTheme

__all__ = [
    "DYNAMIC_ITEMS",
    "UNICODE",
    "CommandTranslator",
    "GamesCog",
    "PublicLinks",
    "Theme",
    "TileTheme",
    "command_list",
]
