"""A puzzle as a Discord message: the board drawn as a game's is (:func:`bot.games._board.board_grid`), whose move it
is, the menus and buttons; once over, the result, the line, the rating's change and the streak. Pure functions of the
session, the player's record and the language."""

from __future__ import annotations

from typing import Any

import discord

from bot.games._board import board_grid as grid_of
from bot.games._board import move_options, piece_options
from bot.games._components import view_of
from bot.games._puzzle_components import PuzzleButton, PuzzleMoveSelect, PuzzlePieceSelect
from bot.games._respond import MessageFields
from bot.games._theme import ACTIVE_COLOUR, FINISHED_COLOUR, UNICODE, Theme
from bot.i18n import ENGLISH, Language
from bot.service import PuzzlePlayer, PuzzleSession, side_name
from core import Board, Color, Move

SOLVED_COLOUR = 0x2ECC71
FAILED_COLOUR = 0xE74C3C


def _side(lang: Language, color: Color) -> str:
    return lang.say(side_name(color))


def _last(board: Board) -> Move | None:
    stack = board.move_stack
    return stack[-1] if stack else None


def legal_from(session: PuzzleSession, square: int) -> list[str]:
    return [m.text() for m in session.board().legal_moves if m.path and m.start == square]


def movable(session: PuzzleSession) -> list[int]:
    return sorted({m.start for m in session.board().legal_moves if m.path})


def line_text(session: PuzzleSession) -> str:
    """The solution numbered by its moves, the solver's in bold."""
    return " ".join(f"**{move}**" if i % 2 == 0 else move for i, move in enumerate(session.solution))


def puzzle_message(
    session: PuzzleSession,
    player: PuzzlePlayer,
    theme: Theme = UNICODE,
    lang: Language = ENGLISH,
    *,
    selected: int | None = None,
    votes: tuple[int, int] | None = None,
    link: str | None = None,
) -> MessageFields:
    """The puzzle's message: its board with the piece ``selected`` (or the hint's) marked, and its controls."""
    board = session.board()
    solver = session.solver
    hint = session.hint_square() if session.hinted else None
    mark = selected if selected is not None else hint
    if not theme.fits(board.variant.geometry.size, board.variant.geometry.squares):
        theme = UNICODE
    grid = grid_of(board, _last(board), theme, flipped=solver is Color.BLACK, selected=mark)
    side = _side(lang, solver)
    if session.active:
        if session.source == "mine":
            status = lang._("{side} to play: find the best move.", side=side)
        elif _result(session) == "draw":
            status = lang._("{side} to play and draw: find the only move.", side=side)
        else:
            status = lang._("{side} to play and win: find the only move.", side=side)
        if hint is not None:
            status += "\n" + lang._("💡 Hint: move the piece on {square}.", square=hint)
        colour = ACTIVE_COLOUR
    elif session.solved:
        status = lang._("✅ Solved!") if not session.hinted else lang._("✅ Solved, with a hint.")
        colour = SOLVED_COLOUR
    else:
        if session.wrong is not None:
            status = lang._("❌ {move} is not the move.", move=session.wrong)
        else:
            status = lang._("❌ You gave up.")
        colour = FINISHED_COLOUR if session.wrong is None else FAILED_COLOUR
    embed = discord.Embed(
        title=lang._("Puzzle {id}", id=session.puzzle_id), description=f"{grid}\n\n{status}", colour=colour
    )
    if not session.active:
        line = line_text(session)[:900]
        if link is not None:
            line += "\n" + lang._("[On the replay page]({url})", url=link)
        embed.add_field(name=lang._("The line"), value=line, inline=False)
        if session.themes:
            embed.add_field(name=lang._("Themes"), value=", ".join(session.themes), inline=True)
    embed.add_field(name=lang._("Your puzzle rating"), value=_rating_text(session, player, lang), inline=True)
    if votes is not None:
        embed.add_field(name=lang._("Votes"), value=f"👍 {votes[0]} · 👎 {votes[1]}", inline=True)
    if session.source == "mine":
        footer = lang._("One of your own mistakes · not rated")
    elif not session.rated:
        footer = lang._("A retry · not rated")
    else:
        footer = lang._("Puzzle rating {rating}", rating=round(session.puzzle_rating or 0))
    embed.set_footer(text=footer)
    return {"content": None, "embed": embed, "view": _controls(session, selected, lang)}


def _result(session: PuzzleSession) -> str:
    return "draw" if "defence" in session.themes else "win"


def _rating_text(session: PuzzleSession, player: PuzzlePlayer, lang: Language) -> str:
    streak = lang._("streak {streak}", streak=player.streak)
    if session.rating_before is not None and session.rating_after is not None and not session.active:
        change = round(session.rating_after) - round(session.rating_before)
        return f"{round(session.rating_before)} → {round(session.rating_after)} ({change:+d}) · {streak}"
    return f"{round(player.rating.rating)} · {streak}"


def _controls(session: PuzzleSession, selected: int | None, lang: Language) -> discord.ui.View:
    uid, version = session.user_id, session.version
    items: list[discord.ui.Item[Any]] = []
    if session.active:
        squares = movable(session)
        options = piece_options(session.variant, squares, lambda s: legal_from(session, s), session.solver, selected)
        items.append(PuzzlePieceSelect(uid, version, options, lang))
        if selected is not None and selected in squares:
            moves = move_options(session.variant, legal_from(session, selected), lang)
            items.append(PuzzleMoveSelect(uid, version, selected, moves, lang))
        actions = ["giveup"] if session.hinted else ["hint", "giveup"]
    else:
        actions = ["retry", "next", "up", "down"]
    items += [PuzzleButton(action, uid, version, lang) for action in actions]
    return view_of(*items)


def puzzle_field(embed: discord.Embed, player: PuzzlePlayer, lang: Language = ENGLISH) -> None:
    """The person's puzzle rating and streak, as a field of their ``/checkers stats``."""
    if player.rating.games == 0:
        return
    value = lang._(
        "{rating} · solved {solved} of {tried} · streak {streak} (best {best})",
        rating=round(player.rating.rating),
        solved=player.rating.wins,
        tried=player.rating.games,
        streak=player.streak,
        best=player.best_streak,
    )
    embed.add_field(name=lang._("Puzzles"), value=value, inline=False)
