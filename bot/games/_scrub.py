"""After "Delete my data": the bot's own posts that show the person's name are edited to show "Deleted player".

The store forgets the person at once (:meth:`bot.service.GameService.erase_personal_data`); what the bot posted in
Discord stays until edited. For each game that was anonymised, the scrubber draws the board again from the anonymised
game (names and all), takes the name out of the message that announced the result and out of every other message of
the bot in the game's thread (pings, answers, results posted before results were recorded), and renames the game's
thread when its name shows the person. It runs in the background, one edit at a time (Discord's rate limits are waited
out by discord.py), and reports what it edited and what it could not (a message deleted, a thread gone, no permission).

The games still to do are kept in the store (:class:`~bot.service.Tidying`) and crossed off one by one, under a lease
per person: a bot that stops midway resumes at its next start (:meth:`Scrubber.resume`), or another process does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

import discord

from bot.games._board import BoardMessage
from bot.games._keeper import BoardKeeper
from bot.service import DELETED_NAME, GameId, GameService, ServiceError, Tidying

log = logging.getLogger(__name__)

PACE = 0.2
"""Seconds between two edits, so that a person with many games does not fill the channels' edit buckets at once."""
LEASE = 120.0
"""Seconds a process holds a person's edits between two games (renewed at each game); a stopped process's edits are
taken over by the next start of any process after that."""
HISTORY = 200
"""Messages of a game's thread read to find the bot's posts that name the person."""


@dataclass
class Scrubbed:
    """What a scrub edited, and what it could not."""

    messages: int = 0
    threads: int = 0
    failed: int = 0


def without(text: str, names: Iterable[str]) -> str:
    """``text`` with each of ``names`` (whole words) replaced by :data:`DELETED_NAME`."""
    for name in sorted({n for n in names if n and n != DELETED_NAME}, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", DELETED_NAME, text)
    return text


class Scrubber:
    """Edits the person's name out of the bot's posts of the games an erasure anonymised (see the module)."""

    def __init__(self, service: GameService, boards: BoardKeeper) -> None:
        self._client = boards.client
        self._service = service
        self._boards = boards
        self._holder = secrets.token_hex(8)
        """This process's name on the leases."""

    async def scrub(self, tidying: Tidying) -> Scrubbed | None:
        """Edit the posts of ``tidying``'s games that show one of its names, crossing each game off in the store;
        None when another process holds this person's edits."""
        tidyings = self._service.tidyings
        if not await tidyings.claim(tidying.user_id, self._holder, LEASE):
            return None
        done = Scrubbed()
        try:
            for game_id in tidying.games:
                await tidyings.claim(tidying.user_id, self._holder, LEASE)
                try:
                    await self._game(game_id, set(tidying.names), done)
                except ServiceError as exc:
                    log.warning("could not tidy the posts of game %s after an erasure: %s", game_id, exc)
                    done.failed += 1
                tidying = await tidyings.done_with(tidying, game_id)
        finally:
            with contextlib.suppress(ServiceError):
                await tidyings.release(tidying.user_id, self._holder)
        return done

    async def resume(self) -> int:
        """Go on with the edits a stopped process left (each person's, unless another process holds them); returns
        how many persons' edits were finished here."""
        finished = 0
        for tidying in await self._service.tidyings.pending():
            done = await self.scrub(tidying)
            if done is not None:
                log.info("finished the edits after the erasure of user %s: %s", tidying.user_id, done)
                finished += 1
        return finished

    async def _game(self, game_id: GameId, names: set[str], done: Scrubbed) -> None:
        view = await self._service.state(game_id)
        game = view.game
        edited: set[int] = set()
        if game.board_message is not None:  # drawn again from the anonymised game
            board = self._boards.board_of(view)
            edited.add(int(game.board_message.message_id))
            await self._edit(int(game.board_message.channel_id), int(game.board_message.message_id), done, board)
        result = await self._service.result_message(game_id)
        if result is not None:
            edited.add(int(result.message_id))
            await self._edit(int(result.channel_id), int(result.message_id), done, names=names)
        thread = await self._thread(int(game.channel_id), done)
        if thread is not None:
            await self._edit_history(thread, names, edited, done)
            await self._rename_thread(thread, names, done)

    async def _thread(self, channel_id: int, done: Scrubbed) -> discord.Thread | None:
        """The game's thread (None when the game was played in a channel, or its thread is gone)."""
        channel = self._client.get_channel(channel_id)
        try:
            if channel is None:
                channel = await self._client.fetch_channel(channel_id)
        except discord.HTTPException as exc:
            log.info("could not read thread %s after an erasure: %s", channel_id, exc)
            done.failed += 1
            return None
        return channel if isinstance(channel, discord.Thread) else None

    async def _edit_history(self, thread: discord.Thread, names: set[str], edited: set[int], done: Scrubbed) -> None:
        """Take the names out of the bot's other posts in the game's thread (pings, answers, older results)."""
        me = self._client.user
        try:
            history = [m async for m in thread.history(limit=HISTORY)]
        except discord.HTTPException as exc:
            log.info("could not read thread %s after an erasure: %s", thread.id, exc)
            done.failed += 1
            return
        for message in history:
            if me is None or message.author.id != me.id or message.id in edited:
                continue
            text = without(message.content, names)
            if text == message.content:
                continue
            try:
                await message.edit(content=text)
                done.messages += 1
            except discord.HTTPException as exc:
                log.info("could not edit message %s after an erasure: %s", message.id, exc)
                done.failed += 1
            await asyncio.sleep(PACE)

    async def _edit(
        self,
        channel_id: int,
        message_id: int,
        done: Scrubbed,
        board: BoardMessage | None = None,
        names: set[str] | None = None,
    ) -> None:
        channel = self._client.get_partial_messageable(channel_id)
        try:
            if board is not None:
                fields = board.fields()
                fields.pop("allowed_mentions", None)
                await channel.get_partial_message(message_id).edit(**fields)
            else:
                message = await channel.fetch_message(message_id)
                text = without(message.content, names or ())
                if text == message.content:
                    return
                await message.edit(content=text)
            done.messages += 1
        except discord.HTTPException as exc:
            log.info("could not edit message %s after an erasure: %s", message_id, exc)
            done.failed += 1
        await asyncio.sleep(PACE)

    async def _rename_thread(self, thread: discord.Thread, names: set[str], done: Scrubbed) -> None:
        try:
            name = without(thread.name, names)
            if name == thread.name:
                return
            archived, locked = thread.archived, thread.locked
            await thread.edit(name=name[:100], archived=False)  # an archived thread takes no other change
            if archived:
                await thread.edit(archived=True, locked=locked)
            done.threads += 1
        except discord.HTTPException as exc:
            log.info("could not rename thread %s after an erasure: %s", thread.id, exc)
            done.failed += 1
        await asyncio.sleep(PACE)
