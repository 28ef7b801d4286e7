"""The emulated Discord world as plain data: users, guilds, channels, messages, commands, interactions.

Nothing here knows about HTTP or websockets. The REST routes, the gateway and the Python API all change
the world through :class:`EmulatorState`, which tells its observers (the gateway, a sandbox page, tests)
about each change through :meth:`EmulatorState.subscribe`.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

_log = logging.getLogger(__name__)

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
BOT_CALLS_KEPT = 10_000
"""How many of the bot's calls the emulator remembers (a sandbox runs for days)."""
HAS_THREAD = 1 << 5
TEXT_CHANNEL = 0
DM_CHANNEL = 1
GROUP_DM_CHANNEL = 3
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({10, PUBLIC_THREAD, PRIVATE_THREAD})

EventKind = Literal[
    "message_create", "message_update", "message_delete", "thread_create", "thread_update", "commands_update"
]
JSON = dict[str, Any]


def utcnow() -> datetime:
    return datetime.now(UTC)


Shard = tuple[int, int]
"""A gateway shard as IDENTIFY names it: ``(shard_id, num_shards)``."""


def shard_of(guild_id: int, num_shards: int) -> int:
    """The shard a guild belongs to, by Discord's rule: ``(guild_id >> 22) % num_shards``."""
    return (guild_id >> 22) % num_shards


Clock = Callable[[], float]
"""Epoch seconds."""


