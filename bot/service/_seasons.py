"""Seasons: a server's ladder that starts afresh. A member who manages the server starts a season; from then on every
rated game of the server also counts on the season's ladder (a scope of its own, ``season:<server>:<number>``, beside
the server's all-time ladder and the global one), until the next season starts and this one is kept as it ended."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import _
from bot.service._errors import InvalidRequestError
from bot.service._ids import GuildId
from bot.service._ports import RatingRecords
from bot.service._standings import season_scope

MAX_NAME = 60


@dataclass(frozen=True)
class Season:
    """One season of a server."""

    guild_id: GuildId
    number: int
    name: str
    started_at: float

    @property
    def scope(self) -> str:
        return season_scope(self.guild_id, self.number)


class Seasons:
    """Starts and reads the seasons of servers."""

    def __init__(self, store: RatingRecords, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock

    async def start(self, guild_id: GuildId, name: str | None = None) -> Season:
        """Start the server's next season (the current one, if any, ends and is kept)."""
        number = await self._store.current_season(guild_id) + 1
        title = (name or "").strip()[:MAX_NAME] or _("Season {number}", number=number)
        record = json.dumps({"name": str(title), "started_at": self._clock()})
        number = await self._store.start_season(guild_id, record)
        return Season(guild_id, number, str(title), self._clock())

    async def current(self, guild_id: GuildId) -> Season | None:
        number = await self._store.current_season(guild_id)
        return (await self.get(guild_id, number)) if number else None

    async def get(self, guild_id: GuildId, number: int) -> Season:
        """Season ``number`` of the server; refused when there is none."""
        record = (await self._store.seasons(guild_id)).get(number)
        if record is None:
            raise InvalidRequestError(_("this server has no season {number}", number=number))
        return _season(guild_id, number, record)

    async def all(self, guild_id: GuildId) -> list[Season]:
        return [_season(guild_id, n, r) for n, r in sorted((await self._store.seasons(guild_id)).items())]


def _season(guild_id: GuildId, number: int, record: str) -> Season:
    try:
        data = json.loads(record)
        return Season(guild_id, number, str(data["name"]), float(data["started_at"]))
    except (ValueError, TypeError, KeyError):  # unreadable: still the season it is
        return Season(guild_id, number, f"#{number}", 0.0)
