"""Puzzles on Discord: ``/checkers puzzle``, a typed ``/checkers move`` in a puzzle, and the clicks on a puzzle.

A puzzle is private: its board is an ephemeral answer, and every click edits that message (the interaction's own
response), so nothing is posted in the channel and it works wherever the command does. The commands are the
``/checkers`` cog's (declared there, so they pass its rate limits and its reporter); the work is here, the words in
:mod:`bot.games._puzzle_view`. The person's puzzle lives in the service (``GameService.puzzles``), never here.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands

from bot.games._announce import PublicLinks
from bot.games._anywhere import server_only
from bot.games._daily_view import daily_post
from bot.games._dispatch import as_channel, caller_id, guild_of, request_of
from bot.games._finder import GameFinder
from bot.games._locale import guild_language, user_language
from bot.games._messages import Refusal
from bot.games._puzzle_components import attach_puzzles
from bot.games._puzzle_view import legal_from, puzzle_message
from bot.games._respond import MessageFields, send, update, within_deadline
from bot.games._theme import BoardThemes
from bot.i18n import _
from bot.service import (
    DailyPuzzlePosted,
    Event,
    GameService,
    GameView,
    GuildId,
    PositionChangedError,
    PuzzleSession,
    ServiceError,
    UserId,
)

Interaction = discord.Interaction[Any]
PUZZLE_SOURCES = [
    app_commands.Choice(name=_("The puzzle set"), value="set"),
    app_commands.Choice(name=_("My own mistakes"), value="mine"),
]
SOMEONE_ELSES = _("this puzzle is someone else's: ask for your own with /checkers puzzle")
MANAGERS_ONLY = _("only a member who can manage the server sets its daily puzzle, in one of its channels")
log = logging.getLogger(__name__)
STALE = _("this puzzle board is out of date: ask for your puzzle again with /checkers puzzle")
MOVED_ON = _("Your puzzle moved on before this click arrived: here it is as it stands.")


def daily_nonce(guild_id: GuildId, day: str) -> str:
    """The nonce of a server's daily post (Discord takes up to 25 characters): the same for every try of one day."""
    return f"kd{day}{hashlib.blake2b(guild_id.encode(), digest_size=7).hexdigest()}"


