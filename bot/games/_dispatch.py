"""One path for every click, from Discord to the service and back.

A component's callback (:mod:`bot.games._components`) names the handler it wants and hands it to :func:`dispatch`,
which finds the running bot's :class:`Dispatcher`: it counts the click against the person's and the server's rate
limits (in the service, shared by every process), runs the handler, and has every error reported once, by the cog's
one reporter, as a short ephemeral answer. The handlers answer within Discord's 3 seconds through
:mod:`bot.games._respond`. Slash commands take the same steps in the cog (``interaction_check`` counts them,
``cog_app_command_error`` reports).

The components reach the handlers through the :class:`Clicks` protocol, never the cog itself, so the modules that
build messages import nothing of the modules that handle them (no import circle in ``bot.games``). A tournament's
buttons, a feature of its own, reach its cog through :class:`TournamentClicks` (:func:`dispatch_tournament`), by the
same dispatcher.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.service import NO_GUILD as NO_GUILD  # the guild of what is made outside a server, for the id makers here
from bot.service import (
    ChallengeId,
    ChannelId,
    GameId,
    GameService,
    GuildId,
    Place,
    RequestId,
    TournamentId,
    User,
    UserId,
)

Interaction = discord.Interaction[Any]
Report = Callable[[Interaction, BaseException], Awaitable[None]]


def user_of(member: discord.abc.User) -> User:
    """The service's user for a Discord user (the caller of an interaction, or an option naming someone)."""
    return User(member.id, member.display_name)


# Discord's snowflakes become the service's typed ids here, once, as they come in.


def caller_id(interaction: Interaction) -> UserId:
    return UserId(str(interaction.user.id))


def guild_of(interaction: Interaction) -> GuildId | None:
    """The server the interaction came from, or None outside one: in a DM, a group DM, and in a server the bot is not
    a member of (only the person's own install of the app authorised the interaction there), whose games belong to no
    server and count on no server's ladder."""
    if interaction.guild_id is None or not interaction.is_guild_integration():
        return None
    return GuildId(str(interaction.guild_id))


def place_of(interaction: Interaction) -> Place:
    """Where the interaction happened: a server the bot is a member of (the server install authorised it), or a place
    reached only through interactions (see :mod:`bot.games._anywhere`)."""
    if interaction.is_guild_integration():
        return Place.SERVER
    if interaction.guild_id is not None:
        return Place.USER_SERVER
    return Place.GROUP_DM if isinstance(interaction.channel, discord.GroupChannel) else Place.DM


@dataclass(frozen=True)
class Caller:
    """Who asks, from which server, and the request's idempotency key: what a service command needs of an
    interaction."""

    user: User
    guild: GuildId | None
    channel: ChannelId
    request: RequestId
    place: Place = Place.SERVER

    @property
    def where(self) -> tuple[GuildId, ChannelId]:
        """The server (:data:`NO_GUILD` outside one) and channel, where a new game or challenge is made."""
        return self.guild or NO_GUILD, self.channel


def caller_of(interaction: Interaction) -> Caller:
    user, guild, request = user_of(interaction.user), guild_of(interaction), request_of(interaction)
    return Caller(user, guild, channel_of(interaction), request, place_of(interaction))


def request_of(interaction: Interaction) -> RequestId:
    """The interaction's idempotency key: whatever it changes, the service changes once."""
    return RequestId(str(interaction.id))


def channel_of(interaction: Interaction) -> ChannelId:
    return ChannelId(str(interaction.channel_id or 0))


def as_channel(snowflake: int) -> ChannelId:
    """A channel's or thread's id (``channel.id``) as the service knows it."""
    return ChannelId(str(snowflake))


def as_guild(snowflake: int) -> GuildId:
    return GuildId(str(snowflake))


def as_user(snowflake: int) -> UserId:
    return UserId(str(snowflake))


