"""A tournament's news in its channel: the tournaments' side of the event sink, and its announcement kept current.

The service publishes :class:`~bot.service.RoundStarted` once a round's games are open (each in its thread, with its
board: the games' own results reach :class:`~bot.games._announce.Announcer`) and
:class:`~bot.service.TournamentFinished` at the end; :meth:`TournamentNews.publish` posts the round's pairings,
pinging the people who play, and the final standings with the podium (or that it was cancelled). The announcement
(recorded with the tournament) is edited into the tournament as it stands after each change, one edit at a time per
tournament, each showing the record read under that lock, so the last edit shows the newest.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import discord

from bot.games._locale import guild_language
from bot.games._messages import MENTIONS
from bot.games._respond import MessageFields
from bot.games._tournament_render import (
    announcement,
    cancelled,
    contents,
    pairing_lines,
    podium,
    podium_pings,
    standings_embeds,
)
from bot.i18n import Language
from bot.locks import KeyedLocks
from bot.service import (
    Event,
    GameId,
    GameService,
    GameState,
    GameView,
    RoundStarted,
    ServiceError,
    TournamentFinished,
    TournamentId,
    TournamentRecord,
    tournament_standings,
)

log = logging.getLogger(__name__)
Put = Callable[[MessageFields], Awaitable[object]]
"""Puts the announcement somewhere (a click's own message, through its interaction)."""


class TournamentLinks(Protocol):
    """Links to the tournaments' public pages (None where the pages are not served)."""

    def tournament(self, tournament_id: TournamentId) -> str | None: ...


class TournamentNews:
    """An :class:`~bot.service.EventSink` for the tournaments' events, and the keeper of their announcements."""

    def __init__(self, client: discord.Client, service: GameService, links: TournamentLinks) -> None:
        self._client = client
        self._service = service
        self._links = links
        self._locks = KeyedLocks()

    def language(self, record: TournamentRecord) -> Language:
        """What is posted for everyone in the tournament's channel is in the server's language."""
        return guild_language(self._client, record.guild_id)

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        for event in events:
            try:
                if isinstance(event, RoundStarted):
                    await self._round_started(event)
                elif isinstance(event, TournamentFinished):
                    await self._finished(event)
            except Exception:
                log.exception("could not show the news of tournament %s", getattr(event, "tournament_id", "-"))

    async def show(self, tournament_id: TournamentId, put: Put | None = None) -> None:
        """Show the tournament as it stands on its announcement: through ``put`` when given (a click answers on the
        message it was made on), else by editing the recorded message (nothing if none is recorded or Discord refuses
        the edit: the announcement is a courtesy, the commands say the same)."""
        async with self._locks.hold(tournament_id):
            record = await self._service.tournaments.get(tournament_id)
            fields = announcement(record, self.language(record), self._links.tournament(record.id))
            if put is not None:
                await put(fields)
                return
            if record.message is None:
                return
            channel = self._client.get_partial_messageable(int(record.message.channel_id))
            try:
                await channel.get_partial_message(int(record.message.message_id)).edit(**fields)
            except discord.HTTPException as exc:
                log.info("could not edit the announcement of tournament %s: %s", tournament_id, exc)

    async def games(self, record: TournamentRecord, number: int) -> dict[GameId, GameState]:
        """The games of round ``number`` by id (those that can be read)."""
        found: dict[GameId, GameState] = {}
        for played in record.games_of_round(number):
            with contextlib.suppress(ServiceError):
                found[played.game_id] = (await self._service.state(played.game_id)).game
        return found

    async def _round_started(self, event: RoundStarted) -> None:
        record = await self._service.tournaments.get(event.tournament_id)
        lines = pairing_lines(record, event.round, await self.games(record, event.round), self.language(record))
        channel = self._client.get_partial_messageable(int(event.channel_id))
        for content in contents(lines):
            await channel.send(content, allowed_mentions=MENTIONS)
        await self.show(record.id)

    async def _finished(self, event: TournamentFinished) -> None:
        record = await self._service.tournaments.get(event.tournament_id)
        lang = self.language(record)
        channel = self._client.get_partial_messageable(int(event.channel_id))
        if event.cancelled:
            await channel.send(cancelled(record, lang), allowed_mentions=discord.AllowedMentions.none())
        else:
            rows = tournament_standings(record.model)
            pings = podium_pings(rows)
            *heads, last = contents(podium(record, rows, lang))
            for text in heads:  # a podium of many ties
                await channel.send(text, allowed_mentions=pings)
            first, *more = standings_embeds(record, rows, lang)
            await channel.send(last, embed=first, allowed_mentions=pings)
            for embed in more:
                await channel.send(embed=embed)
        await self.show(record.id)
