"""Answering interactions inside Discord's 3-second deadline, and recording how long the first answer took.

Every first response of the cog goes through :func:`send` or :func:`update` (or :func:`within_deadline`'s deferral), so
the latency metric and the choice between a first response and a follow-up live in one place.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from typing import Any, TypedDict, TypeVar, Unpack

import discord

from bot.metrics import Metrics

T = TypeVar("T")
log = logging.getLogger(__name__)
DEFER_AFTER = 1.5
"""Seconds a handler may work before the interaction is deferred (Discord drops answers later than 3 s)."""


class MessageFields(TypedDict, total=False):
    """A message the bot sends or edits into: the keyword arguments of discord.py's methods that send and edit one.
    None removes the content or the components in an edit, and is a field left out of a new message."""

    content: str | None
    embed: discord.Embed
    view: discord.ui.View | None
    allowed_mentions: discord.AllowedMentions


class SendFields(MessageFields, total=False):
    """What a new message of :func:`send` may also have (an edit takes neither)."""

    embeds: Sequence[discord.Embed]
    file: discord.File


def keywords(message: MessageFields) -> dict[str, Any]:
    """``message`` as keyword arguments of a discord.py method that sends a new message: its overloads take no None
    (its implementation does, as a field left out) and each takes its own part of the fields, so the typed fields are
    handed over untyped, here only."""
    return dict(message)


def kind_of(interaction: discord.Interaction[Any]) -> str:
    if interaction.type is discord.InteractionType.component:
        return "component"
    if interaction.type is discord.InteractionType.autocomplete:
        return "autocomplete"
    return "command"


def metrics_of(interaction: discord.Interaction[Any]) -> Metrics | None:
    metrics = getattr(interaction.client, "metrics", None)
    return metrics if isinstance(metrics, Metrics) else None


def observe(interaction: discord.Interaction[Any]) -> None:
    """Record the time from the interaction's creation to now as its first-response latency."""
    metrics = metrics_of(interaction)
    if metrics is not None:
        seconds = max(0.0, (discord.utils.utcnow() - interaction.created_at).total_seconds())
        metrics.interaction_latency.labels(kind_of(interaction)).observe(seconds)


async def within_deadline(interaction: discord.Interaction[Any], work: Awaitable[T], *, ephemeral: bool = False) -> T:
    """Await ``work``; if the interaction gets older than :data:`DEFER_AFTER` first, defer it (a component click
    gets a deferred update, a command a "thinking…" message) so the answer can come later.

    The work always decides the outcome, and it is over when this returns or raises: a deferral Discord refuses (an
    interaction that reached a loaded bot past Discord's 3 s) is logged and the work goes on; if the caller is
    cancelled the work is cancelled and awaited. So a caller that tidies up after a failure (a game's new thread
    closed) never races work still running (the game being filed in that thread)."""
    task = asyncio.ensure_future(work)
    try:
        elapsed = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        remaining = min(DEFER_AFTER, DEFER_AFTER - elapsed)
        if remaining > 0:  # else defer at once, before the work even starts
            await asyncio.wait({task}, timeout=remaining)
        if not task.done():
            try:
                await _defer(interaction, ephemeral)
            except discord.HTTPException as exc:
                log.warning(
                    "could not defer interaction %s (%s): its work goes on, its answer is lost", interaction.id, exc
                )
        return await task
    finally:
        if not task.done():
            task.cancel()
            await asyncio.wait({task})


async def _defer(interaction: discord.Interaction[Any], ephemeral: bool) -> None:
    async with _answering(interaction):
        if not interaction.response.is_done():
            if interaction.type is discord.InteractionType.component:
                await interaction.response.defer()
            else:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
            observe(interaction)


async def send(
    interaction: discord.Interaction[Any], *, ephemeral: bool = False, **message: Unpack[SendFields]
) -> int | None:
    """A new message answering the interaction (its first response, or a follow-up); returns its id."""
    fields = {k: v for k, v in keywords(message).items() if v is not None}
    async with _answering(interaction):
        if not interaction.response.is_done():
            callback = await interaction.response.send_message(ephemeral=ephemeral, **fields)
            observe(interaction)
            return callback.message_id
    if interaction.type is discord.InteractionType.application_command and _is_thinking(interaction):
        if "file" in fields:
            fields["attachments"] = [fields.pop("file")]
        original = await interaction.edit_original_response(**fields)
        interaction.extras["thinking"] = False
        return original.id
    followup = await interaction.followup.send(ephemeral=ephemeral, wait=True, **fields)
    return followup.id


async def update(interaction: discord.Interaction[Any], **message: Unpack[MessageFields]) -> None:
    """Replace the message whose component was used (the first response, or an edit after a deferred update)."""
    if not interaction.response.is_done():
        await interaction.response.edit_message(**message)
        observe(interaction)
    else:
        await interaction.edit_original_response(**message)


def _answering(interaction: discord.Interaction[Any]) -> asyncio.Lock:
    """The lock of an interaction's first response: the work :func:`within_deadline` waits for may answer the
    interaction itself (a game's thread is opened from the answer), so that answer and the deferral never cross."""
    lock = interaction.extras.get("answering")
    if not isinstance(lock, asyncio.Lock):
        lock = interaction.extras["answering"] = asyncio.Lock()
    return lock


def _is_thinking(interaction: discord.Interaction[Any]) -> bool:
    """True while a deferred command's "thinking…" message waits for its content."""
    return bool(interaction.extras.get("thinking", True)) and interaction.response.type is (
        discord.InteractionResponseType.deferred_channel_message
    )
