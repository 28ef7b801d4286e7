"""The checkers feature of the Discord bot: the ``/checkers`` commands, the board, and its components."""

from bot.games._cog import GamesCog, command_list
from bot.games._render import THEME, Theme
from bot.games._views import DYNAMIC_ITEMS

__all__ = ["DYNAMIC_ITEMS", "THEME", "GamesCog", "Theme", "command_list"]
