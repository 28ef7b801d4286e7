"""The ``/checkers`` slash commands: each finds its game, calls the game service and shows what it returns.

The cog is the front door of the checkers feature and owns its rooms: :class:`GameFinder` (the game of a channel),
:class:`BoardKeeper` (where each board is), :class:`Announcer` (the event sink and the messages beside a board) and
:class:`CogClicks` (what a click does, run by :mod:`bot.games._dispatch`). No game state is kept here. Errors are
turned into short ephemeral replies in one place, :meth:`GamesCog.report`, used by both :meth:`cog_app_command_error`
and the dispatcher. Every command (not its autocomplete) and every click first passes the rate limits
(:meth:`GamesCog.interaction_check`, :class:`~bot.games._dispatch.Dispatcher`); one that goes too fast is told when
to try again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games import _endgame, _export, _help, _privacy, _records, _seasons
from bot.games import _messages as say
from bot.games._announce import Announcer, PublicLinks
from bot.games._anywhere import server_only
from bot.games._board import BoardMessage, algebraic, board_message, bottom_side, text_board
from bot.games._choices import (
    COLOUR_CHOICES,
    NEW_GAME_OPTIONS,
    SCOPE_CHOICES,
    TURN_TIMES,
    default_level,
    level_choices,
    move_choices,
    variant_choices,
)
from bot.games._components import challenge_controls
from bot.games._dispatch import (
    Caller,
    Dispatcher,
    attach,
    caller_id,
    caller_of,
    detach,
    user_of,
)
from bot.games._emojis import UPLOAD_WAIT, install_tiles, report_failure
from bot.games._finder import GameFinder
from bot.games._handlers import CogClicks
from bot.games._keeper import BoardKeeper, Where
from bot.games._locale import channel_language, user_language
from bot.games._messages import MENTIONS, Refusal
from bot.games._puzzle_cog import PuzzleCommands, PuzzleHandlers
from bot.games._render import (
    challenge_content,
    thread_notice,
)
from bot.games._report import Reporter, check_rates
from bot.games._respond import send, within_deadline
from bot.games._review import ReviewHandlers
from bot.games._theme import BoardThemes
from bot.games._threads import CommandThread, thread_name, threads_allowed
from bot.games._tournament_cog import tournament_commands
from bot.i18n import ENGLISH, Language, Text, _
from bot.service import (
    Challenge,
    GameId,
    GameService,
    GameView,
    MessageRef,
    MovePlayed,
    Result,
    ServiceError,
    TakebackDone,
)
from bot.settings import Settings

log = logging.getLogger(__name__)
Call = Callable[[GameView, Caller], Awaitable[Result]]
Interaction = discord.Interaction[Any]
Choice = app_commands.Choice


@app_commands.allowed_installs(guilds=True, users=True)  # a server's, or a person's who plays anywhere
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class GamesCog(commands.GroupCog, name="Games", group_name="checkers", group_description=_("Play checkers")):
    """Checkers games: against the AI, against each other, and AI exhibitions."""

    def __init__(self, bot: commands.Bot, service: GameService, settings: Settings, links: PublicLinks) -> None:
        self.bot = bot
        self.service = service
        self.links = links
        self.game_threads = settings.game_threads
        """Whether games get threads of their own (where the channel allows them)."""
        self.themes = BoardThemes()
        """The theme boards are drawn with: the emoji tiles once :meth:`cog_load` has put them in place."""
        self.boards = BoardKeeper(bot, service, themes=self.themes)
        self.finder = GameFinder(bot, service)
        self.events = Announcer(service, self.boards, links)
        """The game service's event sink on Discord."""
        self._tiles: asyncio.Task[bool] | None = None
        self.reporter = Reporter(service)
        """Tells users why a command or click failed."""
        self.reviews = ReviewHandlers(service, self.finder)
        """``/checkers analyse`` and the clicks on a review's components."""
        self.clicks = CogClicks(service, self.boards, self.events, self.reviews, game_threads=settings.game_threads)
        """What a click on a component does (the dispatcher runs it)."""
        self.puzzles = PuzzleHandlers(bot, service, self.themes, self.finder, links)
        super().__init__()

    async def cog_load(self) -> None:
        """Put the board's tiles in place as application emojis, waiting at most :data:`UPLOAD_WAIT` seconds (the rest
        goes on in the background); from now on the bot's clicks come to :attr:`clicks` through the dispatcher."""
        attach(self.bot, Dispatcher(self.service, self.clicks, self.report))
        self.clicks.resume_tidying()  # edits after an erasure that a stopped process left
        self._tiles = asyncio.create_task(install_tiles(self.bot, self.themes), name="kingme-tiles")
        self._tiles.add_done_callback(report_failure)
        await asyncio.wait({self._tiles}, timeout=UPLOAD_WAIT)

    async def cog_unload(self) -> None:
        detach(self.bot)
        await self.clicks.close()
        if self._tiles is not None and not self._tiles.done():
            self._tiles.cancel()

    # -- errors ---------------------------------------------------------------------------------------------------

    async def interaction_check(self, interaction: Interaction) -> bool:
        """Every command passes the rate limits first (discord.py runs no check for autocomplete)."""
        return await check_rates(self.service, interaction)

    async def cog_app_command_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        await self.report(interaction, error)

    async def report(self, interaction: Interaction, error: BaseException) -> None:
        """Tell the user why their request failed, in a short ephemeral message (the one place errors are told)."""
        await self.reporter.report(interaction, error)

    # -- helpers --------------------------------------------------------------------------------------------------

    async def _post_board(self, interaction: Interaction, view: GameView) -> None:
        """Answer the interaction with a new board message and make it the game's board."""

        async def answer(board: BoardMessage) -> Where:
            message_id = await send(interaction, **board.fields())
            self.boards.tokens.keep(view.game, interaction)  # where the bot is not, the board is this answer
            return interaction.channel_id or int(view.game.channel_id), message_id

        await self.boards.show(view, answer)

    async def _open(
        self, interaction: Interaction, start: Callable[[CommandThread | None], Awaitable[Result]], name: str
    ) -> Result:
        """Run a command that opens a game (``start``, given the game's room), and post its board (a challenge has
        none yet): in a thread of its own named ``name`` where the channel allows threads, with a short message in
        the channel that links to it; else in this channel."""
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(self.boards.opening(interaction.channel_id or 0))
            room = None
            if threads_allowed(interaction, self.game_threads):
                room = await stack.enter_async_context(CommandThread(interaction, name, self.boards, self.service))
            try:
                result = await within_deadline(interaction, start(room))
            except BaseException:
                if room is not None:
                    await room.abandon()
                raise
            if result.game is not None and room is not None and room.thread is not None:
                await self.boards.post(result.game, room.thread)
                await room.announce(thread_notice(result.game, room.thread.id, channel_language(interaction)))
            elif result.game is not None:
                await self._post_board(interaction, result.game)
        return result

    async def _act(self, interaction: Interaction, call: Call, ack: Callable[[Result], Text]) -> None:
        """Do ``call`` in the user's game of this channel, acknowledge it privately and show it on the board."""

        async def work() -> Result:
            return await call(await self.finder.game_here(interaction, mine=True), caller_of(interaction))

        result = await within_deadline(interaction, work(), ephemeral=True)
        await send(interaction, ephemeral=True, content=say.short(ack(result), lang=user_language(interaction)))
        if result.game is not None:
            await self.events.after(result.game, result.events)

    async def _show_challenge(self, interaction: Interaction, challenge: Challenge) -> None:
        """Answer with the challenge and its buttons, and record that message with the challenge."""
        lang = channel_language(interaction)
        message_id = await send(
            interaction,
            content=challenge_content(challenge, lang),
            view=challenge_controls(challenge, lang),
            allowed_mentions=MENTIONS,
        )
        if message_id is not None:
            where = MessageRef.of(interaction.channel_id or challenge.channel_id, message_id)
            await self.service.set_challenge_message(challenge.id, where.channel_id, where.message_id)

    # -- commands -------------------------------------------------------------------------------------------------

    @app_commands.command(description=_("Play against the AI"))
    @app_commands.describe(
        level=_("How strong the AI plays"),
        colour=_("Your side (Black moves first)"),
        think=_("The AI's thinking time in seconds a move"),
        **NEW_GAME_OPTIONS,
    )
    @app_commands.choices(colour=COLOUR_CHOICES)
    @app_commands.autocomplete(level=level_choices, variant=variant_choices)
    async def play(
        self,
        interaction: Interaction,
        level: str | None = None,
        colour: str = "black",
        variant: str = "american",
        position: app_commands.Range[str, 1, 200] | None = None,
        think: app_commands.Range[float, 0.01] | None = None,  # the service caps it (AI_THINK_TIME_MAX)
    ) -> None:
        level = level or default_level()

        def start(room: CommandThread | None) -> Awaitable[Result]:
            me = caller_of(interaction)
            return self.service.play_ai(
                *me.where,
                me.user,
                level,
                color=colour,
                variant=variant,
                fen=position,
                think_time=think,
                room=room,
                request=me.request,
                place=me.place,
            )

        await self._open(interaction, start, thread_name(interaction.user.display_name, f"AI ({level})"))

    @app_commands.command(description=_("Train an ending against perfect defence from the endgame databases"))
    @app_commands.describe(ending=_("Which ending"), difficulty=_("How long the win of a random ending is"))
    @app_commands.choices(ending=_endgame.ENDING_CHOICES, difficulty=_endgame.DIFFICULTY_CHOICES)
    async def endgame(self, interaction: Interaction, ending: str = "two_kings", difficulty: str = "medium") -> None:
        await self._open(interaction, *_endgame.starter(self.service, interaction, ending, difficulty))

    @app_commands.command(description=_("Challenge someone to a rated game"))
    @app_commands.describe(
        opponent=_("Who you want to play (leave it out: anyone here may accept)"),
        turn_time=_("Time for each move"),
        **NEW_GAME_OPTIONS,
    )
    @app_commands.choices(turn_time=TURN_TIMES)
    @app_commands.autocomplete(variant=variant_choices)
    async def challenge(
        self,
        interaction: Interaction,
        opponent: discord.User | None = None,
        variant: str = "american",
        turn_time: int | None = None,
        position: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        if opponent is not None and opponent.bot:
            raise Refusal(say.CHALLENGE_A_BOT)
        me, own_room = caller_of(interaction), threads_allowed(interaction, self.game_threads)  # opened on acceptance
        work = self.service.challenge(
            *me.where,
            me.user,
            user_of(opponent) if opponent is not None else None,  # None: anyone here may accept
            variant=variant,
            turn_time=turn_time,
            fen=position,
            own_room=own_room,
            request=me.request,
            place=me.place,
        )
        result = await within_deadline(interaction, work)
        assert result.challenge is not None
        await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description=_("Play a move by typing it, e.g. 11-15 or 15x24"))
    @app_commands.describe(move=_("Your move: 11-15 or f6-e5, a capture 15x24 or e5xc3, a multi-jump 1x10x19"))
    async def move(self, interaction: Interaction, move: app_commands.Range[str, 1, 60]) -> None:
        if await self.puzzles.typed_move(interaction, move):  # a puzzle going, and no game of theirs here
            return
        def call(view: GameView, me: Caller) -> Awaitable[Result]:
            return self.service.move(view.id, me.guild, me.user, move.strip(), request=me.request)

        def ack(result: Result) -> Text:
            played = next((e.move for e in result.events if isinstance(e, MovePlayed)), None)
            if played is None or result.game is None:
                return _("You played {move}.", move=move)
            return _(
                "You played {move} ({algebraic}).", move=played, algebraic=algebraic(result.game.game.variant, played)
            )

        await self._act(interaction, call, ack)

    @move.autocomplete("move")
    async def _move_choices(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        try:
            view = await self.finder.game_here(interaction, mine=True)
        except (Refusal, ServiceError):
            return await self.puzzles.move_choices(interaction, current)  # no game here: the puzzle's, if any
        return move_choices(view, caller_id(interaction), current)

    puzzle, daily = PuzzleCommands.puzzle, PuzzleCommands.daily  # in the list here, after move

    @app_commands.command(description=_("Show the board of this channel's game"))
    @app_commands.describe(text=_("A plain-text board and the legal moves, for screen readers (only you see it)"))
    async def board(self, interaction: Interaction, text: bool = False) -> None:
        view = await within_deadline(interaction, self.finder.game_here(interaction, mine=False), ephemeral=text)
        if text:
            await send(interaction, ephemeral=True, content=text_board(view, user_language(interaction)))
        elif str(interaction.channel_id) == view.game.channel_id:
            await self._post_board(interaction, view)  # in the game's own channel or thread: its board again
        else:  # elsewhere a copy without controls, never wired to the game's updates or pings
            lang, bottom = channel_language(interaction), bottom_side(view.game, caller_id(interaction))
            board = board_message(view, theme=self.themes.current, lang=lang, bottom=bottom)
            await send(interaction, **board.copy_fields())

    @app_commands.command(description=_("Resign your game in this channel (you confirm with a second button)"))
    async def resign(self, interaction: Interaction) -> None:
        view = await within_deadline(interaction, self.finder.game_here(interaction, mine=True), ephemeral=True)
        await self.clicks.ask_resign(interaction, view)

    @app_commands.command(description=_("Offer a draw, or accept your opponent's offer"))
    async def draw(self, interaction: Interaction) -> None:
        def call(view: GameView, me: Caller) -> Awaitable[Result]:  # an offer answering the opponent's accepts it
            return self.service.offer_draw(view.id, me.guild, me.user, request=me.request)

        def ack(result: Result) -> Text:
            ended = result.game is not None and not result.game.game.is_active
            return _("You accepted the draw.") if ended else _("You offered a draw.")

        await self._act(interaction, call, ack)

    @app_commands.command(description=_("Take back your last move (your opponent must agree)"))
    async def takeback(self, interaction: Interaction) -> None:
        def call(view: GameView, me: Caller) -> Awaitable[Result]:
            return self.service.takeback(view.id, me.guild, me.user, request=me.request)

        def ack(result: Result) -> Text:
            if result.game is None or any(isinstance(e, TakebackDone) for e in result.events):
                return _("You took back your last move.")
            game = result.game.game
            me = game.color_of(caller_id(interaction))
            return say.takeback_asked(game.player(me.opponent).name if me is not None else _("your opponent"))

        await self._act(interaction, call, ack)

    @app_commands.command(description=_("Play your last game again with colours swapped"))
    async def rematch(self, interaction: Interaction) -> None:
        uid = caller_id(interaction)

        async def start(room: CommandThread | None) -> Result:
            game = await self.finder.last_game(interaction, uid)
            if room is not None:  # colours swapped
                room.name = thread_name(game.white.name, game.black.name)
            me = caller_of(interaction)
            return await self.service.rematch(
                game.id, me.guild, me.user, channel_id=me.channel, room=room, request=me.request, place=me.place
            )

        result = await self._open(interaction, start, thread_name(interaction.user.display_name, "rematch"))
        if result.game is None:
            assert result.challenge is not None
            await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description=_("The best rated players"))
    @app_commands.describe(
        scope=_("This server's ladder or everyone's"),
        variant=_("The rules"),
        season=_("One of this server's seasons: its ladder alone"),
    )
    @app_commands.choices(scope=SCOPE_CHOICES)
    @app_commands.autocomplete(variant=variant_choices)
    async def leaderboard(
        self,
        interaction: Interaction,
        scope: str = "server",
        variant: str = "american",
        season: app_commands.Range[int, 1, 100_000] | None = None,
    ) -> None:
        await _seasons.leaderboard(interaction, self.service, self.links, scope, variant, season)

    @leaderboard.autocomplete("season")
    async def _season_choices(self, interaction: Interaction, current: str) -> list[Choice[int]]:
        return await _seasons.season_choices(self.service, interaction, current)

    season = app_commands.Group(name="season", description=_("This server's seasons: ladders that start afresh"))

    @season.command(name="start", description=_("Start this server's next season (a server manager)"))
    @app_commands.describe(name=_("The season's name"))
    async def season_start(self, interaction: Interaction, name: app_commands.Range[str, 1, 60] | None = None) -> None:
        await _seasons.start(interaction, self.service, name)

    @season.command(name="list", description=_("This server's seasons and when each started"))
    async def season_list(self, interaction: Interaction) -> None:
        await _seasons.show(interaction, self.service)

    @app_commands.command(description=_("A player's rating and record"))
    @app_commands.describe(user=_("Whose statistics (you by default)"), variant=_("The rules"))
    @app_commands.autocomplete(variant=variant_choices)
    async def stats(
        self, interaction: Interaction, user: discord.User | None = None, variant: str = "american"
    ) -> None:
        await _records.stats(interaction, self.service, user, variant)

    @app_commands.command(description=_("A player's recent games"))
    @app_commands.describe(user=_("Whose games (you by default)"))
    async def history(self, interaction: Interaction, user: discord.User | None = None) -> None:
        await _records.history(interaction, self.service, self.links, user)

    @app_commands.command(description=_("Download a game as PDN"))
    @app_commands.describe(game=_("The game id (this channel's game, or your last one, by default)"))
    async def export(self, interaction: Interaction, game: app_commands.Range[str, 1, 40] | None = None) -> None:
        await _export.export(interaction, self.service, self.finder, game)

    @app_commands.command(description=_("Review a finished game: each player's accuracy, mistakes and better moves"))
    @app_commands.describe(game=_("The game id (your last finished game here, or your last one, by default)"))
    async def analyse(self, interaction: Interaction, game: app_commands.Range[str, 1, 40] | None = None) -> None:
        await self.reviews.on_command(interaction, GameId(game.strip()) if game is not None else None)

    @app_commands.command(description=_("Watch two AI levels play each other"))
    @app_commands.describe(level_a=_("The AI playing Black"), level_b=_("The AI playing White"), variant=_("The rules"))
    @app_commands.autocomplete(level_a=level_choices, level_b=level_choices, variant=variant_choices)
    async def watch(self, interaction: Interaction, level_a: str, level_b: str, variant: str = "american") -> None:
        server_only(interaction)  # its moves come on a timer, with no click to show them where the bot is not
        def start(room: CommandThread | None) -> Awaitable[Result]:
            me = caller_of(interaction)
            return self.service.exhibition(*me.where, level_a, level_b, variant=variant, room=room, request=me.request)

        await self._open(interaction, start, thread_name(f"AI ({level_a})", f"AI ({level_b})"))

    @app_commands.command(description=_("See what King Me stores about you, and delete it"))
    async def privacy(self, interaction: Interaction) -> None:
        await _privacy.show(interaction, self.service)

    @app_commands.command(description=_("How to play, and every command"))
    async def help(self, interaction: Interaction) -> None:
        lang = user_language(interaction)
        await _help.show(interaction, command_list(lang) + tournament_commands(lang), lang)


def command_list(lang: Language = ENGLISH) -> list[tuple[str, str]]:
    """Every ``/checkers`` subcommand as registered (see :func:`bot.games._help.command_list`)."""
    return _help.command_list(GamesCog.__cog_app_commands__, lang)
