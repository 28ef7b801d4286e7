"""What a click on a board's or a challenge's components does: choose a piece, play a move, the game buttons, the
two steps of resigning, and accepting or declining a challenge; and :class:`CogClicks`, every handler a click can reach
(:class:`bot.games._dispatch.Clicks`), these and the review's and privacy's.

A click answers on its own message: the board it was made on shows the result (and becomes the game's board), a
click on a board that is no longer current shows the current one with a short note. Errors propagate to the
dispatcher (:mod:`bot.games._dispatch`), which counted the click against the rate limits and reports them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol

import discord

from bot.games import _messages as say
from bot.games import _privacy, _respond
from bot.games._announce import Announcer
from bot.games._board import BoardMessage, move_list, moves_from
from bot.games._components import resign_controls
from bot.games._dispatch import NO_GUILD, as_channel, caller_id, guild_of, request_of, user_of
from bot.games._keeper import BoardKeeper, Where
from bot.games._locale import channel_language, user_language
from bot.games._messages import Refusal
from bot.games._render import closed_challenge_content
from bot.games._respond import observe, send, update, within_deadline
from bot.games._review import ReviewHandlers
from bot.games._scrub import Scrubber
from bot.games._threads import ARCHIVE_AFTER, close_thread, thread_name, threads_allowed
from bot.i18n import _
from bot.service import (
    Challenge,
    ChallengeId,
    GameId,
    GameOverError,
    GameService,
    GameView,
    GuildId,
    PositionChangedError,
    RequestId,
    Result,
    Tidying,
    User,
    UserId,
    end_text,
)

log = logging.getLogger(__name__)


class GameAction(Protocol):
    """A game's button action on the service (draw and takeback offers and answers)."""

    def __call__(
        self,
        service: GameService,
        game_id: GameId,
        guild_id: GuildId | None,
        user: User,
        /,
        *,
        request: RequestId | None,
    ) -> Awaitable[Result]: ...


Interaction = discord.Interaction[Any]
UNKNOWN_MESSAGE = 10008
_GAME_ACTIONS: dict[str, GameAction] = {
    "draw": GameService.offer_draw,
    "drawyes": GameService.accept_draw,
    "drawno": GameService.decline_draw,
    "tbyes": GameService.accept_takeback,
    "tbno": GameService.decline_takeback,
}


