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
from dataclasses import dataclass, replace
from typing import Protocol

import discord

from bot.bounded import BoundedDict
from bot.games import _messages as say
from bot.games._components import result_controls
from bot.games._endgame import review_text
from bot.games._keeper import BoardKeeper
from bot.games._messages import MENTIONS
from bot.games._render import closed_challenge_content, result_message
from bot.i18n import Language, _
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
    GameStarted,
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

    def puzzle(self, puzzle_id: str) -> str | None: ...


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
                    if view.game.place.through_interactions:
                        await self._boards.tokens.follow_up(view.id, text)
                    else:
                        await self._boards.messageable(self._boards.home(view.game)).send(text)
        except Exception:
            log.exception("could not show %d events of game %s", len(events), game.id if game else "-")

    async def after(self, view: GameView, events: Sequence[Event]) -> None:
        """Show a change on the game's board message, and announce it."""
        await self._boards.refresh(view)
        await self.announce(view, events)

    async def announce(self, view: GameView, events: Sequence[Event]) -> None:
        """Messages beside the board: the result with rating changes, and a ping for the person to act next. Where
        the bot is not a member they are follow-ups of the game's newest interaction (when one is good), never
        channel messages."""
        game = view.game
        lang = self._boards.language(game.guild_id)
        news = game_news(view, events, lang, self._links.game(game.id))
        if news is None:
            return
        review = await self._service.endgame_review(game) if news.result else None
        if review is not None:  # a training game of the endgame trainer: its verdict goes with the result
            news = replace(news, text=f"{news.text}\n{review_text(review, lang)}")
        if game.place.through_interactions:
            controls = result_controls(game.id, lang) if news.result else None
            await self._boards.tokens.follow_up(game.id, news.text, view=controls, ping=news.ping)
            return
        channel = self._boards.messageable(self._boards.home(game))
        await self._clear_ping(game.id)
        if news.result:
            sent = await channel.send(news.text, view=result_controls(game.id, lang), allowed_mentions=_NO_PINGS)
            await self._service.set_result_message(game.id, ChannelId(str(sent.channel.id)), MessageId(str(sent.id)))
            return
        sent = await channel.send(news.text, allowed_mentions=MENTIONS)
        if news.ping:
            self._pings[game.id] = (channel.id, sent.id)

    async def _clear_ping(self, game_id: GameId) -> None:
        previous = self._pings.pop(game_id, None)
        if previous is not None:
            with contextlib.suppress(discord.HTTPException):
                await self._boards.messageable(previous[0]).get_partial_message(previous[1]).delete()

    async def _show_expired(self, challenge_id: ChallengeId, channel_id: ChannelId | None) -> None:
        """Strike out an expired challenge's message (recorded with the challenge), or say it in its channel."""
        challenge = await self._service.get_challenge(challenge_id)
        if challenge.place.through_interactions:  # nothing reaches its channel: its buttons say it when clicked
            return
        lang = self._boards.language(challenge.guild_id)
        text = closed_challenge_content(challenge, _("⌛ The challenge expired."), lang)
        if challenge.message is not None:
            where = self._boards.messageable(int(challenge.message.channel_id))
            with contextlib.suppress(discord.NotFound):
                await where.get_partial_message(int(challenge.message.message_id)).edit(content=text, view=None)
                return
        channel = self._boards.messageable(int(channel_id or challenge.channel_id))
        await channel.send(text, allowed_mentions=_NO_PINGS)


@dataclass(frozen=True)
class News:
    """What is said beside a board after a change: ``text``; the game's ``result``, or a ``ping`` of the person to act
    next (which replaces the game's previous ping), or neither (an answer to an offer, said to the one who made it)."""

    text: str
    result: bool = False
    ping: bool = False


def game_news(view: GameView, events: Sequence[Event], lang: Language, replay: str | None) -> News | None:
    """What to say beside the board of ``view`` after ``events`` (None: nothing): the result with its rating changes
    (``replay`` links to the replay page), an offer's answer, or a ping for the person to act next. The first move
    of a game between people played where the bot is not a member is announced too (the accepted challenge's board
    was edited, which notifies no one)."""
    game = view.game
    if any(isinstance(e, GameOver) for e in events):
        return News(result_message(view, events, replay, lang), result=True)
    if game.kind is not GameKind.HUMAN or not game.is_active:
        return None
    answers = [e for e in events if isinstance(e, _ANSWERS) and not (isinstance(e, TakebackDone) and e.to is None)]
    if answers:  # an offer or request is answered (or withdrawn): its ping goes, the answer stays
        to = getattr(answers[-1], "to", None)
        event = answers[-1].text
        text = lang._("{mention}: {event}.", mention=f"<@{to}>", event=event) if to else lang._("{event}.", event=event)
        return News(text)
    pings = (*_PING_EVENTS, GameStarted) if game.place.through_interactions else _PING_EVENTS
    pinged = [e for e in events if isinstance(e, pings)]
    if not pinged:
        return None
    target = view.to_move if isinstance(pinged[-1], MovePlayed | GameStarted) else None
    if target is None:
        actor = game.draw_offer or game.takeback_offer
        target = game.white if actor == "black" else game.black
    event = pinged[-1].text if not isinstance(pinged[-1], GameStarted) else lang._("your move")
    return News(lang._("{mention}: {event}.", mention=f"<@{target.id}>", event=event), ping=True)
