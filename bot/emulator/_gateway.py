"""The gateway websocket: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME, and dispatch.

Frames are plain JSON text; discord.py asks for zlib-stream compression but only inflates binary frames.
Every dispatch goes through a session's outbox in order, and is kept in a backlog so a client that
reconnects with RESUME receives what it missed.

Shards work as on Discord: an IDENTIFY with ``shard: [id, count]`` makes a session that owns the guilds with
``(guild_id >> 22) % count == id``; its READY lists, and GUILD_CREATE, guild events and interactions reach it
for, only those guilds. A session without ``shard`` owns every guild.

Heartbeats are acknowledged after ``heartbeat_ack_delay``, a network round trip, as Discord's are: discord.py
notes the time it sent a heartbeat only once the send has returned to its keep-alive thread, and an ACK that
arrives before that (an emulator on the same host answers in microseconds) is measured from the heartbeat
before, which it reports as "Can't keep up, ... 41.2s behind".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from ._payloads import PayloadBuilder
from ._state import JSON, EmulatorEvent, EmulatorState, Guild, Message, Shard, User, shard_of

_log = logging.getLogger(__name__)

# gateway opcodes
DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT = 0, 1, 2, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11
INVALID_SHARD = 4010  # close code
GUILDS_INTENT, GUILD_MESSAGES_INTENT, MESSAGE_CONTENT_INTENT = 1 << 0, 1 << 9, 1 << 15
_BACKLOG = 1000
RESUME_WINDOW = 30.0  # seconds a dropped session stays resumable
HEARTBEAT_ACK_DELAY = 0.05  # seconds: a round trip to Discord


class _Connection:
    """One websocket; frames are queued and written by a single task so they keep their order."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self._outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write())

    def send(self, frame: JSON) -> None:
        self._outbox.put_nowait(json.dumps(frame))

    async def _write(self) -> None:
        while (text := await self._outbox.get()) is not None and not self.ws.closed:
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int = 1000) -> None:
        """Write what is queued (for at most a second), then close."""
        self._outbox.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._writer), 1.0)
        self._writer.cancel()
        with contextlib.suppress(Exception):
            await self.ws.close(code=code)


@dataclass(eq=False)
class _Session:
    id: str
    intents: int
    shard: Shard | None
    conn: _Connection | None = None
    disconnected_at: float = 0.0
    seq: int = 0
    backlog: deque[JSON] = field(default_factory=lambda: deque(maxlen=_BACKLOG))

    def push(self, event: str, data: JSON) -> None:
        self.seq += 1
        frame = {"op": DISPATCH, "t": event, "s": self.seq, "d": data}
        self.backlog.append(frame)
        if self.conn is not None:
            self.conn.send(frame)

    def owns(self, guild_id: int | None) -> bool:
        """True when this session's shard is the one of ``guild_id`` (every guild for an unsharded session); events
        without a guild (DMs, group DMs) go to shard 0, as on Discord."""
        if self.shard is None:
            return True
        return self.shard[0] == (0 if guild_id is None else shard_of(guild_id, self.shard[1]))


