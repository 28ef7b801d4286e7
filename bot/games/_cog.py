"""The ``/checkers`` commands, the handlers of the board and challenge components, and the event sink's Discord side.

Everything here calls the game service and shows what it returns; no game state is kept. The board keeper remembers
which message shows which game and records it with the game, and a challenge's message is recorded with the
challenge, so a restarted bot shows AI moves, timeouts and expired challenges where people look. Errors are turned
into short ephemeral replies in one place, :meth:`GamesCog.report`, used by both :meth:`cog_app_command_error` and the
component handlers.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Awaitable, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from ai.api import levels
from bot.games import _messages as say
from bot.games._boards import MENTIONS, BoardKeeper, board_fields, edit_fields, game_id_of_thread, thread_name
from bot.games._render import (
    challenge_content,
    closed_challenge_content,
    history_line,
    leaderboard_embed,
    result_message,
    stats_embed,
    text_board,
)
from bot.games._respond import kind_of, metrics_of, send, update, within_deadline
from bot.games._views import challenge_controls, resign_controls
from bot.pool import PoolError
from bot.public import game_path, leaderboard_path, public_url
from bot.service import (
    Challenge,
    Event,
    EventKind,
    GameKind,
    GameOverError,
    GameService,
    GameState,
    GameView,
    PositionChangedError,
    Result,
    ServiceError,
    User,
)
from bot.service._models import color_name
from bot.settings import Settings
from core import VARIANTS, RulesError

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

COLOUR_CHOICES = [Choice(name="Black (moves first)", value="black"), Choice(name="White", value="white")]
COLOUR_CHOICES.append(Choice(name="Random", value="random"))
SCOPE_CHOICES = [Choice(name="This server", value="server"), Choice(name="Everyone", value="global")]
TURN_TIMES = [
    Choice(name="1 minute", value=60),
    Choice(name="5 minutes", value=300),
    Choice(name="15 minutes", value=900),
    Choice(name="1 hour", value=3600),
    Choice(name="12 hours", value=43200),
    Choice(name="1 day", value=86400),
    Choice(name="3 days", value=259200),
    Choice(name="7 days", value=604800),
]
_GAME_ACTIONS = {
    "draw": GameService.offer_draw,
    "drawyes": GameService.accept_draw,
    "drawno": GameService.decline_draw,
    "tbyes": GameService.accept_takeback,
    "tbno": GameService.decline_takeback,
}
_PING_EVENTS = (EventKind.MOVE_PLAYED, EventKind.DRAW_OFFERED, EventKind.TAKEBACK_REQUESTED, EventKind.PASSED)


class Refusal(Exception):  # noqa: N818 - a refusal shown to the user, like the service's errors
    """A request the cog itself turns down before calling the service; the message is for the user."""


def _user(member: discord.abc.User) -> User:
    return User(member.id, member.display_name)


def _default_level() -> str:
    return next(iter(levels()))


async def _level_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    needle = current.strip().lower()
    return [
        Choice(name=f"{name}: {level.summary}"[:100], value=name)
        for name, level in levels().items()
        if needle in name or needle in level.summary.lower()
    ][:25]


async def _variant_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    needle = current.strip().lower()
    return [
        Choice(name=f"{variant.title} ({name})"[:100], value=name)
        for name, variant in VARIANTS.items()
        if needle in name or needle in variant.title.lower()
    ][:25]


@app_commands.guild_only()
class GamesCog(commands.GroupCog, name="Games", group_name="checkers", group_description="Play checkers"):
    """Checkers games: against the AI, against each other, and AI exhibitions."""

    def __init__(self, bot: commands.Bot, service: GameService, settings: Settings) -> None:
        self.bot = bot
        self.service = service
        self.settings = settings
        self.boards = BoardKeeper(bot, service)
        self._pings: dict[str, tuple[int, int]] = {}
        super().__init__()

    # -- errors ---------------------------------------------------------------------------------------------------

    async def cog_app_command_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        await self.report(interaction, error)

    async def report(self, interaction: Interaction, error: BaseException) -> None:
        """Tell the user why their request failed, in a short ephemeral message."""
        original = getattr(error, "original", error)
        if isinstance(original, ServiceError):
            text = original.message
        elif isinstance(original, PoolError | Refusal | RulesError):  # RulesError: a move the rules refuse
            text = str(original)
        elif isinstance(original, app_commands.NoPrivateMessage):
            text = say.GUILD_ONLY
        elif isinstance(original, app_commands.TransformerError):
            text = say.BAD_OPTION
        else:
            log.error("interaction %s failed", interaction.command, exc_info=original)
            text = say.INTERNAL
        metrics = metrics_of(interaction)
        if metrics is not None:
            metrics.interaction_errors.labels(kind_of(interaction)).inc()
        if interaction.type is discord.InteractionType.autocomplete:
            return
        try:
            await send(interaction, ephemeral=True, content=say.short(text))
        except discord.HTTPException:
            log.warning("could not tell the user about an error in %s", interaction.command)

    # -- helpers --------------------------------------------------------------------------------------------------

    async def _game_here(self, interaction: Interaction, *, mine: bool) -> GameView:
        """The game of this channel (or thread): the user's own, or with ``mine=False`` any game shown here."""
        uid = str(interaction.user.id)
        thread_game = game_id_of_thread(interaction.channel)
        if thread_game is not None:
            return await self.service.state(thread_game, interaction.guild_id)
        channel_id = interaction.channel_id
        views = await self.service.channel_games(interaction.guild_id or 0, channel_id or 0)
        own = [v for v in views if v.game.color_of(uid) is not None]
        if own:
            return own[0]
        if views and not mine:
            return views[0]
        own = [v for v in await self.service.user_games(uid) if self._shown_here(interaction, v.game)]
        if own:
            return own[0]
        raise Refusal(say.NO_GAME_HERE if mine else say.NO_GAME_TO_SHOW)

    def _shown_here(self, interaction: Interaction, game: GameState) -> bool:
        """True when ``game`` is played in this channel, in this thread's channel, or in a thread of this channel."""
        here = {str(interaction.channel_id), str(getattr(interaction.channel, "parent_id", None))}
        if game.channel_id in here:
            return True
        with contextlib.suppress(ValueError):
            return str(getattr(self.bot.get_channel(int(game.channel_id)), "parent_id", None)) in here
        return False

    async def _last_game(self, interaction: Interaction, user_id: str) -> GameState:
        """The user's most recent finished game, preferring this channel's."""
        games = await self.service.history(user_id, 10)
        for game in games:
            if self._shown_here(interaction, game):
                return game
        if games:
            return games[0]
        raise Refusal(say.NO_FINISHED_GAME)

    async def _post_board(self, interaction: Interaction, view: GameView) -> None:
        """Answer the interaction with a new board message and make it the game's board."""
        async with self.boards.lock(view.id):
            view = self.boards.newest(view)
            message_id = await send(interaction, **board_fields(view))
            await self.boards.place(view, interaction.channel_id or int(view.game.channel_id), message_id)

    async def _update_board(self, interaction: Interaction, view: GameView, selected: int | None = None) -> None:
        """Answer a click by showing the newest view on the clicked message, which becomes the game's board."""
        async with self.boards.lock(view.id):
            view = self.boards.newest(view)
            await update(interaction, **edit_fields(view, selected))
            if interaction.message is not None:
                await self.boards.place(view, interaction.message.channel.id, interaction.message.id)

    async def _refresh_stale(self, interaction: Interaction, game_id: str) -> None:
        await self._show_current(interaction, await self.service.state(game_id, interaction.guild_id))

    async def _is_stale(self, interaction: Interaction, view: GameView, version: int) -> bool:
        """True (after showing the current board) when the click was on a board that is no longer current."""
        if view.version == version and view.game.is_active:
            return False
        await self._show_current(interaction, view)
        return True

    async def _show_current(self, interaction: Interaction, view: GameView) -> None:
        await self._update_board(interaction, view)
        text = say.POSITION_CHANGED if view.game.is_active else say.GAME_ENDED.format(end=view.game.end_text)
        await interaction.followup.send(text, ephemeral=True)

    async def _after(self, view: GameView, events: Sequence[Event]) -> None:
        """Show a change that an interaction caused somewhere other than its own message."""
        await self.boards.refresh(view)
        await self._announce(view, events)

    def _public_link(self, path: str) -> str | None:
        """``path`` on the public pages, or None when ``PUBLIC_BASE_URL`` is not set."""
        base = self.settings.public_base_url
        return public_url(base, path) if base else None

    async def _announce(self, view: GameView, events: Sequence[Event]) -> None:
        """Messages beside the board: the result with rating changes, and a ping for the person to act next."""
        game = view.game
        channel = self.boards.messageable(self.boards.home(game))
        if any(e.kind is EventKind.GAME_OVER for e in events):
            await self._clear_ping(game.id)
            text = result_message(view, events, self._public_link(game_path(game.id)))
            await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
            return
        if game.kind is not GameKind.HUMAN or not game.is_active:
            return
        pinged = [e for e in events if e.kind in _PING_EVENTS]
        if not pinged:
            return
        target = view.to_move if pinged[-1].kind is EventKind.MOVE_PLAYED else None
        if target is None:
            actor = game.draw_offer or game.takeback_offer
            target = game.white if actor == "black" else game.black
        await self._clear_ping(game.id)
        text = f"<@{target.id}>: {pinged[-1].text}."
        sent = await channel.send(text, allowed_mentions=MENTIONS)
        self._pings[game.id] = (channel.id, sent.id)

    async def _clear_ping(self, game_id: str) -> None:
        previous = self._pings.pop(game_id, None)
        if previous is not None:
            with contextlib.suppress(discord.HTTPException):
                await self.boards.messageable(previous[0]).get_partial_message(previous[1]).delete()

    # -- the event sink -------------------------------------------------------------------------------------------

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        """Show events that happened outside an interaction: AI moves, timeouts, expired challenges."""
        try:
            if game is not None:
                await self._after(game, events)
                return
            for event in events:
                if event.kind is EventKind.CHALLENGE_EXPIRED and event.challenge_id:
                    await self._show_expired(event)
                elif event.game_id:
                    view = await self.service.state(event.game_id)
                    await self.boards.messageable(self.boards.home(view.game)).send(say.short(event.text))
        except Exception:
            log.exception("could not show %d events of game %s", len(events), game.id if game else "-")

    async def _show_expired(self, event: Event) -> None:
        """Strike out an expired challenge's message (recorded with the challenge), or say it in its channel."""
        assert event.challenge_id is not None
        challenge = await self.service.get_challenge(event.challenge_id)
        text = "⌛ The challenge expired."
        if challenge.message is not None:
            where = self.boards.messageable(int(challenge.message.channel_id))
            with contextlib.suppress(discord.NotFound):
                message = where.get_partial_message(int(challenge.message.message_id))
                await message.edit(content=closed_challenge_content(challenge, text), view=None)
                return
        channel = self.boards.messageable(int(event.channel_id or challenge.channel_id))
        await channel.send(closed_challenge_content(challenge, text), allowed_mentions=discord.AllowedMentions.none())

    async def _show_challenge(self, interaction: Interaction, challenge: Challenge) -> None:
        """Answer with the challenge and its buttons, and record that message with the challenge."""
        message_id = await send(
            interaction,
            content=challenge_content(challenge),
            view=challenge_controls(challenge),
            allowed_mentions=MENTIONS,
        )
        if message_id is not None:
            channel_id = interaction.channel_id or int(challenge.channel_id)
            await self.service.set_challenge_message(challenge.id, channel_id, message_id)

    # -- components -----------------------------------------------------------------------------------------------

    async def on_piece(self, interaction: Interaction, game_id: str, version: int, square: int) -> None:
        try:
            view = await within_deadline(interaction, self.service.state(game_id, interaction.guild_id))
            if await self._is_stale(interaction, view, version):
                return
            uid = str(interaction.user.id)
            if view.to_move.is_ai or view.to_move.id != uid:
                raise Refusal(say.turn_of(view.to_move.name) if view.game.color_of(uid) else say.NOT_A_PLAYER)
            await self._update_board(interaction, view, selected=square)
        except Exception as exc:
            await self.report(interaction, exc)

    async def on_move(self, interaction: Interaction, game_id: str, version: int, move: str) -> None:
        try:
            work = self.service.move(game_id, interaction.guild_id, _user(interaction.user), move, version=version)
            await self._apply(interaction, game_id, work)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _apply(self, interaction: Interaction, game_id: str, work: Awaitable[Result]) -> None:
        """Run a game action from a board's control and show its result on that board; an action on a position that
        has changed meanwhile answers with the fresh board instead."""
        try:
            result = await within_deadline(interaction, work)
        except (PositionChangedError, GameOverError):
            await self._refresh_stale(interaction, game_id)
            return
        assert result.game is not None
        await self._update_board(interaction, result.game)
        await self._announce(result.game, result.events)

    async def on_game_button(self, interaction: Interaction, action: str, game_id: str, version: int) -> None:
        try:
            view = await within_deadline(interaction, self.service.state(game_id, interaction.guild_id))
            if await self._is_stale(interaction, view, version):
                return
            if action == "resign":
                await self._ask_resign(interaction, view)
                return
            work = _GAME_ACTIONS[action](self.service, game_id, interaction.guild_id, _user(interaction.user))
            await self._apply(interaction, game_id, work)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _ask_resign(self, interaction: Interaction, view: GameView) -> None:
        """The first step of resigning: an ephemeral "Really resign?" button, for players only."""
        if view.game.color_of(str(interaction.user.id)) is None:
            raise Refusal(say.NOT_A_PLAYER)
        await send(interaction, ephemeral=True, content=say.RESIGN_CONFIRM, view=resign_controls(view))

    async def on_resign_confirmed(self, interaction: Interaction, game_id: str, version: int) -> None:
        """The second step: resign (whatever was played meanwhile; the player confirmed they give the game up)."""
        try:
            work = self.service.resign(game_id, interaction.guild_id, _user(interaction.user))
            result = await within_deadline(interaction, work)
            await update(interaction, content=say.RESIGNED, view=None)
            if result.game is not None:
                await self._after(result.game, result.events)
        except Exception as exc:
            await self.report(interaction, exc)

    async def on_challenge_button(self, interaction: Interaction, action: str, challenge_id: str, version: int) -> None:
        try:
            me = _user(interaction.user)
            guild = interaction.guild_id or 0
            if action == "accept":
                result, place = await within_deadline(interaction, self._accept(interaction, challenge_id, me))
                assert result.game is not None and result.challenge is not None
                text = closed_challenge_content(result.challenge, f"✅ {me.name} accepted.")
                await update(interaction, content=text, view=None)
                await self._open_game(place, result.game)
                return
            mine = {c.id: c for c in await self.service.challenges_of(me.id)}
            challenge = mine.get(challenge_id)
            if challenge is None:
                raise Refusal(say.CHALLENGE_NOT_YOURS)
            if challenge.challenger.id == me.id:
                result = await self.service.cancel(challenge_id, guild, me)
            else:
                result = await self.service.decline(challenge_id, guild, me)
            text = f"✖️ {result.events[0].text}." if result.events else "✖️ Closed."
            await update(interaction, content=closed_challenge_content(challenge, text), view=None)
        except Exception as exc:
            await self.report(interaction, exc)

    async def _accept(
        self, interaction: Interaction, challenge_id: str, me: User
    ) -> tuple[Result, discord.abc.Messageable]:
        """Accept a challenge into its own thread (by default), opened under the challenge before the game exists so
        the game is filed under the thread from its first write. The acceptance is checked before the thread is
        opened; if opening the thread fails the game is played in the channel, and if the acceptance fails after all
        (someone was quicker) the empty thread is closed."""
        guild = interaction.guild_id or 0
        challenge = await self.service.check_accept(challenge_id, guild, me)
        thread = await self._open_thread(interaction, challenge, me)
        if thread is None:
            result = await self.service.accept(challenge_id, guild, me)
            return result, self.boards.messageable(int(challenge.channel_id))
        try:
            result = await self.service.accept(challenge_id, guild, me, channel_id=thread.id)
        except BaseException:
            with contextlib.suppress(discord.HTTPException):
                await thread.edit(archived=True, locked=True)
            raise
        return result, thread

    async def _open_thread(self, interaction: Interaction, challenge: Challenge, me: User) -> discord.Thread | None:
        message = interaction.message
        if not self.settings.game_threads or message is None or isinstance(interaction.channel, discord.Thread):
            return None
        try:
            return await message.create_thread(name=thread_name(challenge.challenger.name, me.name))
        except discord.HTTPException as exc:
            log.warning("could not open a thread for challenge %s, playing in the channel: %s", challenge.id, exc)
            return None

    async def _open_game(self, target: discord.abc.Messageable, view: GameView) -> None:
        """Post the board of a newly accepted game (in its thread, or in the channel) and make it the game's board."""
        async with self.boards.lock(view.id):
            view = self.boards.newest(view)
            sent = await target.send(**board_fields(view))
            await self.boards.place(view, sent.channel.id, sent.id)

    # -- commands -------------------------------------------------------------------------------------------------

    @app_commands.command(description="Play against the AI")
    @app_commands.describe(
        level="How strong the AI plays",
        colour="Your side (Black moves first)",
        variant="The rules to play",
        position="A FEN to start from (the game is unrated)",
        think="The AI's thinking time in seconds a move",
    )
    @app_commands.choices(colour=COLOUR_CHOICES)
    @app_commands.autocomplete(level=_level_choices, variant=_variant_choices)
    async def play(
        self,
        interaction: Interaction,
        level: str | None = None,
        colour: str = "black",
        variant: str = "american",
        position: app_commands.Range[str, 1, 200] | None = None,
        think: app_commands.Range[float, 0.01] | None = None,  # the service caps it (AI_THINK_TIME_MAX)
    ) -> None:
        work = self.service.play_ai(
            interaction.guild_id or 0,
            interaction.channel_id or 0,
            _user(interaction.user),
            level or _default_level(),
            color=colour,
            variant=variant,
            fen=position,
            think_time=think,
        )
        async with self.boards.opening(interaction.channel_id or 0):
            result = await within_deadline(interaction, work)
            assert result.game is not None
            await self._post_board(interaction, result.game)

    @app_commands.command(description="Challenge someone to a rated game")
    @app_commands.describe(
        opponent="Who you want to play",
        variant="The rules to play",
        turn_time="Time for each move",
        position="A FEN to start from (the game is unrated)",
    )
    @app_commands.choices(turn_time=TURN_TIMES)
    @app_commands.autocomplete(variant=_variant_choices)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User,
        variant: str = "american",
        turn_time: int | None = None,
        position: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        if opponent.bot:
            raise Refusal(say.CHALLENGE_A_BOT)
        work = self.service.challenge(
            interaction.guild_id or 0,
            interaction.channel_id or 0,
            _user(interaction.user),
            _user(opponent),
            variant=variant,
            turn_time=turn_time,
            fen=position,
        )
        result = await within_deadline(interaction, work)
        assert result.challenge is not None
        await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description="Play a move by typing it, e.g. 11-15 or 15x24")
    @app_commands.describe(move="The move in PDN: 11-15, a capture 15x24, a multi-jump 1x10x19")
    async def move(self, interaction: Interaction, move: app_commands.Range[str, 1, 60]) -> None:
        async def work() -> Result:
            view = await self._game_here(interaction, mine=True)
            return await self.service.move(view.id, interaction.guild_id, _user(interaction.user), move.strip())

        result = await within_deadline(interaction, work(), ephemeral=True)
        assert result.game is not None
        played = next((e.data.get("move") for e in result.events if e.kind is EventKind.MOVE_PLAYED), move)
        await send(interaction, ephemeral=True, content=f"You played {played}.")
        await self._after(result.game, result.events)

    @move.autocomplete("move")
    async def _move_choices(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        try:
            view = await self._game_here(interaction, mine=True)
        except (Refusal, ServiceError):
            return []
        if view.to_move.id != str(interaction.user.id):
            return []
        needle = current.strip()
        return [Choice(name=m, value=m) for m in view.legal_moves if m.startswith(needle)][:25]

    @app_commands.command(description="Show the board of this channel's game")
    @app_commands.describe(text="A plain-text board and the legal moves, for screen readers (only you see it)")
    async def board(self, interaction: Interaction, text: bool = False) -> None:
        view = await within_deadline(interaction, self._game_here(interaction, mine=False), ephemeral=text)
        if text:
            await send(interaction, ephemeral=True, content=text_board(view))
        else:
            await self._post_board(interaction, view)

    @app_commands.command(description="Resign your game in this channel (you confirm with a second button)")
    async def resign(self, interaction: Interaction) -> None:
        view = await within_deadline(interaction, self._game_here(interaction, mine=True), ephemeral=True)
        await self._ask_resign(interaction, view)

    @app_commands.command(description="Offer a draw, or accept your opponent's offer")
    async def draw(self, interaction: Interaction) -> None:
        async def work() -> Result:
            view = await self._game_here(interaction, mine=True)
            me = view.game.color_of(str(interaction.user.id))
            accept = me is not None and view.game.draw_offer == color_name(me.opponent)
            call = self.service.accept_draw if accept else self.service.offer_draw
            return await call(view.id, interaction.guild_id, _user(interaction.user))

        result = await within_deadline(interaction, work(), ephemeral=True)
        ended = result.game is not None and not result.game.game.is_active
        await send(interaction, ephemeral=True, content="You accepted the draw." if ended else "You offered a draw.")
        if result.game is not None:
            await self._after(result.game, result.events)

    @app_commands.command(description="Take back your last move (your opponent must agree)")
    async def takeback(self, interaction: Interaction) -> None:
        await self._game_command(interaction, GameService.takeback, "Takeback requested.")

    async def _game_command(self, interaction: Interaction, call: Any, ack: str) -> None:
        async def work() -> Result:
            game = await self._game_here(interaction, mine=True)
            result: Result = await call(self.service, game.id, interaction.guild_id, _user(interaction.user))
            return result

        result = await within_deadline(interaction, work(), ephemeral=True)
        said = next((e.text for e in result.events if e.kind is not EventKind.RATING_CHANGED), ack)
        await send(interaction, ephemeral=True, content=say.short(said))
        if result.game is not None:
            await self._after(result.game, result.events)

    @app_commands.command(description="Play your last game again with colours swapped")
    async def rematch(self, interaction: Interaction) -> None:
        uid = str(interaction.user.id)

        async def work() -> Result:
            game = await self._last_game(interaction, uid)
            me = _user(interaction.user)
            return await self.service.rematch(game.id, interaction.guild_id, me, channel_id=interaction.channel_id)

        async with self.boards.opening(interaction.channel_id or 0):
            result = await within_deadline(interaction, work())
            if result.game is not None:
                await self._post_board(interaction, result.game)
                return
        assert result.challenge is not None
        await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description="The best rated players")
    @app_commands.describe(scope="This server's ladder or everyone's", variant="The rules")
    @app_commands.choices(scope=SCOPE_CHOICES)
    @app_commands.autocomplete(variant=_variant_choices)
    async def leaderboard(self, interaction: Interaction, scope: str = "server", variant: str = "american") -> None:
        guild = interaction.guild_id if scope == "server" else None
        entries = await within_deadline(interaction, self.service.leaderboard(variant, guild, 10))
        where = "this server" if guild is not None else "everyone"
        title = f"Leaderboard: {VARIANTS[variant].title if variant in VARIANTS else variant}, {where}"
        url = self._public_link(leaderboard_path(guild, variant))
        await send(interaction, embed=leaderboard_embed(entries, title, url))

    @app_commands.command(description="A player's rating and record")
    @app_commands.describe(user="Whose statistics (you by default)", variant="The rules")
    @app_commands.autocomplete(variant=_variant_choices)
    async def stats(
        self, interaction: Interaction, user: discord.User | None = None, variant: str = "american"
    ) -> None:
        target = user or interaction.user

        async def work() -> list[discord.Embed]:
            here = await self.service.stats(target.id, variant, interaction.guild_id)
            everyone = await self.service.stats(target.id, variant, None)
            return [stats_embed(here, "this server"), stats_embed(everyone, "everyone")]

        embeds = await within_deadline(interaction, work(), ephemeral=True)
        await send(interaction, ephemeral=True, embeds=embeds)

    @app_commands.command(description="A player's recent games")
    @app_commands.describe(user="Whose games (you by default)")
    async def history(self, interaction: Interaction, user: discord.User | None = None) -> None:
        target = user or interaction.user
        games = await within_deadline(interaction, self.service.history(target.id, 10), ephemeral=True)
        lines = [history_line(g, str(target.id)) for g in games] or ["No finished games yet."]
        embed = discord.Embed(title=f"Recent games of {target.display_name}", description="\n".join(lines)[:4000])
        await send(interaction, ephemeral=True, embed=embed)

    @app_commands.command(description="Download a game as PDN")
    @app_commands.describe(game="The game id (this channel's game, or your last one, by default)")
    async def export(self, interaction: Interaction, game: app_commands.Range[str, 1, 40] | None = None) -> None:
        async def work() -> tuple[str, GameView]:
            if game is not None:
                game_id = game.strip()
            else:
                try:
                    game_id = (await self._game_here(interaction, mine=False)).id
                except Refusal:
                    game_id = (await self._last_game(interaction, str(interaction.user.id))).id
            return await self.service.pdn(game_id, interaction.guild_id), await self.service.state(game_id)

        pdn, view = await within_deadline(interaction, work(), ephemeral=True)
        shown = pdn if len(pdn) < 1500 else pdn[:1500] + "\n…"
        content = f"Game `{view.id}` · position now: `{view.fen}`\n```\n{shown}\n```"
        file = discord.File(io.BytesIO(pdn.encode()), filename=f"kingme-{view.id}.pdn")
        await send(interaction, ephemeral=True, content=content, file=file)

    @app_commands.command(description="Watch two AI levels play each other")
    @app_commands.describe(level_a="The AI playing Black", level_b="The AI playing White", variant="The rules")
    @app_commands.autocomplete(level_a=_level_choices, level_b=_level_choices, variant=_variant_choices)
    async def watch(self, interaction: Interaction, level_a: str, level_b: str, variant: str = "american") -> None:
        work = self.service.exhibition(
            interaction.guild_id or 0, interaction.channel_id or 0, level_a, level_b, variant=variant
        )
        async with self.boards.opening(interaction.channel_id or 0):
            result = await within_deadline(interaction, work)
            assert result.game is not None
            await self._post_board(interaction, result.game)

    @app_commands.command(description="How to play, and every command")
    async def help(self, interaction: Interaction) -> None:
        await send(interaction, ephemeral=True, embed=help_embed())


def command_list() -> list[tuple[str, str]]:
    """Every ``/checkers`` subcommand as registered, with its options (optional ones in brackets) and description:
    the source of ``/checkers help`` and of the README's command list."""
    rows = []
    for command in GamesCog.__cog_app_commands__:
        if isinstance(command, app_commands.Command):
            options = " ".join(p.name if p.required else f"[{p.name}]" for p in command.parameters)
            rows.append((f"/{GamesCog.__cog_group_name__} {command.name} {options}".strip(), command.description))
    return rows


def help_embed() -> discord.Embed:
    commands_text = "\n".join(f"`{usage}`: {text}" for usage, text in command_list())
    description = f"{say.MOVE_HINT}\n\n**Commands**\n{commands_text}"
    embed = discord.Embed(title="King Me: checkers on Discord", description=description[:4096])
    level_text = "\n".join(f"**{name}**: {level.summary}" for name, level in levels().items())
    embed.add_field(name="AI levels", value=level_text[:1024], inline=False)
    variant_text = ", ".join(f"{v.title} (`{name}`)" for name, v in VARIANTS.items())
    embed.add_field(name="Variants", value=variant_text[:1024], inline=False)
    return embed
