"""Every game in a thread of its own, where the channel allows threads: many games side by side in one channel.

A game started by a slash command (``/checkers play``, ``watch``, ``rematch``) gets a public thread opened from a
short message that answers the command in the channel and links to the thread; an accepted challenge gets one opened
from the challenge's message (:mod:`bot.games._handlers`). The thread is opened only once the service has checked the
request (it is the service's :data:`~bot.service._pipeline.Room`), so a refused request leaves nothing behind, and the
game is filed under the thread from its first write. Where threads are not allowed (inside a thread, in a channel whose
permissions forbid them, with ``GAME_THREADS`` off) the game is played in the channel, which holds one at a time.
A tournament's game gets a thread of its own in the tournament's channel, opened by the service when it opens the game
(:class:`TournamentRooms`), named after its players, the tournament and the round.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Final, Literal

import discord

from bot.games import _messages as say
from bot.games._dispatch import as_channel, as_guild
from bot.games._keeper import BoardKeeper
from bot.games._locale import channel_language
from bot.games._respond import send
from bot.service import GameService, GameState, ServiceError, TournamentRecord

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]

ARCHIVE_AFTER: Final[Literal[10080]] = 10080
"""Minutes of quiet before Discord hides a game's thread: a week, the longest time a move may take."""


def thread_name(first: str, second: str) -> str:
    """The name of a game's thread (the game is filed under the thread's id, not its name)."""
    return f"{first[:45]} vs {second[:45]}"[:100]


def distinct_name(channel: discord.TextChannel, name: str) -> str:
    """``name``, numbered when an open thread of ``channel`` has it already (``alice vs AI (easy) · 2``), so that two
    games of the same players in one channel are told apart in the thread list."""
    taken = {thread.name for thread in channel.threads}
    number = 1
    numbered = name
    while numbered in taken:
        number += 1
        numbered = f"{name[: 100 - len(f' · {number}')]} · {number}"
    return numbered


def threads_allowed(interaction: Interaction, enabled: bool) -> bool:
    """True when a game started by ``interaction`` may get a thread: threads are on (``GAME_THREADS``), the channel
    is a text channel (not a thread: threads do not nest) of a server the bot is a member of (the server install
    authorised the interaction), and the bot may open threads and write in them there."""
    if not enabled or not interaction.is_guild_integration():
        return False
    if not isinstance(interaction.channel, discord.TextChannel):
        return False
    allowed = interaction.app_permissions
    return allowed.create_public_threads and allowed.send_messages_in_threads


async def close_thread(thread: discord.Thread, service: GameService) -> None:
    """Archive and lock a thread whose game was not started after all, unless a game is played in it now: someone
    who ran a command in the new thread before its game was stored started one there (and took the thread). The
    service closes the room in the same atomic write that files games, so no game is started there once it closed."""
    with contextlib.suppress(discord.HTTPException, ServiceError):
        if await service.close_room(as_guild(thread.guild.id), as_channel(thread.id)):
            await thread.edit(archived=True, locked=True)


class CommandThread:
    """The room of a game started by a slash command: called by the service once the request is checked, it answers
    the command with a short message in the channel and opens a public thread from it, where the game is filed
    (None if Discord refuses the thread: the game is then played in the channel). :meth:`abandon` tidies up when the
    game is refused after all; :meth:`announce` makes the message link to the game's thread."""

    def __init__(self, interaction: Interaction, name: str, boards: BoardKeeper, service: GameService) -> None:
        self._interaction = interaction
        self._boards = boards
        self._service = service
        self.name = name
        """The thread's name (see :func:`thread_name`)."""
        self._stack = contextlib.AsyncExitStack()
        self.thread: discord.Thread | None = None
        """The game's thread, once opened."""

    async def __aenter__(self) -> CommandThread:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def __call__(self) -> int | None:
        interaction = self._interaction
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)  # see threads_allowed
        self.name = distinct_name(channel, self.name)
        message_id = await send(interaction, content=channel_language(interaction).say(say.opening_thread(self.name)))
        try:
            if message_id is None:
                raise discord.ClientException("Discord did not say which message answered the command")
            message = channel.get_partial_message(message_id)
            self.thread = await message.create_thread(name=self.name, auto_archive_duration=ARCHIVE_AFTER)
        except (discord.HTTPException, discord.ClientException) as exc:
            log.warning("could not open a thread for a game in %s, playing in the channel: %s", channel.id, exc)
            await self._delete_message()
            return None
        # an AI's first move arriving before the board is posted waits for it (instead of posting a second board)
        await self._stack.enter_async_context(self._boards.opening(self.thread.id))
        return self.thread.id

    async def announce(self, text: str) -> None:
        """Show ``text`` (which links to the thread) in the message the thread was opened from."""
        await self._interaction.edit_original_response(content=text)

    async def abandon(self) -> None:
        """The game was refused after its thread was opened: close the thread and delete the message."""
        if self.thread is not None:
            await close_thread(self.thread, self._service)
            await self._delete_message()
            self.thread = None

    async def _delete_message(self) -> None:
        with contextlib.suppress(discord.HTTPException):
            await self._interaction.delete_original_response()


def tournament_thread_name(record: TournamentRecord, game: GameState) -> str:
    """``Ann vs Bob · Autumn Swiss R1``: the players, then as much of the tournament's name as fits, and the round."""
    players = thread_name(game.black.name, game.white.name)
    round_ = f" R{record.round}"
    room = 100 - len(players) - len(" · ") - len(round_)
    return f"{players} · {record.name[: max(room, 0)]}{round_}"[:100]


class TournamentRooms:
    """The service's :data:`~bot.service.RoomMaker`: each game of a tournament in a public thread of its own, opened
    in the tournament's channel before the game is stored (the game is filed there). None (the game is played in the
    tournament's channel) where threads are off or Discord refuses one. A game that is stored already (opened by a
    process that stopped before recording it) keeps its room: no second thread."""

    def __init__(self, client: discord.Client, service: GameService, *, enabled: bool) -> None:
        self._client = client
        self._service = service
        self._enabled = enabled

    async def __call__(self, record: TournamentRecord, game: GameState) -> int | None:
        if not self._enabled:
            return None
        with contextlib.suppress(ServiceError):
            return int((await self._service.state(game.id)).game.channel_id)
        channel = self._client.get_channel(int(record.channel_id))
        try:
            if channel is None:
                channel = await self._client.fetch_channel(int(record.channel_id))
            if not isinstance(channel, discord.TextChannel):
                return None
            name = distinct_name(channel, tournament_thread_name(record, game))
            thread = await channel.create_thread(
                name=name, auto_archive_duration=ARCHIVE_AFTER, type=discord.ChannelType.public_thread
            )
        except discord.HTTPException as exc:
            log.warning("could not open a thread for game %s of tournament %s: %s", game.id, record.id, exc)
            return None
        return thread.id
