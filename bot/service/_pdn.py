"""PDN export of a stored game: the service's tags over :func:`core.pdn.game_to_pdn` (movetext, GameType, FEN)."""

from __future__ import annotations

import time

from bot.service._models import GameState
from core.pdn import game_to_pdn

_EVENTS = {"human": "King Me game", "ai": "King Me game against the AI", "exhibition": "King Me exhibition"}


def game_pdn(game: GameState) -> str:
    """The game as PDN text, with result ``*`` while it is being played."""
    headers = {
        "Event": _EVENTS[game.kind.value],
        "Site": f"Discord guild {game.guild_id}",
        "Date": time.strftime("%Y.%m.%d", time.gmtime(game.created_at)),
        "Round": "-",
        "Black": game.black.name,
        "White": game.white.name,
        "GameId": game.id,
    }
    if game.termination:
        headers["Termination"] = game.termination
    return game_to_pdn(game.board(), headers, game.result or "*")