class Clicks(Protocol):
    """Every handler a component's click can reach (implemented by the cog's handlers)."""

    async def on_piece(self, interaction: Interaction, game_id: GameId, version: int, square: int) -> None: ...

    async def on_move(self, interaction: Interaction, game_id: GameId, version: int, move: str) -> None: ...

    async def on_game_button(self, interaction: Interaction, action: str, game_id: GameId, version: int) -> None: ...

    async def on_resign_confirmed(self, interaction: Interaction, game_id: GameId, version: int) -> None: ...

    async def on_resign_cancelled(self, interaction: Interaction) -> None: ...

    async def on_challenge_button(
        self, interaction: Interaction, action: str, challenge_id: ChallengeId, version: int
    ) -> None: ...

    async def on_analyse(self, interaction: Interaction, game_id: GameId) -> None: ...

    async def on_review_page(self, interaction: Interaction, game_id: GameId, page: int) -> None: ...

    async def on_delete_data(self, interaction: Interaction, user_id: UserId) -> None: ...


class TournamentClicks(Protocol):
    """What a click on a tournament's announcement does (implemented by the tournament cog, a feature of its own)."""

    async def on_tournament_button(
        self, interaction: Interaction, action: str, tournament_id: TournamentId
    ) -> None: ...


class Dispatcher:
    """Runs a click: the rate limit, the handler, and the one report of any error."""

    def __init__(self, service: GameService, clicks: Clicks, report: Report) -> None:
        self._service = service
        self._clicks = clicks
        self._report = report

    async def run(self, interaction: Interaction, call: Callable[[Clicks], Awaitable[None]]) -> None:
        try:
            await self._service.rate_limit(caller_id(interaction), guild_of(interaction))
            await call(self._clicks)
        except Exception as exc:
            await self._report(interaction, exc)


_DISPATCHERS: weakref.WeakKeyDictionary[discord.Client, Dispatcher] = weakref.WeakKeyDictionary()
_TOURNAMENT_CLICKS: weakref.WeakKeyDictionary[discord.Client, TournamentClicks] = weakref.WeakKeyDictionary()


def attach(client: discord.Client, dispatcher: Dispatcher) -> None:
    """Make ``dispatcher`` the one that runs the clicks ``client`` receives (the cog does, when it loads)."""
    _DISPATCHERS[client] = dispatcher


def detach(client: discord.Client) -> None:
    _DISPATCHERS.pop(client, None)


def attach_tournaments(client: discord.Client, clicks: TournamentClicks | None) -> None:
    """Make ``clicks`` what a click on a tournament's components does (the tournament cog, when it loads; None when
    it unloads). Those clicks take the same path as every other: :class:`Dispatcher`."""
    if clicks is None:
        _TOURNAMENT_CLICKS.pop(client, None)
    else:
        _TOURNAMENT_CLICKS[client] = clicks


async def dispatch(interaction: Interaction, call: Callable[[Clicks], Awaitable[None]]) -> None:
    """Run a component's click through its bot's :class:`Dispatcher`."""
    dispatcher = _DISPATCHERS.get(interaction.client)
    if dispatcher is None:  # pragma: no cover - the cog attaches itself before the bot receives anything
        raise RuntimeError("no dispatcher is attached to this client: the Games cog is not loaded")
    await dispatcher.run(interaction, call)


async def dispatch_tournament(interaction: Interaction, action: str, tournament_id: TournamentId) -> None:
    """Run a click on a tournament's component through its bot's :class:`Dispatcher` (rate limit, one report)."""

    async def call(_: Clicks) -> None:
        clicks = _TOURNAMENT_CLICKS.get(interaction.client)
        if clicks is None:  # pragma: no cover - the tournament cog attaches itself before the bot receives anything
            raise RuntimeError("no tournament handlers are attached to this client: the Tournaments cog is not loaded")
        await clicks.on_tournament_button(interaction, action, tournament_id)

    await dispatch(interaction, call)
