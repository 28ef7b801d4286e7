"""The ``/checkers`` slash commands: each finds its game, calls the game service and shows what it returns.

The cog is the front door of the checkers feature and owns its rooms: :class:`GameFinder` (the game of a channel),
:class:`BoardKeeper` (where each board is), :class:`Announcer` (the event sink and the messages beside a board) and
:class:`ComponentHandlers` (what a click does). No game state is kept here. Errors are turned into short ephemeral
replies in one place, :meth:`GamesCog.report`, used by both :meth:`cog_app_command_error` and the components.
Every command (not its autocomplete) and every click first passes the rate limits (:meth:`GamesCog.interaction_check`,
:func:`~bot.games._handlers.rate_limited`); one that goes too fast is told when to try again.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from ai.api import levels
from bot.games import _messages as say
from bot.games import _privacy
from bot.games._announce import Announcer, PublicLinks
from bot.games._board import BoardMessage, algebraic, board_message, text_board
from bot.games._components import challenge_controls
from bot.games._emojis import UPLOAD_WAIT, install_tiles, report_failure
from bot.games._finder import GameFinder
from bot.games._handlers import ComponentHandlers, user_of
from bot.games._keeper import BoardKeeper, Where
from bot.games._locale import channel_language, rules_message, user_language
from bot.games._messages import MENTIONS, Refusal
from bot.games._render import (
    busy_refusal,
    challenge_content,
    history_line,
    leaderboard_embed,
    leaderboard_title,
    slash,
    slash_name,
    stats_embed,
    thread_notice,
)
from bot.games._respond import kind_of, metrics_of, send, within_deadline
from bot.games._review import ReviewHandlers
from bot.games._theme import BoardThemes
from bot.games._threads import CommandThread, thread_name, threads_allowed
from bot.i18n import ENGLISH, Language, Text, _
from bot.service import (
    Challenge,
    ChannelBusyError,
    EventKind,
    GameService,
    GameView,
    RateLimitedError,
    Result,
    ServiceError,
)
from bot.settings import Settings
from core import VARIANTS, RulesError

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

COLOUR_CHOICES = [Choice(name=_("Black (moves first)"), value="black"), Choice(name=_("White"), value="white")]
COLOUR_CHOICES.append(Choice(name=_("Random"), value="random"))
SCOPE_CHOICES = [Choice(name=_("This server"), value="server"), Choice(name=_("Everyone"), value="global")]
TURN_TIMES = [
    Choice(name=_("1 minute"), value=60),
    Choice(name=_("5 minutes"), value=300),
    Choice(name=_("15 minutes"), value=900),
    Choice(name=_("1 hour"), value=3600),
    Choice(name=_("12 hours"), value=43200),
    Choice(name=_("1 day"), value=86400),
    Choice(name=_("3 days"), value=259200),
    Choice(name=_("7 days"), value=604800),
]

NEW_GAME_OPTIONS = {"variant": _("The rules to play"), "position": _("A FEN to start from (the game is unrated)")}
"""The descriptions of the options every command that starts a game has."""


class _CheckError(app_commands.CheckFailure):
    """An error of the cog's own check (the rate limits), carried to :meth:`GamesCog.report` as ``original``."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def slow_down(error: RateLimitedError) -> Text:
    """The answer to a command or click over the rate limits: who went too fast, and when to go on (a Discord
    timestamp that each reader sees as "in 3 seconds")."""
    when = f"<t:{math.ceil(error.retry_at)}:R>"
    if error.server:
        return _("Slow down: this server is sending King Me too much at once. Try again {when}.", when=when)
    return _("Slow down: you are going too fast. Try again {when}.", when=when)


def _default_level() -> str:
    return next(iter(levels()))


async def _level_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    needle = current.strip().lower()
    lang = user_language(interaction)
    summaries = ((name, lang.data("level", level.summary)) for name, level in levels().items())
    return [
        Choice(name=f"{name}: {summary}"[:100], value=name)
        for name, summary in summaries
        if needle in name or needle in summary.lower()
    ][:25]


