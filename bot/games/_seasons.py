"""A server's seasons on Discord: ``/checkers season start`` and ``list``, and ``/checkers leaderboard season:N``.

The commands are the ``/checkers`` cog's (a subgroup of it, so they pass its rate limits and have their errors told by
its reporter); the work and the words are here. A season is started by a member who can manage the server and
announced to the channel; its ladder is that server's rated games from its start to the next season's.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.games._announce import PublicLinks
from bot.games._anywhere import server_only
from bot.games._dispatch import NO_GUILD, guild_of
from bot.games._fit import CHOICE_NAME, shortened
from bot.games._locale import channel_language, user_language
from bot.games._messages import Refusal
from bot.games._render import leaderboard_embed, leaderboard_title, slash, slash_name
from bot.games._respond import send, within_deadline
from bot.games._theme import ACTIVE_COLOUR
from bot.i18n import ENGLISH, Language, _
from bot.service import GameService, LeaderboardEntry, Season, ServiceError

Interaction = discord.Interaction[Any]
Choice = app_commands.Choice

MANAGERS_ONLY = _("only a member who can manage the server starts a season")
SERVER_ONLY = _("a season's ladder is this server's own: ask for it with the scope This server")


def season_label(season: Season, lang: Language = ENGLISH) -> str:
    """``Season 2``, or ``Season 2: Spring cup`` when the season has a name of its own."""
    label = lang._("Season {number}", number=season.number)
    if season.name == str(_("Season {number}", number=season.number)):  # the name a season gets by default
        return label
    return lang._("{season}: {name}", season=label, name=season.name)


def started_text(season: Season, lang: Language = ENGLISH) -> str:
    """The channel's news of a new season."""
    command = f"`{slash(lang, 'leaderboard')} {slash_name(lang, 'season')}:{season.number}`"
    text = lang._(
        "🏆 **{season}** starts now: from now on this server's rated games count on its ladder ({command}).",
        season=season_label(season, lang),
        command=command,
    )
    if season.number > 1:
        text += " " + lang._("Season {number} is kept as it ended.", number=season.number - 1)
    return text


def seasons_embed(seasons: list[Season], current: Season | None, lang: Language = ENGLISH) -> discord.Embed:
    """The server's seasons, newest first, each with its start date; the current one marked."""
    embed = discord.Embed(title=lang._("This server's seasons"), colour=ACTIVE_COLOUR)
    if not seasons:
        embed.description = lang._(
            "No season yet: a member who can manage the server starts one with {command}.",
            command=f"`{slash(lang, 'season')} {slash_name(lang, 'start')}`",
        )
        return embed
    lines = []
    for season in reversed(seasons[-50:]):
        line = f"**{season_label(season, lang)}** · <t:{int(season.started_at)}:D>"
        if current is not None and season.number == current.number:
            line += " · " + lang._("current")
        lines.append(line)
    embed.description = "\n".join(lines)
    return embed


async def start(interaction: Interaction, service: GameService, name: str | None) -> None:
    """``/checkers season start``: the server's next season, announced to the channel (managers only)."""
    server_only(interaction)
    if not interaction.permissions.manage_guild:
        raise Refusal(MANAGERS_ONLY)
    season = await within_deadline(interaction, service.seasons.start(guild_of(interaction) or NO_GUILD, name))
    await send(interaction, content=started_text(season, channel_language(interaction)))


async def show(interaction: Interaction, service: GameService) -> None:
    """``/checkers season list``: the server's seasons, only to the asker."""
    server_only(interaction)
    guild = guild_of(interaction) or NO_GUILD

    async def work() -> tuple[list[Season], Season | None]:
        return await service.seasons.all(guild), await service.seasons.current(guild)

    seasons, current = await within_deadline(interaction, work(), ephemeral=True)
    await send(interaction, ephemeral=True, embed=seasons_embed(seasons, current, user_language(interaction)))


async def leaderboard(
    interaction: Interaction, service: GameService, links: PublicLinks, scope: str, variant: str, number: int | None
) -> None:
    """``/checkers leaderboard``: the server's ladder, everyone's, or one season's of the server (``number``); where
    the bot is not a member of the server (or outside one) everyone's, the only ladder there, and no season."""
    guild = guild_of(interaction) if scope == "server" else None
    if number is not None:
        server_only(interaction)
    if number is not None and guild is None:
        raise Refusal(SERVER_ONLY)

    async def work() -> tuple[list[LeaderboardEntry], Season | None]:
        season = await service.seasons.get(guild, number) if guild is not None and number is not None else None
        return await service.leaderboard(variant, guild, 10, season=number), season

    entries, season = await within_deadline(interaction, work())
    lang = channel_language(interaction)  # the leaderboard is shown to everyone in the channel
    if season is not None:  # a season has no public page
        title, url = leaderboard_title(lang, variant, everyone=False, season=season_label(season, lang)), None
    else:
        title, url = leaderboard_title(lang, variant, everyone=guild is None), links.leaderboard(guild, variant)
    await send(interaction, embed=leaderboard_embed(entries, title, url, lang))


async def season_choices(service: GameService, interaction: Interaction, current: str) -> list[Choice[int]]:
    """The server's seasons whose number or name holds what was typed, newest first."""
    guild = guild_of(interaction)
    if guild is None:
        return []
    try:
        seasons = await service.seasons.all(guild)
    except ServiceError:
        return []
    lang, needle = user_language(interaction), str(current or "").strip().lower()
    labels = ((s.number, season_label(s, lang)) for s in reversed(seasons))
    return [Choice(name=shortened(label, CHOICE_NAME), value=n) for n, label in labels if needle in label.lower()][:25]
