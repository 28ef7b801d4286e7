"""``/checkers privacy``: a person sees what King Me stores about them and deletes it, confirmed with a button.

The summary and the button are ephemeral (only that person sees them); the button
(:class:`bot.games._components.DeleteMyData`) carries the person's id, works after a restart and does nothing for
anyone else: its click comes to :func:`delete`.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.games import _messages as say
from bot.games._components import DeleteMyData, view_of
from bot.games._dispatch import caller_id
from bot.games._locale import user_language
from bot.games._messages import Refusal
from bot.games._respond import send, update, within_deadline
from bot.games._scrub import Scrubbed
from bot.i18n import ENGLISH, Language, _
from bot.service import DELETED_NAME, Erasure, GameService, PersonalData, UserId

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
    if data.puzzles:
        lines.append(
            lang._n(
                "• {count} puzzle tried, with your puzzle rating",
                "• {count} puzzles tried, with your puzzle rating",
                data.puzzles,
            )
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


async def delete(interaction: Interaction, service: GameService, user_id: UserId) -> Erasure:
    """The click on the delete button of ``user_id``'s summary: delete their data (only they may)."""
    if caller_id(interaction) != user_id:
        raise Refusal(NOT_YOURS)
    done = await within_deadline(interaction, service.erase_personal_data(user_id))
    text = erased(done, user_language(interaction))
    if done.games:
        text += "\n" + user_language(interaction).say(TIDYING)
    await update(interaction, content=text, view=None)
    return done


TIDYING = _(
    "The bot's messages and threads that show your name are being edited now; you will be told when it is done."
)


def tidied(done: Scrubbed, lang: Language = ENGLISH) -> str:
    """What the edits after an erasure did, for the person who asked for it."""
    edited = lang._(
        "Your name is gone from the bot's posts: {messages} messages and {threads} thread names now show “{deleted}”.",
        messages=done.messages,
        threads=done.threads,
        deleted=DELETED_NAME,
    )
    if not done.failed:
        return edited
    failed = lang._n(
        "{count} could not be edited (deleted, or out of the bot's reach).",
        "{count} could not be edited (deleted, or out of the bot's reach).",
        done.failed,
    )
    return f"{edited} {failed}"


async def show(interaction: Interaction, service: GameService) -> None:
    """Answer ``/checkers privacy``: the summary, with the delete button when there is something to delete now."""
    data = await within_deadline(interaction, service.personal_data(caller_id(interaction)), ephemeral=True)
    deletable = not data.empty and not data.active_games and not data.pending_challenges
    lang = user_language(interaction)
    view = view_of(DeleteMyData(caller_id(interaction), lang)) if deletable else None
    await send(interaction, ephemeral=True, content=say.short(summary(data, lang), 2000), view=view)
