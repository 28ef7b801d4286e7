"""A server's daily puzzle as a channel message: the position, whose move it is and what it keeps, the Solve button;
yesterday's puzzle with its line and who solved it; the server's table of solvers and streaks. Pure functions."""

from __future__ import annotations

import discord

from bot.games._board import board_grid as grid_of
from bot.games._components import view_of
from bot.games._puzzle_components import DailyButton
from bot.games._theme import ACTIVE_COLOUR, UNICODE, Theme
from bot.i18n import ENGLISH, Language
from bot.service import DailyDay, DailyPuzzlePosted, DailyStanding, side_name
from core import Board, Color


def _date(day: str) -> str:
    return f"{day[:4]}-{day[4:6]}-{day[6:]}"


def yesterday_text(day: DailyDay, lang: Language = ENGLISH) -> str:
    line = " ".join(day.solution)
    solvers = ", ".join(f"<@{u}>" for u in day.solvers[:20]) or lang._("nobody")
    puzzle = lang._("Puzzle {id}: {line}", id=day.puzzle_id, line=line)
    solved = lang._(
        "Solved by {solvers} ({solved} of {tried})", solvers=solvers, solved=len(day.solvers), tried=day.tried
    )
    return f"{puzzle}\n{solved}"


def table_text(table: tuple[DailyStanding, ...], lang: Language = ENGLISH) -> str:
    rows = [
        lang._(
            "{rank}. <@{user}>: streak {streak} · solved {solved}",
            rank=rank,
            user=row.user_id,
            streak=row.streak,
            solved=row.solved,
        )
        for rank, row in enumerate(table, 1)
    ]
    return "\n".join(rows) or lang._("No solver yet.")


def daily_post(
    event: DailyPuzzlePosted, theme: Theme = UNICODE, lang: Language = ENGLISH
) -> tuple[str, discord.Embed, discord.ui.View]:
    """The day's post: its text, its embed and its button."""
    board = Board(event.puzzle.fen)
    solver = board.turn
    if not theme.fits(board.variant.geometry.size, board.variant.geometry.squares):
        theme = UNICODE
    grid = grid_of(board, None, theme, flipped=solver is Color.BLACK)
    side = lang.say(side_name(solver))
    if event.puzzle.result == "draw":
        status = lang._("{side} to play and draw: find the only move.", side=side)
    else:
        status = lang._("{side} to play and win: find the only move.", side=side)
    embed = discord.Embed(
        title=lang._("Puzzle of the day · {date}", date=_date(event.day)),
        description=f"{grid}\n\n{status}",
        colour=ACTIVE_COLOUR,
    )
    if event.yesterday is not None:
        embed.add_field(name=lang._("Yesterday"), value=yesterday_text(event.yesterday, lang)[:1024], inline=False)
    embed.add_field(name=lang._("This server's solvers"), value=table_text(event.table, lang)[:1024], inline=False)
    content = lang._("🧩 The puzzle of the day: solve it with the button, only you see your board.")
    return content, embed, view_of(DailyButton(event.guild_id, event.day, lang))
