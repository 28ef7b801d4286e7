"""Where each game's board message is, and keeping it current.

This is presentation, not game state: the newest :class:`GameView` seen and the message showing it, so an AI move or
a timeout (which arrive through the event sink, outside any interaction) edits the right message, and two updates of
one game never overwrite each other out of order. Each new board message is also recorded with the game
(:meth:`GameService.set_board_message`, which does not change the game's version), so after a restart an update still
edits the board people are looking at; only when none is recorded (or it can no longer be edited) is a fresh board
posted, in the game's channel or thread.

The keeper remembers only the games shown most recently (:data:`REMEMBER`): a forgotten game's board is found again
where it is recorded with the game, and an update of a game nobody has touched for that long is never out of order.

Discord's limits never cost an update. A rate-limited edit (429) is waited out by discord.py, while the game's later
updates queue behind it and then show only the newest view, once; a click that finds its board busy that long is
acknowledged first (see :meth:`BoardKeeper.show`). A board Discord will no longer let the bot edit (deleted, another
author's, or an old message that reached Discord's limit on edits of messages older than an hour, error 30046) is
replaced: a fresh board is posted where the game is shown, recorded with the game, and the old one deleted.

A game played where the bot is not a member is never posted to or edited through its channel: its board is edited
through the newest good interaction of the game (:attr:`BoardKeeper.tokens`, :mod:`bot.games._anywhere`), or waits
for the next click.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.games._anywhere import Tokens
from bot.games._board import BoardMessage, board_message, bottom_side
from bot.games._locale import guild_language
from bot.games._respond import keywords
from bot.games._theme import BoardThemes
from bot.i18n import Language
from bot.locks import KeyedLocks
from bot.service import GameService, GameState, GameView, MessageRef, UserId

log = logging.getLogger(__name__)
REMEMBER = 1000
"""How many games the keeper remembers (the least recently shown are forgotten first)."""
OPENING_WAIT = 5.0
"""Seconds an update waits for the command that is opening its game to post the board."""

Where = tuple[int, int | None]
"""A message as (channel id, message id); the message id is None when Discord did not say it."""
Put = Callable[[BoardMessage], Awaitable[Where | None]]
"""Sends or edits a message into a board and says where it is (None: nowhere to remember)."""
UNEDITABLE = frozenset({10008, 30046, 50005, 50021})
"""Discord's codes for an edit that will never succeed on that message: unknown message, too many edits of a message
older than an hour ("try again later" means in up to an hour, too late for a board), another author's message, a
system message. Other refusals (a bad body, missing permissions, an archived thread) would refuse a new board too."""


@dataclass
class Spot:
    channel_id: int
    message_id: int | None = None


@dataclass
class _Shown:
    """What the keeper knows of one game: its newest view, and its board message once placed."""

    view: GameView
    spot: Spot | None = None
    on_board: str | None = None
    """What the keeper last put on the board message at ``spot`` (see :func:`_fingerprint`), when it knows."""


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
        self.tokens = Tokens(service.now)
        """The interactions that show the games played where the bot is not a member (:mod:`bot.games._anywhere`)."""

    @property
    def client(self) -> discord.Client:
        return self._client

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
        shown.spot, shown.on_board = spot, None
        if message_id is None:
            return
        where = MessageRef.of(channel_id, message_id)
        if view.game.board_message == where:
            return
        try:
            await self._service.set_board_message(view.id, where.channel_id, where.message_id)
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

    def board_of(self, view: GameView) -> BoardMessage:
        """The board of ``view`` as the game's board message shows it (the current theme, the server's language)."""
        return board_message(view, None, self._themes.current, self.language(view.game.guild_id))

    def private_board(self, view: GameView, viewer: UserId, lang: Language) -> BoardMessage:
        """The board of ``view`` as ``viewer`` sees it (their side at the bottom), to show them alone."""
        return board_message(view, None, self._themes.current, lang, bottom=bottom_side(view.game, viewer))

    async def show(
        self,
        view: GameView,
        put: Put,
        selected: int | None = None,
        *,
        waiting: Callable[[], Awaitable[None]] | None = None,
        patience: float = 0.0,
    ) -> None:
        """Build the board of the newest view of the game, hand it to ``put`` (which sends a message or edits one),
        and make that message the game's board; one game's boards are shown one at a time, newest last.

        The game's board may be busy for seconds (an earlier update waiting out Discord's rate limit on the channel's
        edits): then ``waiting`` is awaited at once (a click acknowledges its interaction, so the person sees it taken
        without waiting behind another update), and the board is shown once its turn comes. A board that is free but
        slow to show is given ``patience`` seconds before ``waiting``."""
        if waiting is None:
            await self._show(view, put, selected)
            return
        busy = self._locks.busy(view.id)
        work = asyncio.ensure_future(self._show(view, put, selected))
        try:
            done, _ = await asyncio.wait({work}, timeout=0.0 if busy else patience)
            if not done:
                await waiting()
            await work
        finally:
            work.cancel()

    async def _show(self, view: GameView, put: Put, selected: int | None) -> None:
        async with self._locks.hold(view.id):
            view = self.newest(view)
            board = board_message(view, selected, self._themes.current, self.language(view.game.guild_id))
            where = await put(board)
            if where is not None:
                await self.place(view, *where)
                self._shown[view.id].on_board = _fingerprint(board)

    async def post(self, view: GameView, target: discord.abc.Messageable) -> None:
        """Post a new board of the game into ``target`` (its thread, or its channel) and make it the game's board."""

        async def into(board: BoardMessage) -> Where:
            sent = await target.send(**keywords(board.fields()))
            return sent.channel.id, sent.id

        await self.show(view, into)

    async def refresh(self, view: GameView) -> None:
        """Show the newest view of the game on its board message (posting one when none is known)."""
        opening = self._opening.get(int(view.game.channel_id))
        if opening is not None and self.spot(view.game) is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(opening.wait(), OPENING_WAIT)
        await self.show(view, self._onto_board)

    async def _onto_board(self, board: BoardMessage) -> Where | None:
        """Edit the game's board message into ``board`` (unless it shows that already: updates that queued behind a
        slow edit show the newest view, and the later ones find it shown), or post it when the game has none, or when
        its board can no longer be edited (that one is then deleted: the new one replaces it)."""
        game = board.game_view.game
        if game.place.through_interactions:  # no channel route there: through an interaction's token, or not yet
            return await self.tokens.onto_board(board)
        spot, shown = self.spot(game), self._shown.get(game.id)
        old: discord.PartialMessage | None = None
        if spot is not None and spot.message_id is not None:
            if shown is not None and shown.spot == spot and shown.on_board == _fingerprint(board):
                return spot.channel_id, spot.message_id
            message = self.messageable(spot.channel_id).get_partial_message(spot.message_id)
            try:
                await message.edit(**board.fields())
                return spot.channel_id, spot.message_id
            except (discord.HTTPException, discord.RateLimited) as exc:
                if not _uneditable(exc):
                    raise
                log.info("the board of game %s can no longer be edited (%s): posting a new one", game.id, exc)
                old = None if isinstance(exc, discord.NotFound) else message
        channel_id = self.home(game)
        sent = await self.messageable(channel_id).send(**keywords(board.fields()))
        if old is not None:
            with contextlib.suppress(discord.HTTPException):  # if it stays, it is an old copy that clicks still fix
                await old.delete()
        return channel_id, sent.id


def _fingerprint(board: BoardMessage) -> str:
    """The message ``board`` makes, as text: two boards that make the same message have the same fingerprint."""
    controls = board.components.to_components() if board.components is not None else []
    return json.dumps([board.content, board.embed.to_dict(), controls], sort_keys=True, default=str)


def _uneditable(error: discord.HTTPException | discord.RateLimited) -> bool:
    """True when an edit of a message failed for good (see :data:`UNEDITABLE`). A rate limit that discord.py will not
    wait out (longer than the client's ``max_ratelimit_timeout``) counts too: the board would stay stale meanwhile."""
    if isinstance(error, discord.RateLimited):
        return True
    return isinstance(error, discord.NotFound) or error.code in UNEDITABLE
