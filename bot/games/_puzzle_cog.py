"""The ``/checkers puzzle`` and ``/checkers daily`` commands, declared here and taken into the ``/checkers`` cog by
name (``puzzle = PuzzleCommands.puzzle``), so they are its own: its rate limits, its reporter, its place in the list.
Their work is :class:`bot.games._puzzles.PuzzleHandlers`'."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games._puzzles import PUZZLE_SOURCES, PuzzleHandlers
from bot.i18n import _

Interaction = discord.Interaction[Any]


class PuzzleCommands(commands.Cog):
    """The holder of the puzzle commands (never added as a cog of its own)."""

    puzzles: PuzzleHandlers

    @app_commands.command(description=_("A puzzle near your puzzle rating, for you alone"))
    @app_commands.describe(source=_("The puzzle set, or positions from your own reviewed games"))
    @app_commands.choices(source=PUZZLE_SOURCES)
    async def puzzle(self, interaction: Interaction, source: str = "set") -> None:
        await self.puzzles.command(interaction, source)

    @app_commands.command(description=_("Post a puzzle every day in a channel of this server (a server manager)"))
    @app_commands.describe(
        channel=_("Where the daily puzzle is posted"),
        hour=_("The hour it is posted, UTC (12 by default)"),
        stop=_("Stop posting the daily puzzle"),
    )
    async def daily(
        self,
        interaction: Interaction,
        channel: discord.TextChannel,
        hour: app_commands.Range[int, 0, 23] = 12,
        stop: bool = False,
    ) -> None:
        await self.puzzles.configure(interaction, channel, hour, stop)


__all__ = ["PuzzleCommands", "PuzzleHandlers"]