class Gateway:
    """Serves ``/gateway/`` for the bot account whose token is ``token``."""

    def __init__(
        self,
        state: EmulatorState,
        payloads: PayloadBuilder,
        *,
        token: str,
        bot_user: User,
        heartbeat_interval: float = 41.25,
        heartbeat_ack_delay: float = HEARTBEAT_ACK_DELAY,
    ) -> None:
        self.state = state
        self.payloads = payloads
        self.bot_user = bot_user
        self.url = ""  # ws://host:port/gateway/, set when the server listens
        self._token = token
        self._heartbeat_ms = int(heartbeat_interval * 1000)
        self._ack_delay = heartbeat_ack_delay
        self._sessions: dict[str, _Session] = {}
        self._connections: set[_Connection] = set()
        self.identifies = 0
        self.resumes = 0
        self.heartbeats = 0

    @property
    def connected(self) -> bool:
        """True while some client holds a live, identified connection."""
        return any(s.conn is not None for s in self._sessions.values())

    @property
    def shards(self) -> list[Shard | None]:
        """The shard of each live, identified connection (None: unsharded)."""
        return [s.shard for s in self._sessions.values() if s.conn is not None]

    @property
    def reachable(self) -> bool:
        """True when events can reach a client: live, or resumable after a dropped connection."""
        self._prune()
        return bool(self._sessions)

    def reaches(self, guild_id: int | None) -> bool:
        """True when the events of ``guild_id`` can reach the session of its shard (live or resumable)."""
        self._prune()
        return any(s.owns(guild_id) for s in self._sessions.values())

    def _prune(self) -> None:
        now = time.monotonic()
        for session in list(self._sessions.values()):
            if session.conn is None and now - session.disconnected_at > RESUME_WINDOW:
                del self._sessions[session.id]

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = _Connection(ws)
        self._connections.add(conn)
        conn.send({"op": HELLO, "d": {"heartbeat_interval": self._heartbeat_ms}})
        session: _Session | None = None
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op, data = frame.get("op"), frame.get("d")
                if op == HEARTBEAT:
                    self.heartbeats += 1
                    asyncio.get_running_loop().call_later(self._ack_delay, conn.send, {"op": HEARTBEAT_ACK})
                elif op == IDENTIFY:
                    session = await self._identify(conn, data)
                elif op == RESUME:
                    session = self._resume(conn, data)
                elif op == REQUEST_MEMBERS:
                    self._send_members(session, data)
        finally:
            self._connections.discard(conn)
            await conn.close()
            if session is not None and session.conn is conn:
                # discord.py's close() races its reader and sends 4000, so any close leaves the session
                # resumable; it ends when the window passes or the client identifies afresh
                session.conn, session.disconnected_at = None, time.monotonic()
        return ws

    async def _identify(self, conn: _Connection, data: JSON) -> _Session | None:
        if data.get("token") != self._token:
            await conn.close(code=4004)
            return None
        shard = _shard(data.get("shard"))
        if "shard" in data and shard is None:
            await conn.close(code=INVALID_SHARD)
            return None
        self.identifies += 1
        for stale in [s for s in self._sessions.values() if s.conn is None and s.shard == shard]:
            del self._sessions[stale.id]
        session = _Session(secrets.token_hex(16), int(data.get("intents", 0)), shard, conn)
        self._sessions[session.id] = session
        ready: JSON = {
            "v": 10,
            "user": self.payloads.user(self.bot_user) | {"verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self._bot_guilds() if session.owns(g.id)],
            "session_id": session.id,
            "resume_gateway_url": self.url,
            "session_type": "normal",
            "application": {"id": str(self.bot_user.id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        session.push("READY", ready)
        for guild in self._bot_guilds():
            if session.owns(guild.id):
                session.push("GUILD_CREATE", self.payloads.guild(guild))
        return session

    def _resume(self, conn: _Connection, data: JSON) -> _Session | None:
        session = self._sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self._token:
            conn.send({"op": INVALID_SESSION, "d": False})
            return None
        self.resumes += 1
        if session.conn is not None and session.conn is not conn:
            asyncio.create_task(session.conn.close(code=4000))  # noqa: RUF006 - fire and forget
        session.conn = conn
        last_seen = data.get("seq") or 0
        for frame in session.backlog:
            if frame["s"] > last_seen:
                conn.send(frame)
        session.push("RESUMED", {})
        return session

    def _send_members(self, session: _Session | None, data: JSON) -> None:
        if session is None:
            return
        requested = data.get("guild_id")
        for guild_id in requested if isinstance(requested, list) else [requested]:
            guild = self.state.guilds.get(int(guild_id or 0))
            if guild is not None and session.owns(guild.id):
                members = [self.payloads.member(u, guild) for u in self.state.guild_members(guild)]
                session.push(
                    "GUILD_MEMBERS_CHUNK",
                    {
                        "guild_id": str(guild.id),
                        "members": members,
                        "chunk_index": 0,
                        "chunk_count": 1,
                        "nonce": data.get("nonce"),
                    },
                )

    def dispatch(self, event: str, data: JSON, *, intent: int = 0, guild_id: int | None = None) -> list[Shard | None]:
        """Send an event to every session that asked for ``intent`` (0: always) and, for an event of ``guild_id``,
        owns that guild; returns the shards it went to."""
        self._prune()
        sessions = [s for s in self._sessions.values() if (not intent or s.intents & intent) and s.owns(guild_id)]
        for session in sessions:
            session.push(event, data)
        return [s.shard for s in sessions]

    def _bot_guilds(self) -> list[Guild]:
        """The guilds the bot is in (not those where only a user installed the app)."""
        return [g for g in self.state.guilds.values() if g.has_bot]

    def _bot_in(self, guild_id: int | None) -> bool:
        guild = self.state.guilds.get(guild_id or 0)
        return guild is not None and guild.has_bot

    def on_state_event(self, event: EmulatorEvent) -> None:
        """The observer that tells the bot what changed: messages, thread creation and updates, in guilds it is in."""
        changed = event.message.guild_id if event.message is not None else None
        if event.channel is not None:
            changed = event.channel.guild_id
        if not self._bot_in(changed):
            return
        if event.message is not None and not event.message.ephemeral and event.message.guild_id is not None:
            message = event.message
            if event.kind == "message_delete":
                data = {
                    "id": str(message.id),
                    "channel_id": str(message.channel_id),
                    "guild_id": str(message.guild_id),
                }
                self.dispatch("MESSAGE_DELETE", data, intent=GUILD_MESSAGES_INTENT, guild_id=message.guild_id)
                return
            name = "MESSAGE_CREATE" if event.kind == "message_create" else "MESSAGE_UPDATE"
            full = self.payloads.message(message)
            for session in self._sessions.values():
                if session.intents & GUILD_MESSAGES_INTENT and session.owns(message.guild_id):
                    session.push(name, full if self._may_read(session, message) else _without_content(full))
        elif event.channel is not None:
            thread: JSON = self.payloads.channel(event.channel)
            if event.kind == "thread_create":
                thread["newly_created"] = True
            name = "THREAD_CREATE" if event.kind == "thread_create" else "THREAD_UPDATE"
            self.dispatch(name, thread, intent=GUILDS_INTENT, guild_id=event.channel.guild_id)

    def _may_read(self, session: _Session, message: Message) -> bool:
        """Without the message content intent a bot reads only its own messages and those mentioning it."""
        return (
            bool(session.intents & MESSAGE_CONTENT_INTENT)
            or message.author.id == self.bot_user.id
            or (self.bot_user.mention in message.content)
        )

    def request_reconnect(self) -> None:
        """Ask every live connection to reconnect (op 7); discord.py answers with a RESUME."""
        for session in self._sessions.values():
            if session.conn is not None:
                session.conn.send({"op": RECONNECT, "d": None})

    async def close(self) -> None:
        for conn in list(self._connections):
            await conn.close(code=1001)
        self._sessions.clear()


def _shard(value: object) -> Shard | None:
    """IDENTIFY's ``shard`` as a pair, or None when it is not ``[id, count]`` with ``0 <= id < count``."""
    if not isinstance(value, list) or len(value) != 2 or not all(isinstance(v, int) for v in value):
        return None
    shard_id, count = value
    return (shard_id, count) if 0 <= shard_id < count else None


def _without_content(message: JSON) -> JSON:
    return message | {"content": "", "embeds": [], "attachments": [], "components": []}
