"""The game service's event sink on Discord, and the messages beside a board.

Events that happen outside an interaction (AI moves, timeouts, expired challenges) arrive in :meth:`Announcer.publish`;
an interaction that changed a game somewhere other than its own message hands its result to :meth:`Announcer.after`.
Both refresh the board and add what people must hear: the result with its rating changes, or a ping for the person
to act next (the previous ping of the game is deleted, so a channel holds one).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Protocol

import discord

from bot.bounded import BoundedDict
from bot.games import _messages as say
from bot.games._components import result_controls
from bot.games._keeper import BoardKeeper
from bot.games._messages import MENTIONS
from bot.games._render import closed_challenge_content, result_message
from bot.i18n import _
from bot.service import (
    ChallengeExpired,
    ChallengeId,
    ChannelId,
    DrawDeclined,
    DrawOffered,
    DrawWithdrawn,
    Event,
    GameId,
    GameKind,
    GameOver,
    GameService,
    GameView,
    GuildId,
    MessageId,
    MovePlayed,
    Passed,
    TakebackDeclined,
    TakebackDone,
    TakebackRequested,
    TakebackWithdrawn,
)

log = logging.getLogger(__name__)
_PING_EVENTS = (MovePlayed, DrawOffered, TakebackRequested, Passed)
_ANSWERS = (DrawDeclined, DrawWithdrawn, TakebackDeclined, TakebackWithdrawn, TakebackDone)
"""The ends of a draw offer or takeback request, said in the game's channel (to the one who asked, by a mention)."""
_NO_PINGS = discord.AllowedMentions.none()
PINGS_REMEMBERED = 1000
"""Games whose last ping message is remembered (to delete it at the next); a game that ended in another process is
never forgotten otherwise. A forgotten ping merely stays in the channel."""


class PublicLinks(Protocol):
    """Links to the public pages, for the bot's messages (None where the pages are not served)."""

    def game(self, game_id: GameId) -> str | None: ...

    def leaderboard(self, guild_id: GuildId | None, variant: str) -> str | None: ...


class Announcer:
    """An :class:`~bot.service.EventSink` that shows the service's events in Discord."""

    def __init__(self, service: GameService, boards: BoardKeeper, links: PublicLinks) -> None:
        self._service = service
        self._boards = boards
        self._links = links
        self._pings: BoundedDict[str, tuple[int, int]] = BoundedDict(PINGS_REMEMBERED)
        """The ping message of each game being played, as (channel id, message id)."""

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        """Show events that happened outside an interaction: AI moves, timeouts, expired challenges."""
        try:
            if game is not None:
                await self.after(game, events)
                return
            for event in events:
                if isinstance(event, ChallengeExpired):
                    await self._show_expired(event.challenge_id, event.channel_id)
                elif event.game_id:
                    view = await self._service.state(event.game_id)
                    text = say.short(event.text, lang=self._boards.language(view.game.guild_id))
                    await self._boards.messageable(self._boards.home(view.game)).send(text)
        except Exception:
            log.exception("could not show %d events of game %s", len(events), game.id if game else "-")

    async def after(self, view: GameView, events: Sequence[Event]) -> None:
        """Show a change on the game's board message, and announce it."""
        await self._boards.refresh(view)
        await self.announce(view, events)

    async def announce(self, view: GameView, events: Sequence[Event]) -> None:
        """Messages beside the board: the result with rating changes, and a ping for the person to act next."""
        game = view.game
        channel = self._boards.messageable(self._boards.home(game))
        lang = self._boards.language(game.guild_id)
        if any(isinstance(e, GameOver) for e in events):
            await self._clear_ping(game.id)
            text = result_message(view, events, self._links.game(game.id), lang)
            sent = await channel.send(text, view=result_controls(game.id, lang), allowed_mentions=_NO_PINGS)
            await self._service.set_result_message(game.id, ChannelId(str(sent.channel.id)), MessageId(str(sent.id)))
            return
        if game.kind is not GameKind.HUMAN or not game.is_active:
            return
        answers = [e for e in events if isinstance(e, _ANSWERS) and not (isinstance(e, TakebackDone) and e.to is None)]
        if answers:  # an offer or request is answered (or withdrawn): its ping goes, the answer stays
            await self._clear_ping(game.id)
            to = getattr(answers[-1], "to", None)
            event = answers[-1].text
            text = (
                lang._("{mention}: {event}.", mention=f"<@{to}>", event=event)
                if to
                else lang._("{event}.", event=event)
            )
            await channel.send(text, allowed_mentions=MENTIONS)
            return
        pinged = [e for e in events if isinstance(e, _PING_EVENTS)]
        if not pinged:
            return
        target = view.to_move if isinstance(pinged[-1], MovePlayed) else None
        if target is None:
            actor = game.draw_offer or game.takeback_offer
            target = game.white if actor == "black" else game.black
        await self._clear_ping(game.id)
        text = lang._("{mention}: {event}.", mention=f"<@{target.id}>", event=pinged[-1].text)
        sent = await channel.send(text, allowed_mentions=MENTIONS)
        self._pings[game.id] = (channel.id, sent.id)

    async def _clear_ping(self, game_id: GameId) -> None:
        previous = self._pings.pop(game_id, None)
        if previous is not None:
            with contextlib.suppress(discord.HTTPException):
                await self._boards.messageable(previous[0]).get_partial_message(previous[1]).delete()

    async def _show_expired(self, challenge_id: ChallengeId, channel_id: ChannelId | None) -> None:
        """Strike out an expired challenge's message (recorded with the challenge), or say it in its channel."""
        challenge = await self._service.get_challenge(challenge_id)
        lang = self._boards.language(challenge.guild_id)
        text = closed_challenge_content(challenge, _("⌛ The challenge expired."), lang)
        if challenge.message is not None:
            where = self._boards.messageable(int(challenge.message.channel_id))
            with contextlib.suppress(discord.NotFound):
                await where.get_partial_message(int(challenge.message.message_id)).edit(content=text, view=None)
                return
        channel = self._boards.messageable(int(channel_id or challenge.channel_id))
        await channel.send(text, allowed_mentions=_NO_PINGS)
