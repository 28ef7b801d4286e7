"""``/checkers privacy``: a person sees what King Me stores about them and deletes it, confirmed with a button.

The summary and the button are ephemeral (only that person sees them); the button carries the person's id, works
after a restart (a :class:`discord.ui.DynamicItem`) and does nothing for anyone else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

from bot.games import _messages as say
from bot.games._components import PREFIX, view_of
from bot.games._locale import user_language
from bot.games._messages import Refusal
from bot.games._respond import send, update, within_deadline
from bot.i18n import ENGLISH, Language, _
from bot.service import DELETED_NAME, Erasure, GameService, PersonalData

if TYPE_CHECKING:
    from bot.games._cog import GamesCog

Interaction = discord.Interaction[Any]

NOT_YOURS = _("this button deletes someone else's data")


def summary(data: PersonalData, lang: Language = ENGLISH) -> str:
    """What is stored, in a few lines, and what deleting it does (or what must happen first)."""
    if data.empty:
        return lang._("King Me stores nothing about you.")
    lines = [lang._("**What King Me stores about you**")]
    if data.name:
        name = discord.utils.escape_markdown(data.name)
        lines.append(lang._("• Your name, as shown on leaderboards: {name}", name=name))
    finished = data.finished_games
    lines.append(
        lang._n(
            "• {count} finished game with your name in it", "• {count} finished games with your name in them", finished
        )
    )
    ladders = lang._n("{count} ladder", "{count} ladders", len(data.ratings))
    lines.append(
        lang._("• Ratings on {ladders}; records against the AI on {levels}", ladders=ladders, levels=data.bot_records)
    )
    games = lang._n("{count} game in progress", "{count} games in progress", data.active_games)
    challenges = lang._n("{count} pending challenge", "{count} pending challenges", data.pending_challenges)
    lines.append(f"• {games}, {challenges}")
    if data.active_games or data.pending_challenges:
        lines.append(lang._("To delete your data, first finish or resign your games and cancel your challenges."))
    else:
        lines.append(
            lang._(
                "Deleting removes your name (your games then show “{deleted}” and stay in your opponents' history), "
                "your ratings and your records. It cannot be undone.",
                deleted=DELETED_NAME,
            )
        )
    return "\n".join(lines)


def erased(done: Erasure, lang: Language = ENGLISH) -> str:
    games = lang._n(
        "{count} game now shows “{deleted}”",
        "{count} games now show “{deleted}”",
        done.games_anonymised,
        deleted=DELETED_NAME,
    )
    ratings = lang._n("{count} rating removed", "{count} ratings removed", done.ratings_removed)
    return lang._("Your data is deleted: {games}, {ratings}.", games=games, ratings=ratings)


class DeleteMyData(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:privacy:(?P<user_id>[0-9]{{1,20}})"
):
    """The confirmation: delete the data of the user named in the ``custom_id`` (only they may click it)."""

    def __init__(self, user_id: str) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label="Delete my data", style=discord.ButtonStyle.danger, custom_id=f"{PREFIX}:privacy:{user_id}"
        )
        super().__init__(button)
        self.user_id = user_id

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: Any) -> DeleteMyData:
        return cls(match["user_id"])

    async def callback(self, interaction: Interaction) -> None:
        client = interaction.client
        cog = cast("GamesCog | None", client.get_cog("Games") if isinstance(client, commands.Bot) else None)
        if cog is None:  # pragma: no cover - the bot always registers the cog with the items
            raise RuntimeError("the Games cog is not loaded")
        try:
            if str(interaction.user.id) != self.user_id:
                raise Refusal(NOT_YOURS)
            done = await within_deadline(interaction, cog.service.erase_personal_data(self.user_id))
            await update(interaction, content=erased(done, user_language(interaction)), view=None)
        except Exception as exc:
            await cog.report(interaction, exc)


async def show(interaction: Interaction, service: GameService) -> None:
    """Answer ``/checkers privacy``: the summary, with the delete button when there is something to delete now."""
    data = await within_deadline(interaction, service.personal_data(interaction.user.id), ephemeral=True)
    deletable = not data.empty and not data.active_games and not data.pending_challenges
    view = view_of(DeleteMyData(str(interaction.user.id))) if deletable else None
    lang = user_language(interaction)
    await send(interaction, ephemeral=True, content=say.short(summary(data, lang), 2000), view=view)
