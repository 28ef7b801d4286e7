"""``/checkers export``: a game as PDN, as text and as a ``.pdn`` file, only to the asker."""

from __future__ import annotations

import io
from typing import Any

import discord

from bot.games._dispatch import caller_id, guild_of
from bot.games._finder import GameFinder
from bot.games._locale import user_language
from bot.games._messages import Refusal
from bot.games._respond import send, within_deadline
from bot.service import GameId, GameService, GameView

SHOWN = 1500
"""How much of the PDN the message shows (the file holds it all)."""


async def export(
    interaction: discord.Interaction[Any], service: GameService, finder: GameFinder, game: str | None
) -> None:
    """The game ``game`` (an id), else this channel's game, else the asker's last one."""

    async def work() -> tuple[str, GameView]:
        if game is not None:
            game_id = GameId(game.strip())  # the service answers a malformed id as unknown
        else:
            try:
                game_id = (await finder.game_here(interaction, mine=False)).id
            except Refusal:
                game_id = (await finder.last_game(interaction, caller_id(interaction))).id
        return await service.pdn(game_id, guild_of(interaction)), await service.state(game_id)

    pdn, view = await within_deadline(interaction, work(), ephemeral=True)
    shown = pdn if len(pdn) < SHOWN else pdn[:SHOWN] + "\n…"
    heading = user_language(interaction)._(
        "Game {game} · position now: {fen}", game=f"`{view.id}`", fen=f"`{view.fen}`"
    )
    content = f"{heading}\n```\n{shown}\n```"
    file = discord.File(io.BytesIO(pdn.encode()), filename=f"kingme-{view.id}.pdn")
    await send(interaction, ephemeral=True, content=content, file=file)
