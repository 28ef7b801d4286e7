"""After "Delete my data": the bot's own posts that show the person's name are edited to show "Deleted player".

The store forgets the person at once (:meth:`bot.service.GameService.erase_personal_data`); what the bot posted in
Discord stays until edited. For each game that was anonymised, the scrubber draws the board again from the anonymised
game (names and all), takes the name out of the message that announced the result, and renames the game's thread when
its name shows the person. It runs in the background, one edit at a time (Discord's rate limits are waited out by
discord.py), and reports what it edited and what it could not (a message deleted, a thread gone, no permission).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass

import discord

from bot.games._board import BoardMessage
from bot.games._keeper import BoardKeeper
from bot.service import DELETED_NAME, Erasure, GameId, GameService, ServiceError

log = logging.getLogger(__name__)

PACE = 0.2
"""Seconds between two edits, so that a person with many games does not fill the channels' edit buckets at once."""


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

    async def scrub(self, erasure: Erasure, names: Iterable[str]) -> Scrubbed:
        """Edit the posts of ``erasure``'s games that show one of ``names`` (the stored and the Discord names)."""
        names = {n for n in (*names, erasure.name or "") if n}
        done = Scrubbed()
        for game_id in erasure.games:
            try:
                await self._game(game_id, names, done)
            except ServiceError as exc:
                log.warning("could not tidy the posts of game %s after an erasure: %s", game_id, exc)
                done.failed += 1
        return done

    async def _game(self, game_id: GameId, names: set[str], done: Scrubbed) -> None:
        view = await self._service.state(game_id)
        game = view.game
        if game.board_message is not None:  # drawn again from the anonymised game
            board = self._boards.board_of(view)
            await self._edit(int(game.board_message.channel_id), int(game.board_message.message_id), done, board)
        result = await self._service.result_message(game_id)
        if result is not None:
            await self._edit(int(result.channel_id), int(result.message_id), done, names=names)
        await self._rename_thread(int(game.channel_id), names, done)

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

    async def _rename_thread(self, channel_id: int, names: set[str], done: Scrubbed) -> None:
        thread = self._client.get_channel(channel_id)
        try:
            if thread is None:
                thread = await self._client.fetch_channel(channel_id)
            if not isinstance(thread, discord.Thread):
                return
            name = without(thread.name, names)
            if name == thread.name:
                return
            archived, locked = thread.archived, thread.locked
            await thread.edit(name=name[:100], archived=False)  # an archived thread takes no other change
            if archived:
                await thread.edit(archived=True, locked=locked)
            done.threads += 1
        except discord.HTTPException as exc:
            log.info("could not rename thread %s after an erasure: %s", channel_id, exc)
            done.failed += 1
        await asyncio.sleep(PACE)
