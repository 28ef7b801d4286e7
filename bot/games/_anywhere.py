"""Games where the bot is not a member: a DM, a group DM, a server where only the person installed the app.

Discord lets an app reach such a place only through the interactions people send it (issue 23): it answers one (a
new message, or an update of the message whose component was clicked), edits that answer through the interaction's
token and sends follow-ups through it, for 15 minutes; channel routes (posting, threads, history) answer 403 Missing
Access. A game there therefore lives on one message, the board, which every click on it updates in its own answer.
What happens between clicks (the AI's reply, a turn timer, the opponent's ping) goes through :class:`Tokens`: the
newest interaction of each such game that is still good, which edits its original response (the board) and sends
follow-ups, at most :data:`FOLLOWUPS` of them. Where no token is good any more, nothing is sent: the next click on the
board shows the current position. The DM with the bot is played the same way, so every game outside a server behaves
alike.

The tokens are kept in this process's memory: after a restart, or in another shard process, a game has none until
its board is clicked again (the click shows the position, as after a long pause).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.bounded import BoundedDict
from bot.games import _messages as say
from bot.games._board import BoardMessage
from bot.games._dispatch import place_of
from bot.games._messages import Refusal
from bot.games._respond import SendFields, keywords
from bot.service import GameId, GameState

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]
Where = tuple[int, int | None]

TOKEN_LIFETIME = 15 * 60.0
"""Seconds an interaction's token is good for (Discord's 15 minutes)."""
TOKEN_MARGIN = 60.0
"""Seconds before its end a token is no longer used: an edit sent at 14:59 could arrive too late."""
FOLLOWUPS = 5
"""Follow-ups Discord allows an interaction that only a user install authorised (the 6th is refused, code 40094)."""
FOLLOWUPS_USED = 40094
"""Discord's code for a follow-up past :data:`FOLLOWUPS`."""
REMEMBER = 1000
"""Games whose newest token is kept (the least recently kept are forgotten first)."""


def bot_is_member(interaction: Interaction) -> bool:
    """True where the bot is a member of the server the interaction came from (the server install authorised it)."""
    return not place_of(interaction).through_interactions


def server_only(interaction: Interaction) -> None:
    """Refuse, plainly, a command that needs the bot in the server (its ladder's seasons, an exhibition's timed
    moves, a tournament) where the bot is not."""
    if not bot_is_member(interaction):
        raise Refusal(say.BOT_NOT_HERE)


@dataclass
class Token:
    """One interaction of a game, the time it was issued (on the service's clock) and the follow-ups it sent."""

    interaction: Interaction
    issued: float
    followups: int = 0


class Tokens:
    """The newest usable interaction of each game played where the bot is not a member (see the module's docstring).

    Args:
        clock: the service's time in epoch seconds (tests move it ahead to skip a quarter of an hour).
    """

    def __init__(self, clock: Callable[[], float], *, remember: int = REMEMBER) -> None:
        self._clock = clock
        self._kept: BoundedDict[str, Token] = BoundedDict(remember)
        self._pings: BoundedDict[str, tuple[Token, int]] = BoundedDict(remember)

    def keep(self, game: GameState, interaction: Interaction) -> None:
        """Keep ``interaction`` (answered: its original response is the game's board) as the game's token, unless the
        game is played in a server with the bot or a newer one is kept."""
        if not game.place.through_interactions:
            return
        age = max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())
        token = Token(interaction, self._clock() - age)
        kept = self._kept.get(game.id)
        if kept is None or (kept.issued <= token.issued and kept.interaction.id != interaction.id):
            self._kept[game.id] = token

    def usable(self, game_id: GameId) -> Token | None:
        """The game's token while it is good (see :data:`TOKEN_MARGIN`), else None (and it is forgotten)."""
        token = self._kept.get(game_id)
        if token is not None and self._good(token):
            return token
        self._kept.pop(game_id, None)
        return None

    def _good(self, token: Token) -> bool:
        return self._clock() - token.issued < TOKEN_LIFETIME - TOKEN_MARGIN

    async def onto_board(self, board: BoardMessage) -> Where | None:
        """Edit the game's board (the original response of its token) into ``board``; None when no token is good
        (the next click shows the board) or Discord refused the edit (the token is then forgotten)."""
        game = board.game_view.game
        token = self.usable(game.id)
        if token is None:
            log.debug("no usable interaction for game %s: its board waits for the next click", game.id)
            return None
        try:
            message = await token.interaction.edit_original_response(**board.fields())
        except discord.HTTPException as exc:
            log.info("could not edit the board of game %s through its interaction (%s)", game.id, exc)
            self._forget(game.id, token)
            return None
        return message.channel.id, message.id

    async def follow_up(
        self, game_id: GameId, text: str, *, view: discord.ui.View | None = None, ping: bool = False
    ) -> bool:
        """Say ``text`` (with ``view``'s components) in a follow-up of the game's token, if one is good and may send
        one more; it replaces the game's previous ping (deleted while its own token is good), and with ``ping`` it is
        the new one, its mentions notified. True if it was sent."""
        token = self.usable(game_id)
        if token is None or token.followups >= FOLLOWUPS:
            return False
        token.followups += 1
        mentions = say.MENTIONS if ping else discord.AllowedMentions.none()
        fields: SendFields = {"content": text, "allowed_mentions": mentions}
        if view is not None:
            fields["view"] = view
        try:
            sent = await token.interaction.followup.send(wait=True, **keywords(fields))
        except discord.HTTPException as exc:
            log.info("could not send a follow-up for game %s (%s)", game_id, exc)
            if exc.code != FOLLOWUPS_USED:  # else the token still edits the board
                self._forget(game_id, token)
            return False
        await self.clear_ping(game_id)
        if ping:
            self._pings[game_id] = (token, sent.id)
        return True

    async def clear_ping(self, game_id: GameId) -> None:
        """Delete the game's last ping, if the token that sent it is still good."""
        previous = self._pings.pop(game_id, None)
        if previous is not None and self._good(previous[0]):
            with contextlib.suppress(discord.HTTPException):
                await previous[0].interaction.followup.delete_message(previous[1])

    def _forget(self, game_id: GameId, token: Token) -> None:
        if self._kept.get(game_id) is token:
            self._kept.pop(game_id, None)