class ComponentHandlers:
    """The handlers of every component the bot sends, calling the game service and showing what it returns."""

    def __init__(self, service: GameService, boards: BoardKeeper, events: Announcer, *, game_threads: bool) -> None:
        self._service = service
        self._boards = boards
        self._events = events
        self._game_threads = game_threads
        self._scrubber = Scrubber(service, boards)
        self._background: set[asyncio.Task[object]] = set()

    # -- the board's controls -------------------------------------------------------------------------------------

    async def on_piece(self, interaction: Interaction, game_id: GameId, version: int, square: int) -> None:
        view = await within_deadline(interaction, self._service.state(game_id, guild_of(interaction)))
        if await self._is_stale(interaction, view, version):
            return
        uid = caller_id(interaction)
        if view.to_move.is_ai or view.to_move.id != uid:
            raise Refusal(say.turn_of(view.to_move.name) if view.game.color_of(uid) else say.NOT_A_PLAYER)
        only = moves_from(view, square)
        if len(only) == 1:  # the piece has one move: choosing it plays it
            await self.on_move(interaction, game_id, version, only[0])
            return
        await self._update_board(interaction, view, selected=square)

    async def on_move(self, interaction: Interaction, game_id: GameId, version: int, move: str) -> None:
        me, request = user_of(interaction.user), request_of(interaction)
        work = self._service.move(game_id, guild_of(interaction), me, move, version=version, request=request)
        await self._apply(interaction, game_id, work)

    async def on_game_button(self, interaction: Interaction, action: str, game_id: GameId, version: int) -> None:
        view = await within_deadline(interaction, self._service.state(game_id, guild_of(interaction)))
        if action == "side":  # the board from the clicker's side, for them alone
            board = self._boards.private_board(view, caller_id(interaction), user_language(interaction))
            await send(interaction, ephemeral=True, **board.copy_fields())
            return
        if action == "moves":  # every move so far, in both notations, for them alone
            await send(interaction, ephemeral=True, embed=move_list(view, user_language(interaction)))
            return
        if await self._is_stale(interaction, view, version):
            return
        if action == "resign":
            await self.ask_resign(interaction, view)
            return
        act = _GAME_ACTIONS[action]
        work = act(
            self._service, game_id, guild_of(interaction), user_of(interaction.user), request=request_of(interaction)
        )
        await self._apply(interaction, game_id, work)

    async def ask_resign(self, interaction: Interaction, view: GameView) -> None:
        """The first step of resigning: an ephemeral "Really resign?" button, for players only."""
        if view.game.color_of(caller_id(interaction)) is None:
            raise Refusal(say.NOT_A_PLAYER)
        lang = user_language(interaction)
        text = say.RESIGN_CONFIRM_RATED if view.game.rated else say.RESIGN_CONFIRM_UNRATED
        await send(interaction, ephemeral=True, content=lang.say(text), view=resign_controls(view, lang))

    async def on_resign_confirmed(self, interaction: Interaction, game_id: GameId, version: int) -> None:
        """The second step: resign (whatever was played meanwhile; the player confirmed they give the game up)."""
        me, request = user_of(interaction.user), request_of(interaction)
        work = self._service.resign(game_id, guild_of(interaction), me, request=request)
        result = await within_deadline(interaction, work)
        await update(interaction, content=user_language(interaction).say(say.RESIGNED), view=None)
        if result.game is not None:
            await self._events.after(result.game, result.events)

    async def on_resign_cancelled(self, interaction: Interaction) -> None:
        """The player changed their mind: the question goes, the game goes on."""
        await update(interaction, content=user_language(interaction).say(say.RESIGN_CANCELLED), view=None)

    async def _apply(self, interaction: Interaction, game_id: GameId, work: Awaitable[Result]) -> None:
        """Run a game action from a board's control and show its result on that board; an action on a position that
        has changed meanwhile answers with the fresh board instead."""
        try:
            result = await within_deadline(interaction, work)
        except (PositionChangedError, GameOverError):
            await self._show_current(interaction, await self._service.state(game_id, guild_of(interaction)))
            return
        assert result.game is not None
        await self._update_board(interaction, result.game)
        await self._events.announce(result.game, result.events)

    async def _is_stale(self, interaction: Interaction, view: GameView, version: int) -> bool:
        """True (after showing the current board) when the click was on a board that is no longer current."""
        if view.version == version and view.game.is_active:
            return False
        await self._show_current(interaction, view)
        return True

    async def _show_current(self, interaction: Interaction, view: GameView) -> None:
        await self._update_board(interaction, view)
        text = say.POSITION_CHANGED if view.game.is_active else say.game_ended(end_text(view.game))
        await interaction.followup.send(user_language(interaction).say(text), ephemeral=True)

    async def _update_board(self, interaction: Interaction, view: GameView, selected: int | None = None) -> None:
        """Answer a click by showing the newest view on the clicked message, which becomes the game's board.

        The game's board may be held for seconds by an update that waits out Discord's rate limit on edits in the
        channel: the click is then acknowledged first (a deferred update, within Discord's 3 seconds) and the board
        edited through the interaction once its turn comes. A lock keeps the acknowledgement and the update from
        racing (Discord refuses a second first answer)."""
        answering = asyncio.Lock()

        async def onto_clicked(board: BoardMessage) -> Where | None:
            async with answering:
                try:
                    await update(interaction, **board.fields())
                except discord.NotFound as exc:
                    if exc.code != UNKNOWN_MESSAGE:
                        raise
                    moved = user_language(interaction).say(say.BOARD_MOVED)  # the board was replaced as the click came
                    await send(interaction, ephemeral=True, content=moved)
                    return None
            self._boards.tokens.keep(board.game_view.game, interaction)  # where the bot is not: the board's token
            message = interaction.message
            return (message.channel.id, message.id) if message is not None else None

        async def acknowledge() -> None:
            async with answering:
                if not interaction.response.is_done():
                    await interaction.response.defer()
                    observe(interaction)

        patience = _respond.DEFER_AFTER - (discord.utils.utcnow() - interaction.created_at).total_seconds()
        patience = min(_respond.DEFER_AFTER, max(0.0, patience))  # a clock ahead of ours gives no more time
        await self._boards.show(view, onto_clicked, selected, waiting=acknowledge, patience=patience)

    # -- a challenge's buttons ------------------------------------------------------------------------------------

    async def on_challenge_button(
        self, interaction: Interaction, action: str, challenge_id: ChallengeId, version: int
    ) -> None:
        me = user_of(interaction.user)
        if action == "accept":
            result, place = await within_deadline(interaction, self._accept(interaction, challenge_id, me))
            assert result.game is not None and result.challenge is not None
            if result.game.game.place.through_interactions:  # the challenge's message becomes the board
                await self._update_board(interaction, result.game)
                if result.game.to_move.id != me.id:  # the challenger is told it is their move (the edit tells no one)
                    await self._events.announce(result.game, result.events)
                return
            if isinstance(place, discord.Thread):
                accepted = _("✅ {name} accepted: the game is in {thread}.", name=me.name, thread=f"<#{place.id}>")
            else:
                accepted = _("✅ {name} accepted.", name=me.name)
            text = closed_challenge_content(result.challenge, accepted, channel_language(interaction))
            await update(interaction, content=text, view=None)
            await self._boards.post(result.game, place)
            return
        mine = {c.id: c for c in await self._service.challenges_of(me.id)}
        challenge = mine.get(challenge_id)
        if challenge is None:
            raise Refusal(say.CHALLENGE_NOT_YOURS)
        guild = guild_of(interaction) or NO_GUILD
        if challenge.challenger.id == me.id:
            result = await self._service.cancel(challenge_id, guild, me, request=request_of(interaction))
        else:
            result = await self._service.decline(challenge_id, guild, me, request=request_of(interaction))
        text = _("✖️ {event}.", event=result.events[0].text) if result.events else _("✖️ Closed.")
        content = closed_challenge_content(challenge, text, channel_language(interaction))
        await update(interaction, content=content, view=None)

    async def _accept(
        self, interaction: Interaction, challenge_id: ChallengeId, me: User
    ) -> tuple[Result, discord.abc.Messageable]:
        """Accept a challenge into its own thread (by default), opened under the challenge before the game exists so
        the game is filed under the thread from its first write. The acceptance is checked before the thread is
        opened; if opening the thread fails the game is played in the channel, and if the acceptance fails after all
        (someone was quicker) the empty thread is closed."""
        guild = guild_of(interaction) or NO_GUILD
        challenge = await self._service.check_accept(challenge_id, guild, me)
        thread = await self._open_thread(interaction, challenge, me)
        if thread is None:
            result = await self._service.accept(challenge_id, guild, me, request=request_of(interaction))
            return result, self._boards.messageable(int(challenge.channel_id))
        try:
            where, request = as_channel(thread.id), request_of(interaction)
            result = await self._service.accept(challenge_id, guild, me, channel_id=where, request=request)
        except BaseException:
            await close_thread(thread, self._service)
            raise
        return result, thread

    async def _open_thread(self, interaction: Interaction, challenge: Challenge, me: User) -> discord.Thread | None:
        message = interaction.message
        if message is None or not threads_allowed(interaction, self._game_threads):
            return None
        try:
            name = thread_name(challenge.challenger.name, me.name)
            return await message.create_thread(name=name, auto_archive_duration=ARCHIVE_AFTER)
        except discord.HTTPException as exc:
            log.warning("could not open a thread for challenge %s, playing in the channel: %s", challenge.id, exc)
            return None


