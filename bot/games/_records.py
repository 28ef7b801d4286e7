"""A player's rating and record (``/checkers stats``) and recent games (``/checkers history``), shown only to the
asker. Where the bot is not a member of the server (or outside any server) there is no server's ladder: the stats show
everyone's alone."""

from __future__ import annotations

from typing import Any

import discord

from bot.games._announce import PublicLinks
from bot.games._dispatch import as_user, guild_of
from bot.games._locale import user_language
from bot.games._puzzle_view import puzzle_field
from bot.games._render import history_line, stats_embed
from bot.games._respond import send, within_deadline
from bot.service import GameService

Interaction = discord.Interaction[Any]


async def stats(
    interaction: Interaction, service: GameService, user: discord.User | discord.Member | None, variant: str
) -> None:
    target = user or interaction.user
    guild = guild_of(interaction)

    async def work() -> list[discord.Embed]:
        name, lang = target.display_name, user_language(interaction)  # the store knows the names of players only
        everyone = stats_embed(await service.stats(as_user(target.id), variant, None), True, name, lang)
        puzzle_field(everyone, await service.puzzles.player(as_user(target.id)), lang)
        if guild is None:
            return [everyone]
        here = await service.stats(as_user(target.id), variant, guild)
        return [stats_embed(here, False, name, lang), everyone]

    embeds = await within_deadline(interaction, work(), ephemeral=True)
    await send(interaction, ephemeral=True, embeds=embeds)


async def history(
    interaction: Interaction, service: GameService, links: PublicLinks, user: discord.User | discord.Member | None
) -> None:
    target = user or interaction.user
    games = await within_deadline(interaction, service.history(as_user(target.id), 10), ephemeral=True)
    lang = user_language(interaction)
    lines = [history_line(g, as_user(target.id), lang, links.game(g.id)) for g in games]
    lines = lines or [lang._("No finished games yet.")]
    title = lang._("Recent games of {name}", name=target.display_name)
    embed = discord.Embed(title=title, description="\n".join(lines)[:4000])
    await send(interaction, ephemeral=True, embed=embed)
