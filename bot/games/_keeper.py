"""Where each game's board message is, and keeping it current.

This is presentation, not game state: the newest :class:`GameView` seen and the message showing it, so an AI move or
a timeout (which arrive through the event sink, outside any interaction) edits the right message, and two updates of
one game never overwrite each other out of order. Each new board message is also recorded with the game
(:meth:`GameService.set_board_message`, which does not change the game's version), so after a restart an update still
edits the board people are looking at; only when none is recorded (or it was deleted) is a fresh board posted, in the
game's channel or thread.

The keeper remembers only the games shown most recently (:data:`REMEMBER`): a forgotten game's board is found again
where it is recorded with the game, and an update of a game nobody has touched for that long is never out of order.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.games._board import BoardMessage, board_message
from bot.games._locale import guild_language
from bot.games._theme import BoardThemes
from bot.i18n import Language
from bot.locks import KeyedLocks
from bot.service import GameService, GameState, GameView, MessageRef

log = logging.getLogger(__name__)
REMEMBER = 1000
"""How many games the keeper remembers (the least recently shown are forgotten first)."""
OPENING_WAIT = 5.0
"""Seconds an update waits for the command that is opening its game to post the board."""

Where = tuple[int, int | None]
"""A message as (channel id, message id); the message id is None when Discord did not say it."""
Put = Callable[[BoardMessage], Awaitable[Where | None]]
"""Sends or edits a message into a board and says where it is (None: nowhere to remember)."""


@dataclass
class Spot:
    channel_id: int
    message_id: int | None = None


@dataclass
class _Shown:
    """What the keeper knows of one game: its newest view, and its board message once placed."""

    view: GameView
    spot: Spot | None = None


class BoardKeeper:
    """The board message of each recently shown game and its newest view, with a lock per game for ordered updates."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        *,
        remember: int = REMEMBER,
        themes: BoardThemes | None = None,
    ) -> None:
        self._client = client
        self._themes = themes or BoardThemes()
        self._service = service
        self._remember = remember
        self._shown: collections.OrderedDict[str, _Shown] = collections.OrderedDict()  # least recently shown first
        self._locks = KeyedLocks()
        self._opening: dict[int, asyncio.Event] = {}

    # -- bookkeeping --------------------------------------------------------------------------------------------------

    def newest(self, view: GameView) -> GameView:
        """Remember ``view`` unless a newer one of the game is known; returns the newest."""
        shown = self._shown.pop(view.id, None)
        if shown is None:
            shown = _Shown(view)
        elif shown.view.version <= view.version:
            shown.view = view
        self._shown[view.id] = shown
        while len(self._shown) > self._remember:
            self._shown.popitem(last=False)
        return shown.view

    async def place(self, view: GameView, channel_id: int, message_id: int | None) -> None:
        """Make the message ``message_id`` in ``channel_id`` the game's board, here and in the store (unless the
        store already has it). A failure to record it is logged: the board is shown anyway."""
        self.newest(view)
        shown = self._shown[view.id]
        spot = Spot(channel_id, message_id)
        if shown.spot == spot:
            return
        shown.spot = spot
        if message_id is None or view.game.board_message == MessageRef.of(channel_id, message_id):
            return
        try:
            await self._service.set_board_message(view.id, channel_id, message_id)
        except Exception as exc:
            log.warning("could not record the board of game %s: %s", view.id, exc)

    def spot(self, game: GameState) -> Spot | None:
        """The game's board message as known here, else as recorded with the game."""
        shown = self._shown.get(game.id)
        if shown is not None and shown.spot is not None:
            return shown.spot
        if game.board_message is not None:
            return Spot(int(game.board_message.channel_id), int(game.board_message.message_id))
        return None

    @contextlib.asynccontextmanager
    async def opening(self, channel_id: int) -> AsyncIterator[None]:
        """Mark a game being opened in ``channel_id``: an update for a game of that channel with no known board
        waits until the opening command has placed its board (instead of posting a second one)."""
        event = self._opening.setdefault(channel_id, asyncio.Event())
        try:
            yield
        finally:
            event.set()
            if self._opening.get(channel_id) is event:
                del self._opening[channel_id]

    # -- where a game is shown ------------------------------------------------------------------------------------

    def home(self, game: GameState) -> int:
        """The channel (or thread) where the game is shown."""
        spot = self.spot(game)
        return spot.channel_id if spot is not None else int(game.channel_id)

    def language(self, guild_id: str | int) -> Language:
        """The language of what is shown to everyone in a server's channels (see :mod:`bot.games._locale`)."""
        return guild_language(self._client, guild_id)

    def messageable(self, channel_id: int) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(channel_id)

    # -- showing a change -------------------------------------------------------------------------------------------

    async def show(self, view: GameView, put: Put, selected: int | None = None) -> None:
        """Build the board of the newest view of the game, hand it to ``put`` (which sends a message or edits one),
        and make that message the game's board; one game's boards are shown one at a time, newest last."""
        async with self._locks.hold(view.id):
            view = self.newest(view)
            where = await put(board_message(view, selected, self._themes.current, self.language(view.game.guild_id)))
            if where is not None:
                await self.place(view, *where)

    async def post(self, view: GameView, target: discord.abc.Messageable) -> None:
        """Post a new board of the game into ``target`` (its thread, or its channel) and make it the game's board."""

        async def into(board: BoardMessage) -> Where:
            sent = await target.send(**board.fields())
            return sent.channel.id, sent.id

        await self.show(view, into)

    async def refresh(self, view: GameView) -> None:
        """Show the newest view of the game on its board message (posting one when none is known)."""
        opening = self._opening.get(int(view.game.channel_id))
        if opening is not None and self.spot(view.game) is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(opening.wait(), OPENING_WAIT)
        await self.show(view, self._onto_board)

    async def _onto_board(self, board: BoardMessage) -> Where:
        """Edit the game's board message into ``board``, or post it when the game has none (or it was deleted)."""
        game = board.game_view.game
        spot = self.spot(game)
        if spot is not None and spot.message_id is not None:
            message = self.messageable(spot.channel_id).get_partial_message(spot.message_id)
            try:
                await message.edit(**board.fields())
                return spot.channel_id, spot.message_id
            except discord.NotFound:
                log.info("the board of game %s was deleted: posting a new one", game.id)
        channel_id = self.home(game)
        sent = await self.messageable(channel_id).send(**board.fields())
        return channel_id, sent.id
