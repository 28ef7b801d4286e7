"""The ``/tournament`` slash commands and the clicks on a tournament's announcement: the tournament feature's front
door, beside the ``/checkers`` cog.

Each command acts on the live tournament of its channel (or of the channel whose thread it is used in) and calls one
method of :attr:`GameService.tournaments <bot.service.GameService.tournaments>`; what it says to the person who asked
is ephemeral, what the channel must see is posted there (the announcement, the round's pairings, the standings). The
cog gives the service its rooms (:class:`~bot.games._threads.TournamentRooms`: a thread per game) and its news
(:class:`~bot.games._tournament_news.TournamentNews`, attached to the event relay beside the games' announcer). Like
every command and click, these pass the rate limits first (:func:`~bot.games._report.check_rates`, the dispatcher)
and have their errors told once, ephemerally, by the one reporter.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games import _help
from bot.games import _messages as say
from bot.games._choices import TURN_TIMES, level_choices, variant_choices
from bot.games._dispatch import (
    NO_GUILD,
    as_channel,
    attach_tournaments,
    caller_of,
    channel_of,
    guild_of,
    user_of,
)
from bot.games._locale import channel_language, user_language
from bot.games._messages import Refusal
from bot.games._report import Reporter, check_rates
from bot.games._respond import send, update, within_deadline
from bot.games._threads import TournamentRooms
from bot.games._tournament_news import TournamentLinks, TournamentNews
from bot.games._tournament_render import announcement, contents, pairing_lines, standings_embeds
from bot.i18n import ENGLISH, Language, Text, _
from bot.service import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    GameService,
    MatchKind,
    MessageId,
    PlayerRef,
    TournamentFormat,
    TournamentId,
    TournamentRecord,
    User,
    tournament_standings,
)
from bot.settings import Settings

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice
Call = Callable[[TournamentRecord, User], Awaitable[TournamentRecord]]

NO_TOURNAMENT_HERE = _("there is no tournament in this channel: open one with `/tournament create`")
NOT_PAIRED = _("the tournament has not started: no round is paired yet")
IN_A_THREAD = _("open a tournament in a text channel, not in a thread")
FORMAT_CHOICES = [
    Choice(name=_("Swiss"), value="swiss"),
    Choice(name=_("Round robin"), value="round_robin"),
    Choice(name=_("Arena: as many games as you can play in its time"), value="arena"),
]
START_FORMAT = "%Y-%m-%d %H:%M"
BAD_START = _("give the start as YYYY-MM-DD HH:MM, in UTC (for example 2026-12-24 18:00)")
MATCH_CHOICES = [
    Choice(name=_("Ballot matches: two games of one opening, colours swapped"), value="ballot"),
    Choice(name=_("Single games"), value="single"),
]


@app_commands.guild_only()  # a tournament posts its rounds and opens threads: only where the bot is a member
@app_commands.allowed_installs(guilds=True, users=False)
class TournamentCog(
    commands.GroupCog,
    name="Tournaments",
    group_name="tournament",
    group_description=_("Checkers tournaments: Swiss or round robin"),
):
    """Tournaments in a channel: entries, the start, the rounds' pairings and the standings."""

    def __init__(self, bot: commands.Bot, service: GameService, settings: Settings, links: TournamentLinks) -> None:
        self.bot = bot
        self.service = service
        self.links = links
        """Links to the tournaments' public pages (none without ``PUBLIC_BASE_URL``)."""
        self.news = TournamentNews(bot, service, links)
        """The tournaments' event sink on Discord, and their announcements."""
        self.rooms = TournamentRooms(bot, service, enabled=settings.game_threads)
        self.reporter = Reporter(service)
        super().__init__()

    async def cog_load(self) -> None:
        """From now on the service opens each tournament game a thread here, and the announcements' clicks come to
        :meth:`on_tournament_button` through the dispatcher."""
        attach_tournaments(self.bot, self)
        self.service.tournaments.rooms = self.rooms

    async def cog_unload(self) -> None:
        attach_tournaments(self.bot, None)
        if self.service.tournaments.rooms is self.rooms:
            self.service.tournaments.rooms = None

    async def interaction_check(self, interaction: Interaction) -> bool:
        return await check_rates(self.service, interaction)

    async def cog_app_command_error(self, interaction: Interaction, error: app_commands.AppCommandError) -> None:
        await self.reporter.report(interaction, error)

    # -- helpers --------------------------------------------------------------------------------------------------

    async def _here(self, interaction: Interaction) -> TournamentRecord:
        """The live tournament of this channel, or of the channel whose thread this is (a game's thread)."""
        guild, channel = guild_of(interaction) or NO_GUILD, interaction.channel
        record = await self.service.tournaments.in_channel(guild, channel_of(interaction))
        if record is None and isinstance(channel, discord.Thread) and channel.parent_id is not None:
            record = await self.service.tournaments.in_channel(guild, as_channel(channel.parent_id))
        if record is None:
            raise Refusal(NO_TOURNAMENT_HERE)
        return record

    async def _act(self, interaction: Interaction, call: Call, ack: Callable[[TournamentRecord], Text]) -> None:
        """Do ``call`` to this channel's tournament, acknowledge it privately and show the change on the
        announcement."""

        async def work() -> TournamentRecord:
            return await call(await self._here(interaction), user_of(interaction.user))

        record = await within_deadline(interaction, work(), ephemeral=True)
        await send(interaction, ephemeral=True, content=say.short(ack(record), lang=user_language(interaction)))
        await self.news.show(record.id)

    # -- commands -------------------------------------------------------------------------------------------------

    @app_commands.command(description=_("Open a tournament in this channel: people enter with its Join button"))
    @app_commands.describe(
        name=_("The tournament's name"),
        format=_("Swiss: players with equal scores meet; round robin: everyone meets everyone"),
        rounds=_("A Swiss's rounds (a round robin has one fewer than its players)"),
        match=_("What each pairing plays"),
        variant=_("The rules"),
        turn_time=_("Time for each move"),
        rated=_("Whether games between people change their ratings"),
        max_players=_("The most players who may enter"),
        ai_allowed=_("Whether the creator may enter AI levels"),
        minutes=_("An arena's length in minutes"),
        start=_("When it starts by itself: YYYY-MM-DD HH:MM in UTC (else when its creator starts it)"),
    )
    @app_commands.choices(format=FORMAT_CHOICES, match=MATCH_CHOICES)
    @app_commands.choices(turn_time=TURN_TIMES)
    @app_commands.autocomplete(variant=variant_choices)
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 100] | None = None,
        format: str = "swiss",
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] = 3,
        match: str = "ballot",
        variant: str = "american",
        turn_time: int | None = None,
        rated: bool = True,
        max_players: app_commands.Range[int, MIN_PLAYERS, MAX_PLAYERS] = 32,
        ai_allowed: bool = False,
        minutes: app_commands.Range[int, 5, 240] = 30,
        start: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        if isinstance(interaction.channel, discord.Thread):
            raise Refusal(IN_A_THREAD)
        me = caller_of(interaction)
        try:
            starts_at = None if start is None else datetime.strptime(start.strip(), START_FORMAT).replace(tzinfo=UTC)
        except ValueError:
            raise Refusal(BAD_START) from None
        work = self.service.tournaments.create(
            *me.where,
            me.user,
            name=name,
            format=TournamentFormat(format),
            rounds=rounds,
            match=MatchKind(match),
            variant=variant,
            turn_time=turn_time,
            rated=rated,
            max_players=max_players,
            ai_allowed=ai_allowed,
            minutes=minutes,
            starts_at=starts_at.timestamp() if starts_at is not None else None,
        )
        record = await within_deadline(interaction, work)
        page = self.links.tournament(record.id)
        message_id = await send(interaction, **announcement(record, channel_language(interaction), page))
        if message_id is not None:
            where = MessageId(str(message_id))
            recorded = await self.service.tournaments.set_message(record.id, me.channel, where)
            if recorded.version != record.version + 1:  # entries came meanwhile: the announcement shows them
                await self.news.show(record.id)

    @app_commands.command(description=_("Enter this channel's tournament"))
    async def join(self, interaction: Interaction) -> None:
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.join(record.id, user),
            _entered,
        )

    @app_commands.command(description=_("Leave this channel's tournament before it starts"))
    async def leave(self, interaction: Interaction) -> None:
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.leave(record.id, user),
            _left,
        )

    @app_commands.command(name="add-ai", description=_("Enter an AI level in your tournament (its creator)"))
    @app_commands.describe(level=_("How strong the AI plays"))
    @app_commands.autocomplete(level=level_choices)
    async def add_ai(self, interaction: Interaction, level: str) -> None:
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.add_ai(record.id, user, level),
            lambda record: _("{player} entered {name}.", player=PlayerRef.ai(level).name, name=record.name),
        )

    @app_commands.command(description=_("Start the tournament: round 1 is paired (its creator or a server manager)"))
    async def start(self, interaction: Interaction) -> None:
        manager = interaction.permissions.manage_guild
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.start(record.id, user, manager=manager),
            lambda record: _("{name} has started: each round's pairings are posted in its channel.", name=record.name),
        )

    @app_commands.command(description=_("Leave a tournament under way: your games being played are resigned"))
    async def withdraw(self, interaction: Interaction) -> None:
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.withdraw(record.id, user),
            lambda record: _("You withdrew from {name}.", name=record.name),
        )

    @app_commands.command(description=_("Call the tournament off (its creator or a server manager)"))
    async def cancel(self, interaction: Interaction) -> None:
        manager = interaction.permissions.manage_guild
        await self._act(
            interaction,
            lambda record, user: self.service.tournaments.cancel(record.id, user, manager=manager),
            lambda record: _("You cancelled {name}.", name=record.name),
        )

    @app_commands.command(description=_("The tournament's standings: score, tie-breaks and each round's points"))
    async def standings(self, interaction: Interaction) -> None:
        record = await within_deadline(interaction, self._here(interaction))
        for embed in standings_embeds(record, tournament_standings(record.model), channel_language(interaction)):
            await send(interaction, embed=embed)

    @app_commands.command(description=_("The current round's boards, with a link to each game"))
    async def pairings(self, interaction: Interaction) -> None:
        async def work() -> tuple[TournamentRecord, list[str]]:
            record = await self._here(interaction)
            if record.round == 0:
                raise Refusal(NOT_PAIRED)
            games = await self.news.games(record, record.round)
            return record, pairing_lines(record, record.round, games, channel_language(interaction))

        _record, lines = await within_deadline(interaction, work())
        for content in contents(lines):
            await send(interaction, content=content, allowed_mentions=discord.AllowedMentions.none())

    # -- clicks ---------------------------------------------------------------------------------------------------

    async def on_tournament_button(self, interaction: Interaction, action: str, tournament_id: TournamentId) -> None:
        """Join or Leave under an announcement: the message clicked shows the change, the person is told privately."""
        me, tournaments = user_of(interaction.user), self.service.tournaments
        work = tournaments.join(tournament_id, me) if action == "join" else tournaments.leave(tournament_id, me)
        record = await within_deadline(interaction, work)
        await self.news.show(record.id, lambda fields: update(interaction, **fields))
        ack = _entered(record) if action == "join" else _left(record)
        await send(interaction, ephemeral=True, content=say.short(ack, lang=user_language(interaction)))


def _entered(record: TournamentRecord) -> Text:
    return _("You entered {name}.", name=record.name)


def _left(record: TournamentRecord) -> Text:
    return _("You left {name}.", name=record.name)


def tournament_commands(lang: Language = ENGLISH) -> list[tuple[str, str]]:
    """Every ``/tournament`` subcommand as registered (see :func:`bot.games._help.command_list`)."""
    return _help.command_list(TournamentCog.__cog_app_commands__, lang, group="tournament")
