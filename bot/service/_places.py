"""Where a game is played, as the service records it: a server where the front end's bot is a member, or a place the
front end reaches only through the interactions people send it (a DM, a group DM, a server where only the person
installed the app). Games of those places belong to no server (:data:`NO_GUILD`): they are rated on the global ladder
alone, and no server's ladder or season counts them."""

from __future__ import annotations

import enum

from bot.service._ids import GuildId

NO_GUILD = GuildId("0")
"""The server of a game or challenge made outside one (no server's ladder counts it)."""


class Place(enum.Enum):
    """Where a game or challenge was made (kept with it, by value, in its record)."""

    SERVER = "server"
    """A server where the bot is a member (the server install): threads, channel messages, the server's ladder."""
    DM = "dm"
    """A DM: with the bot, or between two people."""
    GROUP_DM = "group_dm"
    """A group DM."""
    USER_SERVER = "user_server"
    """A server where the bot is not a member: only the person who used the command installed the app."""

    @property
    def through_interactions(self) -> bool:
        """True where the front end shows the game only by answering interactions (never posting in the channel)."""
        return self is not Place.SERVER
