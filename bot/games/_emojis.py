"""The board's tiles as the application's own emojis, put in place when the bot starts.

An application may own up to 2,000 emojis, usable in every server without any permission there. At start the bot
lists them (one request) and uploads the tiles of :mod:`bot.games._tiles` that are missing (all of them on the first
start of a new tile version, none after that); once every tile is there, boards are drawn with them. If they cannot
be uploaded (Discord refuses: the limit is reached, the token lacks the right, Discord is unreachable), boards stay
in the Unicode theme and the reason is logged once.

Tiles of older versions are left in place: a bot still running the old version (during a rolling upgrade) keeps
drawing with them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

import aiohttp
import discord

from bot.games import _tiles
from bot.games._theme import BoardThemes

log = logging.getLogger(__name__)

UPLOADS_AT_ONCE: Final = 4
"""Tiles uploaded at a time (discord.py waits out the route's rate limit for each request)."""
UPLOAD_WAIT: Final = 15.0
"""Seconds the bot's start waits for the tiles before going on (the upload goes on in the background: boards shown
meanwhile use the Unicode theme)."""


async def install_tiles(client: discord.Client, themes: BoardThemes) -> bool:
    """Upload the missing tiles and switch ``themes`` to them; False (and the Unicode theme kept) if they cannot be."""
    try:
        emojis = await _upload_missing(client)
    except (discord.HTTPException, discord.MissingApplicationID, aiohttp.ClientError, OSError) as exc:
        try:  # another process of this bot may have uploaded them meanwhile (a second shard starting at once)
            emojis = await _existing(client)
        except (discord.HTTPException, discord.MissingApplicationID, aiohttp.ClientError, OSError):
            emojis = {}
        if not all(tile.name in emojis for tile in _tiles.tiles()):
            log.warning("boards use Unicode emoji: the board's tiles could not be uploaded as emojis (%s)", _why(exc))
            return False
    themes.use_tiles(emojis)
    log.info("boards use the application's emojis (tile set %d)", _tiles.TILESET_VERSION)
    return True


async def _existing(client: discord.Client) -> dict[str, int]:
    return {emoji.name: emoji.id for emoji in await client.fetch_application_emojis()}


async def _upload_missing(client: discord.Client) -> dict[str, int]:
    emojis = await _existing(client)
    missing = [tile for tile in _tiles.tiles() if tile.name not in emojis]
    if missing:
        log.info("uploading %d board tiles as application emojis", len(missing))
    images = await asyncio.to_thread(lambda: [_tiles.png(tile) for tile in missing])  # kept on disk once drawn
    uploads = asyncio.Semaphore(UPLOADS_AT_ONCE)

    async def upload(tile: _tiles.Tile, image: bytes) -> None:
        async with uploads:
            emojis[tile.name] = (await client.create_application_emoji(name=tile.name, image=image)).id

    try:
        async with asyncio.TaskGroup() as group:  # the first refusal calls the others off
            for tile, image in zip(missing, images, strict=True):
                group.create_task(upload(tile, image))
    except ExceptionGroup as failed:  # the first refusal is the one to report
        raise failed.exceptions[0] from None
    return emojis


def report_failure(task: asyncio.Task[bool]) -> None:
    """A done callback for :func:`install_tiles`'s task: log what it did not expect (boards stay in Unicode)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("putting the board's tiles in place failed", exc_info=task.exception())


def _why(exc: BaseException) -> str:
    if isinstance(exc, discord.HTTPException):
        return f"{exc.status} {exc.text}".strip()
    return str(exc) or type(exc).__name__
