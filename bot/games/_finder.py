"""Which game a command is about: the game of the channel (or thread) it was typed in, or the user's last one.

A game played in its own thread is filed under the thread's id, so the game of a thread is the game of that channel;
a user's own game wins over someone else's in the same channel, and a user's game in a thread of this channel counts
as here.
"""

from __future__ import annotations

import contextlib
from typing import Any

import discord

from bot.games import _messages as say
from bot.games._dispatch import NO_GUILD, caller_id, channel_of, guild_of
from bot.games._messages import Refusal
from bot.service import GameService, GameState, GameView, UserId

LAST_GAMES = 10
"""How many of a user's finished games are searched for one played here."""


class GameFinder:
    """Finds the game of an interaction's channel through the game service."""

    def __init__(self, client: discord.Client, service: GameService) -> None:
        self._client = client
        self._service = service

    async def game_here(self, interaction: discord.Interaction[Any], *, mine: bool) -> GameView:
        """The game of this channel (or thread): the user's own, or with ``mine=False`` any game shown here."""
        uid = caller_id(interaction)
        views = await self._service.channel_games(guild_of(interaction) or NO_GUILD, channel_of(interaction))
        own = [v for v in views if v.game.color_of(uid) is not None]
        if own:
            return own[0]
        if views and not mine:
            return views[0]
        own = [v for v in await self._service.user_games(uid) if self._shown_here(interaction, v.game)]
        if own:
            return own[0]
        raise Refusal(say.NO_GAME_HERE if mine else say.NO_GAME_TO_SHOW)

    async def last_game(self, interaction: discord.Interaction[Any], user_id: UserId) -> GameState:
        """The user's most recent finished game, preferring this channel's."""
        games = await self._service.history(user_id, LAST_GAMES)
        for game in games:
            if self._shown_here(interaction, game):
                return game
        if games:
            return games[0]
        raise Refusal(say.NO_FINISHED_GAME)

    def _shown_here(self, interaction: discord.Interaction[Any], game: GameState) -> bool:
        """True when ``game`` is played in this channel, in this thread's channel, or in a thread of this channel."""
        here = {str(interaction.channel_id), str(getattr(interaction.channel, "parent_id", None))}
        if game.channel_id in here:
            return True
        with contextlib.suppress(ValueError):
            return str(getattr(self._client.get_channel(int(game.channel_id)), "parent_id", None)) in here
        return False