class SnowflakeGenerator:
    """Discord-style ids: milliseconds since the Discord epoch, shifted left 22 bits, plus a counter."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._last = 0

    def __call__(self) -> int:
        stamp = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        value = max(stamp | (next(self._counter) & 0xFFF), self._last + 1)
        self._last = value
        return value

    def on_shard(self, shard: Shard) -> int:
        """A new id that belongs to ``shard`` (for a guild): the next id, its timestamp moved on a few ms if need be."""
        shard_id, count = shard
        value = self()
        value += ((shard_id - shard_of(value, count)) % count) << 22
        self._last = value
        return value

    @property
    def last(self) -> int:
        """The newest id given out (0 before the first)."""
        return self._last

    def advance_past(self, value: int) -> None:
        """Give out only ids above ``value`` from now on (a restored world's ids stay unique, whatever the clock)."""
        self._last = max(self._last, value)


@dataclass(eq=False)
class User:
    """A Discord account; ``bot`` marks bot accounts (the emulated application's own user is one)."""

    id: int
    name: str
    bot: bool = False
    locale: str = "en-US"
    """The language of the person's Discord client (sent as each interaction's ``locale``); set it to test a
    translation, e.g. ``"fr"``."""

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass(eq=False)
class Channel:
    """A guild text channel, a thread when ``parent_id`` is set, or a DM / group DM (``guild_id`` None, its people in
    ``member_ids``)."""

    id: int
    guild_id: int | None
    name: str
    type: int = TEXT_CHANNEL
    position: int = 0
    parent_id: int | None = None
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    created_at: datetime = field(default_factory=utcnow)
    member_ids: set[int] = field(default_factory=set)
    threads_allowed: bool = True
    """False for a channel whose permissions forbid threads: opening one there is refused (403)."""

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_private(self) -> bool:
        """A DM or a group DM: no guild."""
        return self.guild_id is None


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    member_ids: list[int] = field(default_factory=list)
    joined_at: datetime = field(default_factory=utcnow)
    locale: str = "en-US"
    """The server's language (``preferred_locale``, and each interaction's ``guild_locale``)."""
    manager_ids: list[int] = field(default_factory=list)
    """Members with the Manage Server permission (sent in their interactions' permissions); nobody by default."""
    has_bot: bool = True
    """False for a server the bot was never invited to: the bot gets no event of it and may use none of its channels;
    only people who installed the app to their account can run its commands there."""


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    description: str | None = None


@dataclass(eq=False)
class Message:
    """A message as the emulator holds it; :mod:`._payloads` turns it into Discord JSON.

    ``visible_to`` is the only user who sees an ephemeral message. ``interaction_metadata`` is the raw
    Discord object linking a response to the interaction that caused it.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    visible_to: int | None = None
    interaction_metadata: JSON | None = None
    message_reference: JSON | None = None
    webhook_id: int | None = None
    thread_id: int | None = None
    created_at: datetime = field(default_factory=utcnow)
    edited_at: datetime | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while the message is the "thinking..." placeholder of a deferred interaction."""
        return bool(self.flags & LOADING)

    def visible_for(self, user_id: int | None) -> bool:
        return not self.ephemeral or (user_id is not None and self.visible_to == user_id)

    def iter_components(self) -> Iterator[JSON]:
        """Every component at any depth (action rows, their children, v2 containers and accessories)."""
        stack = list(reversed(self.components))
        while stack:
            component = stack.pop()
            yield component
            children = list(component.get("components", []))
            if "accessory" in component:
                children.append(component["accessory"])
            stack.extend(reversed(children))


@dataclass(eq=False)
class RegisteredCommand:
    """An application command as the bot synced it; ``payload`` is what the bot sent, ids added."""

    id: int
    application_id: int
    name: str
    type: int
    guild_id: int | None
    payload: JSON
    version: int = 1

    @property
    def options(self) -> list[JSON]:
        return list(self.payload.get("options") or [])

    def localised(self, locale: str) -> JSON:
        """The command as a Discord client in ``locale`` shows it: every name, description and choice name in that
        language where the bot gave one (``name_localizations``, ``description_localizations``), else as it is."""
        return _localised(self.payload, locale)


def _localised(item: JSON, locale: str) -> JSON:
    shown = dict(item)
    for key in ("name", "description"):
        translated = (item.get(f"{key}_localizations") or {}).get(locale)
        if translated:
            shown[key] = translated
    for key in ("options", "choices"):
        if item.get(key):
            shown[key] = [_localised(child, locale) for child in item[key]]
    return shown


@dataclass(eq=False)
class InteractionRecord:
    """One interaction sent to the bot, and what the bot did with it.

    ``latency`` is the time from dispatch to the first callback, the figure Discord holds to 3 seconds.
    ``settled`` is set once the bot has produced its real answer: a message, an update, choices or a modal,
    or, after a deferral, the first follow-up or edit. ``delivered_to`` lists the shard of each gateway connection
    the interaction went out on (None: an unsharded one), and ``callbacks`` counts the bot's attempts to answer it,
    refused ones included: Discord's promise is one delivery, over the guild's shard, and one answer.
    """

    id: int
    token: str
    type: int
    user: User
    channel_id: int
    name: str
    message_id: int | None = None
    dispatched_at: float = 0.0
    responded_at: float | None = None
    response_type: int | None = None
    original_message_id: int | None = None
    message_ids: list[int] = field(default_factory=list)
    choices: list[JSON] | None = None
    modal: JSON | None = None
    delivered_to: list[Shard | None] = field(default_factory=list)
    callbacks: int = 0
    context: int = 0
    """Where it was used, as Discord's ``context``: 0 a guild, 1 the DM with the bot, 2 a DM or group DM of people."""
    owners: dict[str, str] = field(default_factory=dict)
    """Its ``authorizing_integration_owners``: ``{"0": guild_id}`` (``"0"`` in the DM with the bot) for the server
    install, ``{"1": user_id}`` for the user install."""
    followups: int = 0
    settled: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def answered(self) -> bool:
        return self.response_type is not None

    @property
    def latency(self) -> float | None:
        return None if self.responded_at is None else self.responded_at - self.dispatched_at

    def add_message(self, message_id: int) -> None:
        if message_id not in self.message_ids:
            self.message_ids.append(message_id)


@dataclass(frozen=True)
class EmulatorEvent:
    """A change to the world; ``message`` or ``channel`` is the live object that changed."""

    kind: EventKind
    message: Message | None = None
    channel: Channel | None = None


Hook = Callable[[EmulatorEvent], None]


class EmulatorState:
    """All emulated objects, keyed by id, plus the observers of their changes.

    ``clock`` (epoch seconds, :func:`time.time` by default) dates messages (their ``timestamp`` and
    ``edited_timestamp``) and so tells how old a message is: a test may replace it (``state.clock = its_clock``) to age
    messages by hours at once. Ids stay on real time, as the bot's own clock does: discord.py dates an interaction by
    its id and compares that with its clock for Discord's 3-second deadline.
    """

    def __init__(self, clock: Clock = time.time) -> None:
        self.clock = clock
        self.snowflake = SnowflakeGenerator()
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.commands: dict[int, RegisteredCommand] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.user_installs: set[int] = set()
        self.nonces: dict[tuple[int, str], tuple[int, float]] = {}
        """(author, nonce) -> (message id, when): the messages created with ``enforce_nonce`` (see ``NONCE_WINDOW``)."""
        """The users who added the app to their account (a user install)."""
        self.refused_calls: list[str] = []
        """Every bot call refused with 403 "Missing Access" (method and path): a channel or guild the bot is not in."""
        self.expired_calls: list[str] = []
        """Every use of an interaction's webhook refused because its token was older than 15 minutes (code 50027)."""
        self.bot_calls: collections.deque[str] = collections.deque(maxlen=BOT_CALLS_KEPT)
        """The calls the bot made with its token (method and path), the last :data:`BOT_CALLS_KEPT` in order; the
        interaction webhooks, which take no bot token, are not among them."""
        self._hooks: list[Hook] = []

    # observers
    def subscribe(self, hook: Hook) -> Callable[[], None]:
        """Call ``hook`` on every change; returns a function that unsubscribes it."""
        self._hooks.append(hook)
        return lambda: self._hooks.remove(hook) if hook in self._hooks else None

    def emit(self, kind: EventKind, *, message: Message | None = None, channel: Channel | None = None) -> None:
        event = EmulatorEvent(kind, message=message, channel=channel)
        for hook in list(self._hooks):
            try:
                hook(event)
            except Exception:
                _log.exception("emulator observer %r failed on %s", hook, kind)

    # creation
    def add_user(self, name: str, *, bot: bool = False, locale: str = "en-US") -> User:
        user = User(self.snowflake(), name, bot, locale)
        self.users[user.id] = user
        return user

    def add_guild(self, name: str, owner: User, *, shard: Shard | None = None) -> Guild:
        """A new guild; with ``shard`` its id is one that belongs to that shard."""
        guild_id = self.snowflake() if shard is None else self.snowflake.on_shard(shard)
        guild = Guild(guild_id, name, owner.id, [owner.id])
        self.guilds[guild.id] = guild
        return guild

    def add_channel(self, guild: Guild, name: str, *, threads: bool = True) -> Channel:
        position = sum(1 for c in self.channels.values() if c.guild_id == guild.id and not c.is_thread)
        channel = Channel(self.snowflake(), guild.id, name, position=position, threads_allowed=threads)
        self.channels[channel.id] = channel
        return channel

    def add_private_channel(self, members: list[User], *, group: bool, name: str = "") -> Channel:
        """A DM (two people, or one person and the bot) or a group DM (``group``) between ``members``."""
        kind = GROUP_DM_CHANNEL if group else DM_CHANNEL
        channel = Channel(self.snowflake(), None, name, type=kind, member_ids={u.id for u in members})
        self.channels[channel.id] = channel
        return channel

    def add_thread(
        self,
        parent: Channel,
        name: str,
        owner: User,
        *,
        type: int = PUBLIC_THREAD,
        thread_id: int | None = None,
        auto_archive_duration: int = 1440,
    ) -> Channel:
        thread = Channel(
            thread_id or self.snowflake(),
            parent.guild_id,
            name,
            type=type,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
            member_ids={owner.id},
        )
        self.channels[thread.id] = thread
        self.emit("thread_create", channel=thread)
        return thread

    def add_message(self, message: Message) -> Message:
        message.created_at = datetime.fromtimestamp(self.clock(), UTC)
        self.messages[message.id] = message
        self.emit("message_create", message=message)
        return message

    def message_changed(self, message: Message, *, edited: bool = True) -> None:
        if edited:
            message.edited_at = datetime.fromtimestamp(self.clock(), UTC)
        self.emit("message_update", message=message)

    def delete_message(self, message: Message) -> None:
        self.messages.pop(message.id, None)
        self.emit("message_delete", message=message)

    # queries
    def age(self, message: Message) -> float:
        """Seconds since ``message`` was created, by :attr:`clock`."""
        return self.clock() - message.created_at.timestamp()

    def channel_messages(self, channel_id: int, *, visible_to: int | None = None) -> list[Message]:
        return [m for m in self.messages.values() if m.channel_id == channel_id and m.visible_for(visible_to)]

    def threads_of(self, channel_id: int | None = None) -> list[Channel]:
        return [c for c in self.channels.values() if c.is_thread and channel_id in (None, c.parent_id)]

    def guild_members(self, guild: Guild) -> list[User]:
        return [self.users[uid] for uid in guild.member_ids if uid in self.users]
