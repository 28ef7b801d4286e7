"""`DiscordEmulator`: the emulated world, its REST API and gateway on one aiohttp server, and the user side.

The user-side actions (``invoke``, ``autocomplete``, ``click``, ``select``) send an interaction to the
connected bot and return at once with an :class:`InteractionHandle`; awaiting it gives the bot's answer.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aiohttp import web

from ._callbacks import InteractionApi
from ._emojis import ApplicationEmojis
from ._gateway import HEARTBEAT_ACK_DELAY, Gateway
from ._interactions import InteractionFactory, InteractionHandle
from ._messages import MessageWriter
from ._payloads import PayloadBuilder
from ._rest import RestApi
from ._state import (
    DM_CHANNEL,
    JSON,
    Channel,
    EmulatorEvent,
    EmulatorState,
    EventKind,
    Guild,
    Hook,
    InteractionRecord,
    Message,
    RegisteredCommand,
    Shard,
    User,
)

ChannelRef = Channel | int | None
UserRef = User | int | None


class DiscordEmulator:
    """A local Discord for one bot: a guild with ``#checkers``, users alice, bob and carol, and the bot.

    ``answer_timeout`` is how long an awaited :class:`InteractionHandle` waits for the bot. A first response
    later than ``response_deadline`` seconds (Discord's 3 s; None: no limit) is refused with "Unknown
    interaction", as Discord does, and the interaction stays unanswered.

    ``shards`` is the shard count ``GET /gateway/bot`` recommends (what ``AutoShardedClient`` runs when not told);
    a client that identifies with a shard gets the events and interactions of that shard's guilds only
    (:meth:`add_guild` makes a guild on a chosen shard).
    """

    def __init__(
        self,
        *,
        token: str | None = None,
        bot_name: str = "King Me",
        guild_name: str = "King Me Club",
        channel_name: str = "checkers",
        answer_timeout: float = 5.0,
        response_deadline: float | None = 3.0,
        heartbeat_interval: float = 41.25,
        heartbeat_ack_delay: float = HEARTBEAT_ACK_DELAY,
        shards: int = 1,
    ) -> None:
        self.token = token or secrets.token_urlsafe(24)
        self.answer_timeout = answer_timeout
        self._clock_offset = 0.0
        self.state = EmulatorState(clock=lambda: time.time() + self._clock_offset)
        self.bot_user = self.state.add_user(bot_name, bot=True)
        for name in ("alice", "bob", "carol"):
            self.state.add_user(name)
        self.guild = self.state.add_guild(guild_name, self.user("alice"))
        self.guild.member_ids = list(self.state.users)
        self.channel = self.state.add_channel(self.guild, channel_name)
        self.payloads = PayloadBuilder(self.state)
        self.gateway = Gateway(
            self.state,
            self.payloads,
            token=self.token,
            bot_user=self.bot_user,
            heartbeat_interval=heartbeat_interval,
            heartbeat_ack_delay=heartbeat_ack_delay,
        )
        writer = MessageWriter(self.state, self.bot_user)
        self.rest = RestApi(
            self.state, self.payloads, self.gateway, writer, token=self.token, bot_user=self.bot_user, shards=shards
        )
        self.emojis = ApplicationEmojis(self.state, self.bot_user)
        """The application's emojis (``emojis.limit`` caps how many it may own)."""
        self.callbacks = InteractionApi(
            self.state,
            self.payloads,
            writer,
            bot_user=self.bot_user,
            clock=self._clock,
            response_deadline=response_deadline,
        )
        self._factory = InteractionFactory(self.state, self.payloads, self.bot_user)
        self.state.subscribe(self.gateway.on_state_event)
        self._runner: web.AppRunner | None = None
        self.host = "127.0.0.1"
        self.port = 0

    # server
    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on ``host:port`` (0: a free port, then read ``.port``)."""
        app = web.Application()
        app.add_routes([web.get("/gateway", self.gateway.handle), web.get("/gateway/", self.gateway.handle)])
        app.add_routes(self.callbacks.routes())
        app.add_routes(self.emojis.routes(self.rest._as_bot))
        app.add_routes(self.rest.routes())
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        self.host, self.port = host, int(self._runner.addresses[0][1])
        self.payloads.base_url = self.base_url
        self.gateway.url = f"ws://{host}:{self.port}/gateway/"

    async def stop(self) -> None:
        """Close the gateway and the server; close the bots first, or they keep trying to reconnect."""
        await self.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def cdn_url(self) -> str:
        """Where clients fetch an application emoji's image: ``{cdn_url}/emojis/{id}.png``, as from Discord's CDN."""
        return self.base_url

    @property
    def api_url(self) -> str:
        """The value for ``discord.http.Route.BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The value for ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return self.gateway.url

    def _clock(self) -> float:
        return asyncio.get_running_loop().time() + self._clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the emulator's clock forward: interaction deadlines and token lifetimes (15 minutes) run out, and
        messages age, as if ``seconds`` had passed (a ``state.clock`` a test set itself is left alone)."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self._clock_offset += seconds

    # world
    def user(self, name: str) -> User:
        found = next((u for u in self.state.users.values() if u.name == name), None)
        if found is None:
            raise KeyError(f"no user named {name!r}")
        return found

    def add_user(self, name: str, *, bot: bool = False, locale: str = "en-US") -> User:
        """A new account that is also a member of the guild; ``locale`` is its Discord client's language."""
        user = self.state.add_user(name, bot=bot, locale=locale)
        self.guild.member_ids.append(user.id)
        return user

    def add_channel(self, name: str, *, guild: Guild | None = None, threads: bool = True) -> Channel:
        """A new text channel of ``guild`` (default the first; with ``threads=False``, one whose permissions forbid
        threads); a bot that is already connected learns of it when it reconnects."""
        return self.state.add_channel(guild or self.guild, name, threads=threads)

    def add_guild(self, name: str, *, shard: Shard | None = None, bot: bool = True) -> Guild:
        """Another guild, owned by alice, with every user a member; with ``shard`` (``(shard_id, num_shards)``) its
        id belongs to that shard. A bot learns of it when it connects (or reconnects). With ``bot=False`` the bot was
        never invited there: it hears nothing of it, its channel routes answer 403, and only people who installed the
        app (:meth:`install`) can run its user-installable commands there."""
        guild = self.state.add_guild(name, self.user("alice"), shard=shard)
        guild.member_ids = [u.id for u in self.state.users.values() if bot or u.id != self.bot_user.id]
        guild.has_bot = bot
        return guild

    def install(self, user: User) -> None:
        """``user`` adds the app to their account (a user install): its user-installable commands follow them into
        DMs, group DMs and servers without the bot."""
        self.state.user_installs.add(user.id)

    def dm(self, user: User, other: User | None = None) -> Channel:
        """The DM between ``user`` and the bot (context 1), or with ``other`` (a DM between people, context 2: the bot
        is not in it); the same channel each time."""
        people = {user.id, (other or self.bot_user).id}
        found = next(
            (c for c in self.state.channels.values() if c.type == DM_CHANNEL and c.member_ids == people), None
        )
        return found or self.state.add_private_channel([user, other or self.bot_user], group=False)

    def group_dm(self, users: Sequence[User], *, name: str = "") -> Channel:
        """A new group DM of ``users`` (the first owns it); the bot is not a member (context 2)."""
        channel = self.state.add_private_channel(list(users), group=True, name=name)
        channel.owner_id = users[0].id if users else None
        return channel

    @property
    def refused_calls(self) -> list[str]:
        """The bot's calls refused with 403 "Missing Access" (method and path), in order."""
        return self.state.refused_calls

    @property
    def expired_calls(self) -> list[str]:
        """The bot's uses of an interaction token older than 15 minutes (each refused with 401, code 50027)."""
        return self.state.expired_calls

    def channel_calls(self, channel: Channel) -> list[str]:
        """The bot's calls of ``channel``'s routes with its token (answered or refused), in order: none where the bot
        answered interactions only."""
        return [call for call in self.state.bot_calls if f"/channels/{channel.id}/" in f"{call}/"]

    def subscribe(self, hook: Hook) -> Callable[[], None]:
        """Call ``hook(event)`` on every message create/update/delete and thread create/update."""
        return self.state.subscribe(hook)

    @property
    def connected(self) -> bool:
        return self.gateway.connected

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT to the bot, which then RESUMEs."""
        self.gateway.request_reconnect()

    # user-side actions
    def invoke(
        self,
        user: User,
        path: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        channel: ChannelRef = None,
    ) -> InteractionHandle:
        """Run the slash command ``/path...`` as ``user``: ``invoke(alice, ["checkers", "play"], {...})``.

        Option values are converted to the types of the synced schema; users/channels may be objects or ids.
        """
        record, payload = self._factory.command(user, path, options or {}, self._channel(channel))
        return self._dispatch(record, payload)

    def autocomplete(
        self,
        user: User,
        path: Sequence[str],
        options: Mapping[str, Any],
        focused: str,
        *,
        channel: ChannelRef = None,
    ) -> InteractionHandle:
        """The choices for option ``focused`` while ``options[focused]`` is typed (``Reply.choices``)."""
        record, payload = self._factory.command(user, path, options, self._channel(channel), focused=focused)
        return self._dispatch(record, payload)

    def click(self, user: User, message: Message | int, custom_id: str) -> InteractionHandle:
        record, payload = self._factory.component(user, self._message(message), custom_id)
        return self._dispatch(record, payload)

    def select(
        self, user: User, message: Message | int, custom_id: str, values: Sequence[str]
    ) -> InteractionHandle:
        record, payload = self._factory.component(user, self._message(message), custom_id, values)
        return self._dispatch(record, payload)

    def _dispatch(self, record: InteractionRecord, payload: JSON) -> InteractionHandle:
        guild_id = self.state.channels[record.channel_id].guild_id
        if not self.gateway.reaches(guild_id):
            where = "of DMs (0)" if guild_id is None else f"of guild {guild_id}"
            raise RuntimeError(f"no bot is connected to the emulator's gateway on the shard {where}")
        record.dispatched_at = self._clock()
        self.state.interactions[record.id] = record
        record.delivered_to = self.gateway.dispatch("INTERACTION_CREATE", payload, guild_id=guild_id)
        return InteractionHandle(record, self.state, self.answer_timeout)

    # reading
    def messages(self, channel: ChannelRef = None, *, visible_to: UserRef = None) -> list[Message]:
        """Messages of a channel (default ``#checkers``) in order; ephemeral ones only for ``visible_to``."""
        viewer = visible_to.id if isinstance(visible_to, User) else visible_to
        return self.state.channel_messages(self._channel(channel).id, visible_to=viewer)

    def last_message(self, channel: ChannelRef = None, *, visible_to: UserRef = None) -> Message | None:
        found = self.messages(channel, visible_to=visible_to)
        return found[-1] if found else None

    def threads(self, channel: ChannelRef = None) -> list[Channel]:
        """Threads under ``channel`` (default ``#checkers``)."""
        return self.state.threads_of(self._channel(channel).id)

    def registered_commands(self) -> list[RegisteredCommand]:
        """Every command the bot synced, global and guild, by name."""
        return sorted(self.state.commands.values(), key=lambda c: (c.name, c.guild_id or 0))

    def message_json(self, message: Message) -> JSON:
        """The Discord JSON of a message, attachment URLs included (for a sandbox page)."""
        return self.payloads.message(message)

    async def wait_for(
        self, kind: EventKind, check: Callable[[EmulatorEvent], bool] | None = None
    ) -> EmulatorEvent:
        """The next event of ``kind`` that passes ``check``, within ``answer_timeout`` (or TimeoutError)."""
        future: asyncio.Future[EmulatorEvent] = asyncio.get_running_loop().create_future()

        def hook(event: EmulatorEvent) -> None:
            if event.kind == kind and not future.done() and (check is None or check(event)):
                future.set_result(event)

        unsubscribe = self.state.subscribe(hook)
        try:
            return await asyncio.wait_for(future, self.answer_timeout)
        finally:
            unsubscribe()

    def _channel(self, channel: ChannelRef) -> Channel:
        if channel is None:
            return self.channel
        found = self.state.channels.get(channel.id if isinstance(channel, Channel) else channel)
        if found is None:
            raise KeyError(f"no channel {channel!r}")
        return found

    def _message(self, message: Message | int) -> Message:
        found = self.state.messages.get(message.id if isinstance(message, Message) else message)
        if found is None:
            raise KeyError(f"no message {message!r}")
        return found
