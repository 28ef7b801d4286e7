"""How a failed command or click is told to its user: one short ephemeral answer, in their language, for every kind of
error (a refusal of the rules or the service, the rate limits, a bad option, an internal error, logged)."""

from __future__ import annotations

import logging
import math
from typing import Any

import discord
from discord import app_commands

from bot.games import _messages as say
from bot.games._dispatch import NO_GUILD, caller_id, channel_of, guild_of
from bot.games._locale import user_language
from bot.games._messages import Refusal
from bot.games._render import busy_refusal
from bot.games._respond import kind_of, metrics_of, send
from bot.i18n import Language, Text, _
from bot.service import ChannelBusyError, GameService, RateLimitedError, ServiceError, rules_text
from core import RulesError

log = logging.getLogger(__name__)
Interaction = discord.Interaction[Any]


class CheckError(app_commands.CheckFailure):
    """An error of the cog's own check (the rate limits), carried to :meth:`Reporter.report` as ``original``."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


async def check_rates(service: GameService, interaction: Interaction) -> bool:
    """A cog's ``interaction_check``: every command passes the rate limits first (discord.py runs no check for
    autocomplete); one that goes too fast fails with a :class:`CheckError`, which the cog's error handler reports."""
    try:
        await service.rate_limit(caller_id(interaction), guild_of(interaction))
    except Exception as exc:
        raise CheckError(exc) from exc
    return True


def slow_down(error: RateLimitedError) -> Text:
    """The answer to a command or click over the rate limits: who went too fast, and when to go on (a Discord
    timestamp that each reader sees as "in 3 seconds")."""
    when = f"<t:{math.ceil(error.retry_at)}:R>"
    if error.server:
        return _("Slow down: this server is sending King Me too much at once. Try again {when}.", when=when)
    return _("Slow down: you are going too fast. Try again {when}.", when=when)


class Reporter:
    """Tells users why their request failed (the cog's errors and the dispatcher's)."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    async def report(self, interaction: Interaction, error: BaseException) -> None:
        """Tell the user why their request failed, in a short ephemeral message."""
        original = getattr(error, "original", error)
        limit = 300
        lang = user_language(interaction)
        text: str
        if isinstance(original, RateLimitedError):
            text = slow_down(original)
        elif isinstance(original, ChannelBusyError):
            text, limit = await self._busy_text(interaction, lang) or original.message, 1000
        elif isinstance(original, ServiceError | Refusal):
            text = original.message  # a message of the catalogue, with its parameters
        elif isinstance(original, RulesError):  # a move the rules refuse: its template is the message's id
            text = rules_text(original)
        elif isinstance(original, app_commands.NoPrivateMessage):
            text = say.GUILD_ONLY
        elif isinstance(original, app_commands.TransformerError):
            text = say.bad_option(original.value, original.type)
        else:
            log.error("interaction %s failed", interaction.command, exc_info=original)
            text = say.INTERNAL
        metrics = metrics_of(interaction)
        if metrics is not None:
            metrics.interaction_errors.labels(kind_of(interaction)).inc()
        if interaction.type is discord.InteractionType.autocomplete:
            return
        try:
            await send(interaction, ephemeral=True, content=say.short(text, limit, lang))
        except discord.HTTPException:
            log.warning("could not tell the user about an error in %s", interaction.command)

    async def _busy_text(self, interaction: Interaction, lang: Language) -> str | None:
        """Whose game holds this channel (or thread), with a link to it and how it ends; None if it is gone."""
        try:
            views = await self.service.channel_games(guild_of(interaction) or NO_GUILD, channel_of(interaction))
        except ServiceError:
            return None
        if not views:
            return None
        channel = interaction.channel
        parent = channel.parent_id if isinstance(channel, discord.Thread) else None
        return busy_refusal(views[0], caller_id(interaction), parent, lang)