class CogClicks(ComponentHandlers):
    """Every handler a component's click reaches (:class:`bot.games._dispatch.Clicks`): a board's and a challenge's
    (above), a review's pages and its Analyse button, and the privacy summary's delete button."""

    def __init__(
        self,
        service: GameService,
        boards: BoardKeeper,
        events: Announcer,
        reviews: ReviewHandlers,
        *,
        game_threads: bool,
    ) -> None:
        super().__init__(service, boards, events, game_threads=game_threads)
        self._reviews = reviews

    async def on_analyse(self, interaction: Interaction, game_id: GameId) -> None:
        await self._reviews.on_analyse(interaction, game_id)

    async def on_review_page(self, interaction: Interaction, game_id: GameId, page: int) -> None:
        await self._reviews.on_page(interaction, game_id, page)

    async def on_delete_data(self, interaction: Interaction, user_id: UserId) -> None:
        done = await _privacy.delete(interaction, self._service, user_id)
        if done.games:  # the bot's posts that show the name: edited in the background, the person told after
            names = (interaction.user.display_name, interaction.user.name, done.name or "")
            tidying = await self._service.tidyings.start(user_id, done.games, names)
            self._in_background(self._tidy(interaction, tidying), f"kingme-tidy-{user_id}")

    def resume_tidying(self) -> None:
        """Go on, in the background, with the edits after erasures that a stopped process left."""
        self._in_background(self._scrubber.resume(), "kingme-tidy-resume")

    def _in_background(self, work: Coroutine[object, object, object], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_logged)

    async def close(self) -> None:
        """Stop the background edits under way (the bot is stopping)."""
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)

    async def _tidy(self, interaction: Interaction, tidying: Tidying) -> None:
        done = await self._scrubber.scrub(tidying)
        if done is not None:
            await interaction.followup.send(_privacy.tidied(done, user_language(interaction)), ephemeral=True)


def _logged(task: asyncio.Task[object]) -> None:
    """The edits after an erasure are a courtesy (the data itself is gone): a failure is logged, never raised."""
    if not task.cancelled() and task.exception() is not None:
        log.error("the edits after an erasure failed", exc_info=task.exception())