async def _variant_choices(interaction: Interaction, current: str) -> list[Choice[str]]:
    needle = current.strip().lower()
    lang = user_language(interaction)
    titles = ((name, lang.data("variant", variant.title)) for name, variant in VARIANTS.items())
    return [
        Choice(name=f"{title} ({name})"[:100], value=name)
        for name, title in titles
        if needle in name or needle in title.lower()
    ][:25]


@app_commands.guild_only()
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
        self.clicks = ComponentHandlers(service, self.boards, self.events, game_threads=settings.game_threads)
        """What a click on a component does."""
        self.reviews = ReviewHandlers(service, self.finder)
        """``/checkers analyse`` and the clicks on a review's components."""
        bot.add_dynamic_items(_privacy.DeleteMyData)
        super().__init__()

    async def cog_load(self) -> None:
        """Put the board's tiles in place as application emojis, waiting at most :data:`UPLOAD_WAIT` seconds (the rest
        goes on in the background)."""
        self._tiles = asyncio.create_task(install_tiles(self.bot, self.themes), name="kingme-tiles")
        self._tiles.add_done_callback(report_failure)
        await asyncio.wait({self._tiles}, timeout=UPLOAD_WAIT)

    async def cog_unload(self) -> None:
        if self._tiles is not None and not self._tiles.done():
            self._tiles.cancel()

    # -- errors ---------------------------------------------------------------------------------------------------

    async def interaction_check(self, interaction: Interaction) -> bool:
        """Every command passes the rate limits first (discord.py runs no check for autocomplete)."""
        try:
            await self.service.rate_limit(interaction.user.id, interaction.guild_id)
        except Exception as exc:
            raise _CheckError(exc) from exc
        return True

    async def cog_app_command_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        await self.report(interaction, error)

    async def report(self, interaction: Interaction, error: BaseException) -> None:
        """Tell the user why their request failed, in a short ephemeral message."""
        original = getattr(error, "original", error)
        limit = 300
        lang = user_language(interaction)
        text: str
        if isinstance(original, RateLimitedError):
            text = slow_down(original)
        elif isinstance(original, ChannelBusyError):
            text, limit = await self._busy_text(interaction, lang) or original.message, 1000
        elif isinstance(original, ServiceError | Refusal):
            text = rules_message(original.message)  # the service passes on some of the rules' messages
        elif isinstance(original, RulesError):  # a move the rules refuse
            text = rules_message(str(original))
        elif isinstance(original, app_commands.NoPrivateMessage):
            text = say.GUILD_ONLY
        elif isinstance(original, app_commands.TransformerError):
            text = say.bad_option(original.value, original.type)
        else:
            log.error("interaction %s failed", interaction.command, exc_info=original)
            text = say.INTERNAL
        metrics = metrics_of(interaction)
        if metrics is not None:
            metrics.interaction_errors.labels(kind_of(interaction)).inc()
        if interaction.type is discord.InteractionType.autocomplete:
            return
        try:
            await send(interaction, ephemeral=True, content=say.short(text, limit, lang))
        except discord.HTTPException:
            log.warning("could not tell the user about an error in %s", interaction.command)

    async def _busy_text(self, interaction: Interaction, lang: Language) -> str | None:
        """Whose game holds this channel (or thread), with a link to it and how it ends; None if it is gone."""
        try:
            views = await self.service.channel_games(interaction.guild_id or 0, interaction.channel_id or 0)
        except ServiceError:
            return None
        if not views:
            return None
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return busy_refusal(views[0], str(interaction.user.id), parent, lang)

    # -- helpers --------------------------------------------------------------------------------------------------

    async def _post_board(self, interaction: Interaction, view: GameView) -> None:
        """Answer the interaction with a new board message and make it the game's board."""

        async def answer(board: BoardMessage) -> Where:
            message_id = await send(interaction, **board.fields())
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

    async def _act(
        self,
        interaction: Interaction,
        call: Callable[[GameView], Awaitable[Result]],
        ack: Callable[[Result], Text],
    ) -> None:
        """Do ``call`` in the user's game of this channel, acknowledge it privately and show it on the board."""

        async def work() -> Result:
            return await call(await self.finder.game_here(interaction, mine=True))

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
            channel_id = interaction.channel_id or int(challenge.channel_id)
            await self.service.set_challenge_message(challenge.id, channel_id, message_id)

    # -- commands -------------------------------------------------------------------------------------------------

    @app_commands.command(description=_("Play against the AI"))
    @app_commands.describe(
        level=_("How strong the AI plays"),
        colour=_("Your side (Black moves first)"),
        think=_("The AI's thinking time in seconds a move"),
        **NEW_GAME_OPTIONS,
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
        level = level or _default_level()

        def start(room: CommandThread | None) -> Awaitable[Result]:
            return self.service.play_ai(
                interaction.guild_id or 0,
                interaction.channel_id or 0,
                user_of(interaction.user),
                level,
                color=colour,
                variant=variant,
                fen=position,
                think_time=think,
                room=room,
            )

        await self._open(interaction, start, thread_name(interaction.user.display_name, f"AI ({level})"))

    @app_commands.command(description=_("Challenge someone to a rated game"))
    @app_commands.describe(opponent=_("Who you want to play"), turn_time=_("Time for each move"), **NEW_GAME_OPTIONS)
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
            user_of(interaction.user),
            user_of(opponent),
            variant=variant,
            turn_time=turn_time,
            fen=position,
            own_room=threads_allowed(interaction, self.game_threads),  # a thread is opened when it is accepted
        )
        result = await within_deadline(interaction, work)
        assert result.challenge is not None
        await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description=_("Play a move by typing it, e.g. 11-15 or 15x24"))
    @app_commands.describe(move=_("Your move: 11-15 or f6-e5, a capture 15x24 or e5xc3, a multi-jump 1x10x19"))
    async def move(self, interaction: Interaction, move: app_commands.Range[str, 1, 60]) -> None:
        def call(view: GameView) -> Awaitable[Result]:
            return self.service.move(view.id, interaction.guild_id, user_of(interaction.user), move.strip())

        def ack(result: Result) -> Text:
            played = next((e.data.get("move") for e in result.events if e.kind is EventKind.MOVE_PLAYED), None)
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
            return []
        if view.to_move.id != str(interaction.user.id):
            return []
        needle = current.strip().lower()
        variant = view.game.variant
        named = ((m, algebraic(variant, m)) for m in view.legal_moves)  # typed in either notation, shown in both
        return [Choice(name=f"{m} ({a})", value=m) for m, a in named if m.startswith(needle) or a.startswith(needle)][
            :25
        ]

    @app_commands.command(description=_("Show the board of this channel's game"))
    @app_commands.describe(text=_("A plain-text board and the legal moves, for screen readers (only you see it)"))
    async def board(self, interaction: Interaction, text: bool = False) -> None:
        view = await within_deadline(interaction, self.finder.game_here(interaction, mine=False), ephemeral=text)
        if text:
            await send(interaction, ephemeral=True, content=text_board(view, user_language(interaction)))
        elif str(interaction.channel_id) == view.game.channel_id:
            await self._post_board(interaction, view)  # in the game's own channel or thread: its board again
        else:  # elsewhere a copy without controls, never wired to the game's updates or pings
            board = board_message(view, theme=self.themes.current, lang=channel_language(interaction))
            await send(interaction, **board.copy_fields())

    @app_commands.command(description=_("Resign your game in this channel (you confirm with a second button)"))
    async def resign(self, interaction: Interaction) -> None:
        view = await within_deadline(interaction, self.finder.game_here(interaction, mine=True), ephemeral=True)
        await self.clicks.ask_resign(interaction, view)

    @app_commands.command(description=_("Offer a draw, or accept your opponent's offer"))
    async def draw(self, interaction: Interaction) -> None:
        def call(view: GameView) -> Awaitable[Result]:  # an offer answering the opponent's offer accepts it
            return self.service.offer_draw(view.id, interaction.guild_id, user_of(interaction.user))

        def ack(result: Result) -> Text:
            ended = result.game is not None and not result.game.game.is_active
            return _("You accepted the draw.") if ended else _("You offered a draw.")

        await self._act(interaction, call, ack)

    @app_commands.command(description=_("Take back your last move (your opponent must agree)"))
    async def takeback(self, interaction: Interaction) -> None:
        def call(view: GameView) -> Awaitable[Result]:
            return self.service.takeback(view.id, interaction.guild_id, user_of(interaction.user))

        def ack(result: Result) -> Text:
            if result.game is None or any(e.kind is EventKind.TAKEBACK_DONE for e in result.events):
                return _("You took back your last move.")
            game = result.game.game
            me = game.color_of(str(interaction.user.id))
            return say.takeback_asked(game.player(me.opponent).name if me is not None else _("your opponent"))

        await self._act(interaction, call, ack)

    @app_commands.command(description=_("Play your last game again with colours swapped"))
    async def rematch(self, interaction: Interaction) -> None:
        uid = str(interaction.user.id)

        async def start(room: CommandThread | None) -> Result:
            game = await self.finder.last_game(interaction, uid)
            if room is not None:  # colours swapped
                room.name = thread_name(game.white.name, game.black.name)
            me = user_of(interaction.user)
            where = interaction.channel_id
            return await self.service.rematch(game.id, interaction.guild_id, me, channel_id=where, room=room)

        result = await self._open(interaction, start, thread_name(interaction.user.display_name, "rematch"))
        if result.game is None:
            assert result.challenge is not None
            await self._show_challenge(interaction, result.challenge)

    @app_commands.command(description=_("The best rated players"))
    @app_commands.describe(scope=_("This server's ladder or everyone's"), variant=_("The rules"))
    @app_commands.choices(scope=SCOPE_CHOICES)
    @app_commands.autocomplete(variant=_variant_choices)
    async def leaderboard(self, interaction: Interaction, scope: str = "server", variant: str = "american") -> None:
        guild = interaction.guild_id if scope == "server" else None
        entries = await within_deadline(interaction, self.service.leaderboard(variant, guild, 10))
        lang = channel_language(interaction)  # the leaderboard is shown to everyone in the channel
        title = leaderboard_title(lang, variant, everyone=guild is None)
        url = self.links.leaderboard(guild, variant)
        await send(interaction, embed=leaderboard_embed(entries, title, url, lang))

    @app_commands.command(description=_("A player's rating and record"))
    @app_commands.describe(user=_("Whose statistics (you by default)"), variant=_("The rules"))
    @app_commands.autocomplete(variant=_variant_choices)
    async def stats(
        self, interaction: Interaction, user: discord.User | None = None, variant: str = "american"
    ) -> None:
        target = user or interaction.user

        async def work() -> list[discord.Embed]:
            here = await self.service.stats(target.id, variant, interaction.guild_id)
            everyone = await self.service.stats(target.id, variant, None)
            name = target.display_name  # the store knows the names of players only
            lang = user_language(interaction)
            return [stats_embed(here, False, name, lang), stats_embed(everyone, True, name, lang)]

        embeds = await within_deadline(interaction, work(), ephemeral=True)
        await send(interaction, ephemeral=True, embeds=embeds)

    @app_commands.command(description=_("A player's recent games"))
    @app_commands.describe(user=_("Whose games (you by default)"))
    async def history(self, interaction: Interaction, user: discord.User | None = None) -> None:
        target = user or interaction.user
        games = await within_deadline(interaction, self.service.history(target.id, 10), ephemeral=True)
        lang = user_language(interaction)
        lines = [history_line(g, str(target.id), lang) for g in games] or [lang._("No finished games yet.")]
        title = lang._("Recent games of {name}", name=target.display_name)
        embed = discord.Embed(title=title, description="\n".join(lines)[:4000])
        await send(interaction, ephemeral=True, embed=embed)

    @app_commands.command(description=_("Download a game as PDN"))
    @app_commands.describe(game=_("The game id (this channel's game, or your last one, by default)"))
    async def export(self, interaction: Interaction, game: app_commands.Range[str, 1, 40] | None = None) -> None:
        async def work() -> tuple[str, GameView]:
            if game is not None:
                game_id = game.strip()
            else:
                try:
                    game_id = (await self.finder.game_here(interaction, mine=False)).id
                except Refusal:
                    game_id = (await self.finder.last_game(interaction, str(interaction.user.id))).id
            return await self.service.pdn(game_id, interaction.guild_id), await self.service.state(game_id)

        pdn, view = await within_deadline(interaction, work(), ephemeral=True)
        shown = pdn if len(pdn) < 1500 else pdn[:1500] + "\n…"
        heading = user_language(interaction)._(
            "Game {game} · position now: {fen}", game=f"`{view.id}`", fen=f"`{view.fen}`"
        )
        content = f"{heading}\n```\n{shown}\n```"
        file = discord.File(io.BytesIO(pdn.encode()), filename=f"kingme-{view.id}.pdn")
        await send(interaction, ephemeral=True, content=content, file=file)

    @app_commands.command(description=_("Review a finished game: each player's accuracy, mistakes and better moves"))
    @app_commands.describe(game=_("The game id (your last finished game here, or your last one, by default)"))
    async def analyse(self, interaction: Interaction, game: app_commands.Range[str, 1, 40] | None = None) -> None:
        await self.reviews.on_command(interaction, game)

    @app_commands.command(description=_("Watch two AI levels play each other"))
    @app_commands.describe(level_a=_("The AI playing Black"), level_b=_("The AI playing White"), variant=_("The rules"))
    @app_commands.autocomplete(level_a=_level_choices, level_b=_level_choices, variant=_variant_choices)
    async def watch(self, interaction: Interaction, level_a: str, level_b: str, variant: str = "american") -> None:
        def start(room: CommandThread | None) -> Awaitable[Result]:
            where = (interaction.guild_id or 0, interaction.channel_id or 0)
            return self.service.exhibition(*where, level_a, level_b, variant=variant, room=room)

        await self._open(interaction, start, thread_name(f"AI ({level_a})", f"AI ({level_b})"))

    @app_commands.command(description=_("See what King Me stores about you, and delete it"))
    async def privacy(self, interaction: Interaction) -> None:
        await _privacy.show(interaction, self.service)

    @app_commands.command(description=_("How to play, and every command"))
    async def help(self, interaction: Interaction) -> None:
        await send(interaction, ephemeral=True, embed=help_embed(user_language(interaction)))


