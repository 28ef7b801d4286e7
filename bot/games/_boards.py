"""Where each game's board message is, and keeping it current.

This is presentation, not game state: the newest :class:`GameView` seen and the message showing it, so an AI move or
a timeout (which arrive through the event sink, outside any interaction) edits the right message, and two updates of
one game never overwrite each other out of order. Each new board message is also recorded with the game
(:meth:`GameService.set_board_message`, which does not change the game's version), so after a restart an update still
edits the board people are looking at; only when none is recorded (or it was deleted) is a fresh board posted, in the
game's channel or thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import discord

from bot.games._render import board_content, board_embed
from bot.games._views import board_controls
from bot.locks import KeyedLocks
from bot.service import GameService, GameState, GameView, MessageRef

log = logging.getLogger(__name__)
_THREAD_GAME = re.compile(r"· ([0-9A-Za-z_-]{6,40})$")
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True)


def thread_name(challenger: str, accepter: str) -> str:
    """The name of the thread opened for an accepted challenge (before the game exists: the game is filed under the
    thread's id, which is how the bot finds the game of a thread)."""
    return f"{challenger[:45]} vs {accepter[:45]}"[:100]


def game_id_of_thread(channel: object) -> str | None:
    """The game id at the end of a thread's name (threads opened before games were filed under their thread)."""
    if isinstance(channel, discord.Thread):
        match = _THREAD_GAME.search(channel.name)
        return match[1] if match else None
    return None


def board_fields(view: GameView, selected: int | None = None) -> dict[str, Any]:
    """The keyword arguments that show ``view`` as a board message."""
    fields: dict[str, Any] = {"content": board_content(view), "embed": board_embed(view), "allowed_mentions": MENTIONS}
    controls = board_controls(view, selected)
    if controls is not None:
        fields["view"] = controls
    return fields


def edit_fields(view: GameView, selected: int | None = None) -> dict[str, Any]:
    """Like :func:`board_fields`, for an edit (a finished game's edit removes the components)."""
    fields = board_fields(view, selected)
    fields.setdefault("view", None)
    return fields


@dataclass
class Spot:
    channel_id: int
    message_id: int | None = None


class BoardKeeper:
    """The board message of each game and the newest view of it, with a lock per game for ordered updates."""

    def __init__(self, client: discord.Client, service: GameService) -> None:
        self._client = client
        self._service = service
        self._spots: dict[str, Spot] = {}
        self._views: dict[str, GameView] = {}
        self._locks = KeyedLocks()
        self._opening: dict[int, asyncio.Event] = {}

    # -- bookkeeping --------------------------------------------------------------------------------------------------

    def newest(self, view: GameView) -> GameView:
        """Remember ``view`` unless a newer one of the game is known; returns the newest."""
        known = self._views.get(view.id)
        if known is not None and known.version > view.version:
            return known
        self._views[view.id] = view
        return view

    async def place(self, view: GameView, channel_id: int, message_id: int | None) -> None:
        """Make the message ``message_id`` in ``channel_id`` the game's board, here and in the store (unless the
        store already has it). A failure to record it is logged: the board is shown anyway."""
        spot = Spot(channel_id, message_id)
        if self._spots.get(view.id) == spot:
            return
        self._spots[view.id] = spot
        stored = view.game.board_message
        if message_id is None or (stored == MessageRef.of(channel_id, message_id)):
            return
        try:
            await self._service.set_board_message(view.id, channel_id, message_id)
        except Exception as exc:
            log.warning("could not record the board of game %s: %s", view.id, exc)

    def spot(self, game: GameState) -> Spot | None:
        """The game's board message as known here, else as recorded with the game."""
        spot = self._spots.get(game.id)
        if spot is None and game.board_message is not None:
            spot = Spot(int(game.board_message.channel_id), int(game.board_message.message_id))
        return spot

    def lock(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        return self._locks.hold(game_id)

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
        """The channel (or thread) where the game is played."""
        spot = self.spot(game)
        if spot is not None:
            return spot.channel_id
        parent = self._client.get_channel(int(game.channel_id))
        for thread in getattr(parent, "threads", []):
            if game_id_of_thread(thread) == game.id:
                return int(thread.id)
        return int(game.channel_id)

    def messageable(self, channel_id: int) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(channel_id)

    # -- showing a change -------------------------------------------------------------------------------------------

    async def refresh(self, view: GameView) -> None:
        """Show the newest view of the game on its board message (posting one when none is known)."""
        opening = self._opening.get(int(view.game.channel_id))
        if opening is not None and self.spot(view.game) is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(opening.wait(), 5.0)
        async with self.lock(view.id):
            view = self.newest(view)
            spot = self.spot(view.game)
            channel_id = self.home(view.game)
            if spot is not None and spot.message_id is not None:
                message = self.messageable(spot.channel_id).get_partial_message(spot.message_id)
                try:
                    await message.edit(**edit_fields(view))
                    return
                except discord.NotFound:
                    log.info("the board of game %s was deleted: posting a new one", view.id)
                channel_id = spot.channel_id
            sent = await self.messageable(channel_id).send(**board_fields(view))
            await self.place(view, channel_id, sent.id)
