"""What the game service records for its front ends beside the games, without changing any (the
:class:`GameService`'s notes, written here so the service's own module holds its commands): where a result was
announced, the servers' names, and the front ends' marks shared by their processes."""

from __future__ import annotations

import contextlib

from bot.service import _models as models
from bot.service._ids import ChannelId, GameId, GuildId, MessageId
from bot.service._ports import CommitConflict, GameStore


class Notes:
    """A front end's notes in the store; :class:`GameService` sets the store."""

    _store: GameStore

    async def set_result_message(self, game_id: GameId, channel_id: ChannelId, message_id: MessageId) -> None:
        """Record the message that announced the game's result (so an erasure can edit the name out of it)."""
        with contextlib.suppress(CommitConflict):  # the game is gone (deleted after GAME_RETENTION_DAYS): no matter
            await self._store.set_result_message(game_id, models.MessageRef.of(channel_id, message_id))

    async def result_message(self, game_id: GameId) -> models.MessageRef | None:
        return await self._store.result_message(game_id)

    async def remember_guilds(self, names: dict[GuildId, str]) -> None:
        """Record the names of the servers the front end is in (for the public leaderboard's title)."""
        await self._store.set_guild_names(names)

    async def claim_change(self, name: str, value: str) -> bool:
        """Record that a front end's ``name`` is now ``value`` (say, a digest of the commands it registered); True if
        it was something else, so the caller should act on the change. Of processes racing with the same value only
        one gets True. A caller whose action then fails calls :meth:`forget_change` so the next one tries again."""
        return await self._store.swap_mark(name, value) != value

    async def forget_change(self, name: str) -> None:
        """Forget what :meth:`claim_change` recorded under ``name``."""
        await self._store.drop_mark(name)
