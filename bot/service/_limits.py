"""The limits that keep one person from crowding out the others: how many AI games, exhibitions and pending
challenges may exist at once (:func:`quotas`, checked by the store in the write that creates them), and how fast a
person or a server may send commands and clicks (:class:`RateLimits`, token buckets in the store)."""

from __future__ import annotations

import math
from collections.abc import Callable

from bot.i18n import _, _n
from bot.service._errors import LimitReachedError, RateLimitedError
from bot.service._ids import GuildId, UserId
from bot.service._ports import Bucket, Quotas, RateBuckets
from bot.settings import Settings


def quotas(settings: Settings) -> Quotas:
    """The bounds of the settings, for the store."""
    return Quotas(
        ai_games_per_user=settings.ai_games_per_user,
        exhibitions_per_guild=settings.exhibitions_per_guild,
        challenges_per_sender=settings.challenges_per_sender,
        challenges_per_target=settings.challenges_per_target,
    )


def limit_reached(tag: str, settings: Settings, target: str = "they") -> LimitReachedError | None:
    """The refusal for a write that failed on the bound ``tag`` (see :class:`~bot.service.CommitConflict`), naming the
    limit and what to do; None when ``tag`` is no bound. ``target`` is the challenged person's name."""
    if tag == "ai-games":
        n = settings.ai_games_per_user
        text = _n(
            "you already have {count} game against the AI (at most {count} at a time): finish or resign it first",
            "you already have {count} games against the AI (at most {count} at a time): finish or resign one first",
            n,
        )
    elif tag == "exhibitions":
        n = settings.exhibitions_per_guild
        text = _n(
            "this server already has {count} AI exhibition running (at most {count} at a time): wait for it to end",
            "this server already has {count} AI exhibitions running (at most {count} at a time): wait for one to end",
            n,
        )
    elif tag == "sent":
        n = settings.challenges_per_sender
        text = _n(
            "you already have {count} challenge waiting for an answer (at most {count} at a time): "
            "wait for an answer, or withdraw it with its Decline button",
            "you already have {count} challenges waiting for an answer (at most {count} at a time): "
            "wait for an answer, or withdraw one with its Decline button",
            n,
        )
    elif tag == "received":
        n = settings.challenges_per_target
        text = _n(
            "{target} already has {count} challenge waiting for an answer (at most {count} at a time): "
            "try again once they have answered it",
            "{target} already has {count} challenges waiting for an answer (at most {count} at a time): "
            "try again once they have answered some",
            n,
            target=target,
        )
    else:
        return None
    return LimitReachedError(text)


class RateLimits:
    """Commands and clicks per person and per server, as token buckets in the store (shared by every process).

    Args:
        store: keeps the buckets.
        settings: the rates and bursts.
        clock: the time in epoch seconds (the service's).
    """

    def __init__(self, store: RateBuckets, settings: Settings, clock: Callable[[], float]) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock

    async def take(self, user_id: UserId, guild_id: GuildId | None) -> None:
        """Count one command or click of ``user_id`` in ``guild_id``; raises :class:`RateLimitedError` (counting
        nothing) when the person's or the server's bucket is empty."""
        settings = self._settings
        buckets = [Bucket(f"user:{user_id}", settings.rate_user, settings.rate_user_burst)]
        if guild_id is not None:
            buckets.append(Bucket(f"guild:{guild_id}", settings.rate_guild, settings.rate_guild_burst))
        now = self._clock()
        refused = await self._store.take_token(buckets, now)
        if refused is None:
            return
        index, wait = refused
        seconds = max(1, math.ceil(wait))
        if index == 0:
            raise RateLimitedError(
                _("slow down: you are going too fast; try again in {seconds} s", seconds=seconds), now + wait
            )
        text = _(
            "slow down: this server is sending King Me too much at once; try again in {seconds} s", seconds=seconds
        )
        raise RateLimitedError(text, now + wait, server=True)
