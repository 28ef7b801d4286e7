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
from bot.games._dispatch import caller_id, guild_of, user_of
from bot.games._finder import GameFinder
from bot.games._locale import user_language
from bot.games._messages import Refusal
from bot.games._respond import MessageFields, observe, update, within_deadline
from bot.games._theme import FINISHED_COLOUR, UNICODE
from bot.i18n import ENGLISH, Language, _
from bot.service import Analysis, GameId, GameService, PlayerRef, end_text
from core import Color, get_variant

Interaction = discord.Interaction[Any]

MOMENTS_PER_PAGE = 5
"""Key moments shown on one page of the review."""
LINE_MOVES = 8
"""Moves of the better line shown."""
NO_FINISHED_GAME = _("you have no finished game to review: finish one, or name one with `game:`")
MARKS = {Judgement.INACCURACY: "?!", Judgement.MISTAKE: "?", Judgement.BLUNDER: "??"}
"""The annotation symbols of the judgements, as game annotators write them."""


class ReviewHandlers:
    """What ``/checkers analyse``, the Analyse button and the review's page buttons do."""

    def __init__(self, service: GameService, finder: GameFinder) -> None:
        self._service = service
        self._finder = finder

    async def on_command(self, interaction: Interaction, game_id: GameId | None) -> None:
        await _defer(interaction)
        if game_id is None:
            try:
                game_id = (await self._finder.last_game(interaction, caller_id(interaction))).id
            except Refusal:
                raise Refusal(NO_FINISHED_GAME) from None
        await self._show(interaction, game_id, 0)

    async def on_analyse(self, interaction: Interaction, game_id: GameId) -> None:
        await _defer(interaction)
        await self._show(interaction, game_id, 0)

    async def on_page(self, interaction: Interaction, game_id: GameId, page: int) -> None:
        """Previous or Next: the page on the same message (deferred first when the review is slow to come, as when
        it must be computed again)."""
        work = self._service.analyse(game_id, user_of(interaction.user), guild_of(interaction))
        analysis = await within_deadline(interaction, work)
        await update(interaction, **review_message(analysis, page, user_language(interaction)))

    async def _show(self, interaction: Interaction, game_id: GameId, page: int) -> None:
        analysis = await self._service.analyse(game_id, user_of(interaction.user), guild_of(interaction))
        await interaction.edit_original_response(**review_message(analysis, page, user_language(interaction)))


async def _defer(interaction: Interaction) -> None:
    """A private "thinking…" reply at once: the first review of a game takes a few seconds."""
    await interaction.response.defer(ephemeral=True, thinking=True)
    observe(interaction)


# -- the embed ---------------------------------------------------------------------------------------------------------


def pages(review: GameReview) -> int:
    return max(1, -(-len(review.key_moments) // MOMENTS_PER_PAGE))


def review_message(analysis: Analysis, page: int, lang: Language = ENGLISH) -> MessageFields:
    """The review's page ``page`` (held to the pages there are) as the fields of a message: embed and page buttons."""
    game, review = analysis.game, analysis.review
    count = pages(review)
    page = max(0, min(page, count - 1))
    moments = review.key_moments
    title = lang._(
        "Review: {black} vs {white}",
        black=f"{UNICODE.black_man} {game.black.name}",
        white=f"{UNICODE.white_man} {game.white.name}",
    )
    end = lang.say(end_text(game)) or lang._("Game over")
    moments_text = lang._n("{count} key moment", "{count} key moments", len(moments))
    if count > 1:
        moments_text = lang._("{moments} · page {page} of {pages}", moments=moments_text, page=page + 1, pages=count)
    variant = lang.data("variant", get_variant(game.variant).title)
    description = f"{end} ({game.result}) · {variant}\n{moments_text}"
    embed = discord.Embed(title=title[:256], description=description, colour=FINISHED_COLOUR)
    for color, player in ((Color.BLACK, game.black), (Color.WHITE, game.white)):
        embed.add_field(**_player_field(color, player, review.player(color), lang), inline=True)
    for moment in moments[page * MOMENTS_PER_PAGE : (page + 1) * MOMENTS_PER_PAGE]:
        embed.add_field(**_moment_field(game.variant, moment, lang), inline=False)
    if not moments:
        clean = lang._("No inaccuracy, mistake or blunder: a clean game.")
        embed.add_field(name=lang._("Key moments"), value=clean, inline=False)
    nodes = f"{review.nodes:,}"
    footer = lang._("Every position searched {nodes} nodes deep by the engine · game {game}", nodes=nodes, game=game.id)
    embed.set_footer(text=footer)
    buttons = None
    if count > 1:
        buttons = view_of(
            ReviewPage(game.id, max(page - 1, 0), "previous", disabled=page == 0, lang=lang),
            ReviewPage(game.id, min(page + 1, count - 1), "next", disabled=page == count - 1, lang=lang),
        )
    return {"embed": embed, "view": buttons, "content": None}


def _player_field(color: Color, player: PlayerRef, summary: PlayerReview, lang: Language) -> dict[str, str]:
    accuracy = f"{summary.accuracy:.1f} %" if summary.accuracy is not None else lang._("no move to judge")
    counts = " · ".join(
        (
            lang._n("{count} inaccuracy", "{count} inaccuracies", summary.inaccuracies),
            lang._n("{count} mistake", "{count} mistakes", summary.mistakes),
            lang._n("{count} blunder", "{count} blunders", summary.blunders),
        )
    )
    value = lang._("Accuracy **{accuracy}**", accuracy=accuracy) + f"\n{counts}"
    return {"name": f"{UNICODE.side(color)} {player.name}"[:256], "value": value}


JUDGEMENTS = {
    Judgement.INACCURACY: _("inaccuracy"),
    Judgement.MISTAKE: _("mistake"),
    Judgement.BLUNDER: _("blunder"),
}
"""The judgements' names (their values are the English)."""


def _moment_field(variant: str, moment: MoveReview, lang: Language) -> dict[str, str]:
    side = UNICODE.side(Color.BLACK if moment.mover == "black" else Color.WHITE)
    name = lang._(
        "Move {number} · {side} {played} ({algebraic}) · {judgement}",
        number=moment.move_number,
        side=side,
        played=f"{moment.move}{MARKS[moment.judgement]}",
        algebraic=algebraic(variant, moment.move),
        judgement=JUDGEMENTS.get(moment.judgement, moment.judgement.value),
    )
    lines = [
        lang._(
            "Expected score {before} → {after} (−{loss} points).",
            before=f"{moment.before:.0%}",
            after=f"{moment.after:.0%}",
            loss=f"{moment.loss * 100:.0f}",
        )
    ]
    if moment.threw_away == "win":
        lines.append(lang._("This threw away the win."))
    elif moment.threw_away == "draw":
        lines.append(lang._("This threw away the draw."))
    if moment.best is not None:
        line = " ".join(moment.line[:LINE_MOVES]) + (" …" if len(moment.line) > LINE_MOVES else "")
        lines.append(
            lang._(
                "Better: **{best}** ({algebraic}), line {line}",
                best=moment.best,
                algebraic=algebraic(variant, moment.best),
                line=f"`{line}`",
            )
        )
    return {"name": name[:256], "value": "\n".join(lines)[:1024]}