class PuzzleHandlers:
    """The puzzle command's work and its clicks (attached to the bot as its :class:`PuzzleClicks`)."""

    def __init__(
        self, bot: discord.Client, service: GameService, themes: BoardThemes, finder: GameFinder, links: PublicLinks
    ) -> None:
        self._bot = bot
        self._links = links
        self._service = service
        self._finder = finder
        self._themes = themes
        attach_puzzles(bot, self)

    async def command(self, interaction: Interaction, source: str) -> None:
        """``/checkers puzzle``: the person's puzzle, new or going, answered privately."""
        uid = caller_id(interaction)
        session = await within_deadline(
            interaction, self._service.puzzles.start(uid, source, request=request_of(interaction)), ephemeral=True
        )
        await send(interaction, ephemeral=True, **await self._message(interaction, session))

    async def typed_move(self, interaction: Interaction, move: str) -> bool:
        """``/checkers move`` in the person's puzzle, when they have one going (False when they have none)."""
        uid = caller_id(interaction)
        session = await self._service.puzzles.current(uid)
        if session is None or not session.active:
            return False
        try:
            await self._finder.game_here(interaction, mine=True)
        except (Refusal, ServiceError):
            pass  # no game of theirs here: the move is the puzzle's
        else:
            return False
        work = self._service.puzzles.move(uid, move.strip(), request=request_of(interaction))
        session = await within_deadline(interaction, work, ephemeral=True)
        await send(interaction, ephemeral=True, **await self._message(interaction, session))
        return True

    async def configure(self, interaction: Interaction, channel: discord.TextChannel, hour: int, stop: bool) -> None:
        """``/checkers daily``: post a puzzle a day in ``channel`` at ``hour`` (UTC), or stop (server managers)."""
        server_only(interaction)
        guild = guild_of(interaction)
        if guild is None or not interaction.permissions.manage_guild:
            raise Refusal(MANAGERS_ONLY)
        lang = user_language(interaction)
        if stop:
            await within_deadline(interaction, self._service.daily.stop(guild), ephemeral=True)
            text = lang._("The daily puzzle is stopped.")
        else:
            if channel.guild.id != interaction.guild_id:
                raise Refusal(MANAGERS_ONLY)
            work = self._service.daily.configure(guild, as_channel(channel.id), hour)
            await within_deadline(interaction, work, ephemeral=True)
            text = lang._(
                "A puzzle will be posted in {channel} every day at {hour}:00 UTC.", channel=channel.mention, hour=hour
            )
        await send(interaction, ephemeral=True, content=text)

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        """The event sink's part of the puzzles: post each server's daily puzzle in its channel, then mark it posted.
        A post that fails for a while (Discord's own trouble) stays pending: the sweep posts it again once its lease
        is over, with the same nonce, so a post that was made after all is returned by Discord, not made twice. A
        channel the bot cannot post in is not tried again."""
        for event in events:
            if not isinstance(event, DailyPuzzlePosted):
                continue
            try:
                channel = self._bot.get_channel(int(event.channel_id)) or await self._bot.fetch_channel(
                    int(event.channel_id)
                )
                if isinstance(channel, discord.abc.Messageable):
                    lang = guild_language(self._bot, event.guild_id)
                    content, embed, view = daily_post(event, self._themes.current, lang)
                    await channel.send(
                        content=content,
                        embed=embed,
                        view=view,
                        allowed_mentions=discord.AllowedMentions.none(),
                        nonce=daily_nonce(event.guild_id, event.day),
                    )
            except (discord.Forbidden, discord.NotFound) as exc:
                log.warning("the daily puzzle of server %s cannot be posted: %s", event.guild_id, exc)
            except discord.HTTPException as exc:
                log.warning("the daily puzzle of server %s was not posted (tried again later): %s", event.guild_id, exc)
                continue
            await self._service.daily.posted(event.guild_id, event.day)

    async def move_choices(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """``/checkers move``'s autocomplete in the person's puzzle: its legal moves that start with what they typed,
        in either notation (none when they have no puzzle going)."""
        session = await self._service.puzzles.current(caller_id(interaction))
        if session is None or not session.active:
            return []
        needle = current.strip().lower()
        named = ((m.text(), session.board().algebraic(m)) for m in session.board().legal_moves)
        return [
            app_commands.Choice(name=f"{m} ({a})", value=m)
            for m, a in named
            if m.startswith(needle) or a.startswith(needle)
        ][:25]

    # -- clicks -----------------------------------------------------------------------------------------------------

    async def on_daily(self, interaction: Interaction, guild_id: GuildId, day: str) -> None:
        """The Solve button under a daily puzzle: the puzzle on a board of the clicker's own."""
        work = self._service.puzzles.start_daily(caller_id(interaction), guild_id, day, request=request_of(interaction))
        session = await within_deadline(interaction, work, ephemeral=True)
        await send(interaction, ephemeral=True, **await self._message(interaction, session))

    async def on_puzzle_piece(self, interaction: Interaction, owner: UserId, version: int, square: int) -> None:
        uid = self._owner(interaction, owner)
        session = await self._service.puzzles.current(uid)
        if session is None or not session.active or session.version != version:
            await self._moved_on(interaction, session)
            return
        only = legal_from(session, square)
        if len(only) == 1:  # the piece has one move: choosing it plays it
            await self.on_puzzle_move(interaction, owner, version, only[0])
            return
        await update(interaction, **await self._message(interaction, session, selected=square))

    async def on_puzzle_move(self, interaction: Interaction, owner: UserId, version: int, move: str) -> None:
        uid = self._owner(interaction, owner)
        try:
            session = await self._service.puzzles.move(uid, move, version, request=request_of(interaction))
        except PositionChangedError:
            await self._moved_on(interaction, await self._service.puzzles.current(uid))
            return
        await update(interaction, **await self._message(interaction, session))

    async def on_puzzle_button(self, interaction: Interaction, action: str, owner: UserId, version: int) -> None:
        uid = self._owner(interaction, owner)
        puzzles, request = self._service.puzzles, request_of(interaction)
        votes: tuple[int, int] | None = None
        if action in ("hint", "giveup"):
            try:
                if action == "hint":
                    session = await puzzles.hint(uid, version, request=request)
                else:
                    session = await puzzles.give_up(uid, version, request=request)
            except PositionChangedError:
                await self._moved_on(interaction, await puzzles.current(uid))
                return
        else:
            current = await puzzles.current(uid)
            if current is None or current.version != version or current.active:
                await self._moved_on(interaction, current)
                return
            if action == "retry":
                session = await puzzles.retry(uid, request=request)
            elif action == "next":
                session = await puzzles.start(uid, "mine" if current.source == "mine" else "set", request=request)
            else:
                session = current
                votes = await puzzles.vote(uid, current.puzzle_id, action == "up")
        await update(interaction, **await self._message(interaction, session, votes=votes))

    async def _moved_on(self, interaction: Interaction, current: PuzzleSession | None) -> None:
        """A click on a puzzle board that is no longer the person's latest (a click sent twice, or an older board):
        the clicked board shows the puzzle as it stands (the first click's result), and a private line says why,
        as a game's board does; with no puzzle to show, the click is refused."""
        if current is None:
            raise Refusal(STALE)
        await update(interaction, **await self._message(interaction, current))
        await interaction.followup.send(user_language(interaction).say(MOVED_ON), ephemeral=True)

    # -- helpers ----------------------------------------------------------------------------------------------------

    def _owner(self, interaction: Interaction, owner: UserId) -> UserId:
        uid = caller_id(interaction)
        if uid != owner:
            raise Refusal(SOMEONE_ELSES)
        return uid

    async def _message(
        self,
        interaction: Interaction,
        session: PuzzleSession,
        *,
        selected: int | None = None,
        votes: tuple[int, int] | None = None,
    ) -> MessageFields:
        player = await self._service.puzzles.player(session.user_id)
        theme, lang = self._themes.current, user_language(interaction)
        link = self._links.puzzle(session.puzzle_id) if session.source != "mine" else None
        return puzzle_message(session, player, theme, lang, selected=selected, votes=votes, link=link)
