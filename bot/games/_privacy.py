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
from bot.games._messages import Refusal
from bot.games._respond import send, update, within_deadline
from bot.service import DELETED_NAME, Erasure, GameService, PersonalData

if TYPE_CHECKING:
    from bot.games._cog import GamesCog

Interaction = discord.Interaction[Any]

NOT_YOURS = "this button deletes someone else's data"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(data: PersonalData) -> str:
    """What is stored, in a few lines, and what deleting it does (or what must happen first)."""
    if data.empty:
        return "King Me stores nothing about you."
    lines = ["**What King Me stores about you**"]
    if data.name:
        lines.append(f"• Your name, as shown on leaderboards: {discord.utils.escape_markdown(data.name)}")
    lines.append(f"• {_plural(data.finished_games, 'finished game')} with your name in them")
    lines.append(f"• Ratings on {_plural(len(data.ratings), 'ladder')}; records against the AI on {data.bot_records}")
    lines.append(
        f"• {_plural(data.active_games, 'game')} in progress, {_plural(data.pending_challenges, 'pending challenge')}"
    )
    if data.active_games or data.pending_challenges:
        lines.append("To delete your data, first finish or resign your games and cancel your challenges.")
    else:
        lines.append(
            f"Deleting removes your name (your games then show “{DELETED_NAME}” and stay in your opponents' history), "
            "your ratings and your records. It cannot be undone."
        )
    return "\n".join(lines)


def erased(done: Erasure) -> str:
    return (
        f"Your data is deleted: {_plural(done.games_anonymised, 'game')} now show “{DELETED_NAME}”, "
        f"{_plural(done.ratings_removed, 'rating')} removed."
    )


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
            await update(interaction, content=erased(done), view=None)
        except Exception as exc:
            await cog.report(interaction, exc)


async def show(interaction: Interaction, service: GameService) -> None:
    """Answer ``/checkers privacy``: the summary, with the delete button when there is something to delete now."""
    data = await within_deadline(interaction, service.personal_data(interaction.user.id), ephemeral=True)
    deletable = not data.empty and not data.active_games and not data.pending_challenges
    view = view_of(DeleteMyData(str(interaction.user.id))) if deletable else None
    await send(interaction, ephemeral=True, content=say.short(summary(data), 2000), view=view)
