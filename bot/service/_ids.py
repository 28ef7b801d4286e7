"""The ids the service speaks in, as distinct types: a game's id is never a user's.

Each is a ``str`` at run time (``typing.NewType``), made once where the id enters King Me (from a Discord interaction,
a button's custom id, a stored record, a command line) and passed on typed from there: mypy refuses a plain ``str`` or
an ``int`` snowflake anywhere a typed id is expected, and refuses a game's id where a user's is expected.
"""

from __future__ import annotations

from typing import NewType

GameId = NewType("GameId", str)
"""A game's id (12 hex digits, see :func:`bot.service.new_id`)."""
ChallengeId = NewType("ChallengeId", str)
"""A challenge's id (12 hex digits)."""
UserId = NewType("UserId", str)
"""A person (a Discord user's snowflake, as text) or an AI level (``ai:<level>``)."""
GuildId = NewType("GuildId", str)
"""A Discord server's snowflake, as text."""
ChannelId = NewType("ChannelId", str)
"""A channel's or thread's snowflake, as text."""
MessageId = NewType("MessageId", str)
"""A message's snowflake, as text."""
RequestId = NewType("RequestId", str)
"""The idempotency key of one request (a Discord interaction's id): whatever it changes is changed at most once."""
TournamentId = NewType("TournamentId", str)
"""A tournament's id (12 hex digits)."""
