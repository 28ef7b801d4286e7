"""Game review on Discord: ``/checkers analyse``, the Analyse button under a result, and the review's pages.

A review takes seconds the first time (the AI pool evaluates every position at low priority), so every request is
deferred at once and answered by editing that deferred reply; later asks read the stored review. The reply is an
ephemeral embed: each player's accuracy and counts of inaccuracies, mistakes and blunders, then the key moments
(:data:`MOMENTS_PER_PAGE` a page, Previous and Next buttons beyond that) with the better move and its line.
"""

from __future__ import annotations

from typing import Any

import discord

from ai.review import GameReview, Judgement, MoveReview, PlayerReview
from bot.games._board import algebraic
from bot.games._components import ReviewPage, view_of
from bot.games._finder import GameFinder
from bot.games._handlers import user_of
from bot.games._messages import Refusal
from bot.games._respond import observe, update, within_deadline
from bot.games._theme import FINISHED_COLOUR, UNICODE
from bot.service import Analysis, GameService, PlayerRef
from core import Color, get_variant

Interaction = discord.Interaction[Any]

MOMENTS_PER_PAGE = 5
"""Key moments shown on one page of the review."""
LINE_MOVES = 8
"""Moves of the better line shown."""
NO_FINISHED_GAME = "you have no finished game to review: finish one, or name one with `game:`"
MARKS = {Judgement.INACCURACY: "?!", Judgement.MISTAKE: "?", Judgement.BLUNDER: "??"}
"""The annotation symbols of the judgements, as game annotators write them."""


class ReviewHandlers:
    """What ``/checkers analyse``, the Analyse button and the review's page buttons do."""

    def __init__(self, service: GameService, finder: GameFinder) -> None:
        self._service = service
        self._finder = finder

    async def on_command(self, interaction: Interaction, game_id: str | None) -> None:
        await _defer(interaction)
        if game_id is None:
            try:
                game_id = (await self._finder.last_game(interaction, str(interaction.user.id))).id
            except Refusal:
                raise Refusal(NO_FINISHED_GAME) from None
        await self._show(interaction, game_id.strip(), 0)

    async def on_analyse(self, interaction: Interaction, game_id: str) -> None:
        await _defer(interaction)
        await self._show(interaction, game_id, 0)

    async def on_page(self, interaction: Interaction, game_id: str, page: int) -> None:
        """Previous or Next: the page on the same message (deferred first when the review is slow to come, as when
        it must be computed again)."""
        work = self._service.analyse(game_id, user_of(interaction.user), interaction.guild_id)
        analysis = await within_deadline(interaction, work)
        await update(interaction, **review_message(analysis, page))

    async def _show(self, interaction: Interaction, game_id: str, page: int) -> None:
        analysis = await self._service.analyse(game_id, user_of(interaction.user), interaction.guild_id)
        await interaction.edit_original_response(**review_message(analysis, page))


async def _defer(interaction: Interaction) -> None:
    """A private "thinking…" reply at once: the first review of a game takes a few seconds."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    observe(interaction)


# -- the embed ---------------------------------------------------------------------------------------------------------


def pages(review: GameReview) -> int:
    return max(1, -(-len(review.key_moments) // MOMENTS_PER_PAGE))


def review_message(analysis: Analysis, page: int) -> dict[str, Any]:
    """The review's page ``page`` (held to the pages there are) as the fields of a message: embed and page buttons."""
    game, review = analysis.game, analysis.review
    count = pages(review)
    page = max(0, min(page, count - 1))
    moments = review.key_moments
    title = f"Review: {UNICODE.black_man} {game.black.name} vs {UNICODE.white_man} {game.white.name}"
    shown = f" · page {page + 1} of {count}" if count > 1 else ""
    description = (
        f"{game.end_text or 'Game over'} ({game.result}) · {get_variant(game.variant).title}\n"
        f"{len(moments)} key moment{'' if len(moments) == 1 else 's'}{shown}"
    )
    embed = discord.Embed(title=title[:256], description=description, colour=FINISHED_COLOUR)
    for color, player in ((Color.BLACK, game.black), (Color.WHITE, game.white)):
        embed.add_field(**_player_field(color, player, review.player(color)), inline=True)
    for moment in moments[page * MOMENTS_PER_PAGE : (page + 1) * MOMENTS_PER_PAGE]:
        embed.add_field(**_moment_field(game.variant, moment), inline=False)
    if not moments:
        embed.add_field(name="Key moments", value="No inaccuracy, mistake or blunder: a clean game.", inline=False)
    embed.set_footer(text=f"Every position searched {review.nodes:,} nodes deep by the engine · game {game.id}")
    buttons = None
    if count > 1:
        buttons = view_of(
            ReviewPage(game.id, max(page - 1, 0), "previous", disabled=page == 0),
            ReviewPage(game.id, min(page + 1, count - 1), "next", disabled=page == count - 1),
        )
    return {"embed": embed, "view": buttons, "content": None}


def _player_field(color: Color, player: PlayerRef, summary: PlayerReview) -> dict[str, str]:
    accuracy = f"{summary.accuracy:.1f} %" if summary.accuracy is not None else "no move to judge"
    counts = (
        f"{summary.inaccuracies} inaccurac{'y' if summary.inaccuracies == 1 else 'ies'} · "
        f"{summary.mistakes} mistake{'' if summary.mistakes == 1 else 's'} · "
        f"{summary.blunders} blunder{'' if summary.blunders == 1 else 's'}"
    )
    return {"name": f"{UNICODE.side(color)} {player.name}"[:256], "value": f"Accuracy **{accuracy}**\n{counts}"}


def _moment_field(variant: str, moment: MoveReview) -> dict[str, str]:
    side = UNICODE.side(Color.BLACK if moment.mover == "black" else Color.WHITE)
    played = f"{moment.move}{MARKS[moment.judgement]}"
    name = f"Move {moment.move_number} · {side} {played} ({algebraic(variant, moment.move)}) · {moment.judgement.value}"
    lines = [f"Expected score {moment.before:.0%} → {moment.after:.0%} (−{moment.loss * 100:.0f} points)."]
    if moment.threw_away is not None:
        lines.append(f"This threw away the {moment.threw_away}.")
    if moment.best is not None:
        line = " ".join(moment.line[:LINE_MOVES]) + (" …" if len(moment.line) > LINE_MOVES else "")
        lines.append(f"Better: **{moment.best}** ({algebraic(variant, moment.best)}), line `{line}`")
    return {"name": name[:256], "value": "\n".join(lines)[:1024]}