def command_list(lang: Language = ENGLISH) -> list[tuple[str, str]]:
    """Every ``/checkers`` subcommand as registered, with its options (optional ones in brackets) and description
    (in English: :func:`help_embed` says it in the reader's language), the names as ``lang``'s Discord client shows
    them: the source of ``/checkers help`` and of the README's command list."""

    rows = []
    for command in GamesCog.__cog_app_commands__:
        if isinstance(command, app_commands.Command):
            named = (
                slash_name(lang, p.name) if p.required else f"[{slash_name(lang, p.name)}]" for p in command.parameters
            )
            usage = f"{slash(lang, command.name)} {' '.join(named)}".strip()
            rows.append((usage, command.description))
    return rows


def help_embed(lang: Language = ENGLISH) -> discord.Embed:
    commands_text = "\n".join(f"`{usage}`: {lang.say(Text(text))}" for usage, text in command_list(lang))
    description = f"{lang.say(say.MOVE_HINT)}\n\n**{lang._('Commands')}**\n{commands_text}"
    embed = discord.Embed(title=lang._("King Me: checkers on Discord"), description=description[:4096])
    level_text = "\n".join(f"**{name}**: {lang.data('level', level.summary)}" for name, level in levels().items())
    embed.add_field(name=lang._("AI levels"), value=level_text[:1024], inline=False)
    variant_text = ", ".join(f"{lang.data('variant', v.title)} (`{name}`)" for name, v in VARIANTS.items())
    embed.add_field(name=lang._("Variants"), value=variant_text[:1024], inline=False)
    return embed
