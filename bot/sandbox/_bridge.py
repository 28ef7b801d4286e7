"""Between the sandbox page and the Discord emulator: page actions become emulator user actions, emulator events
become page updates.

Each websocket is one viewer acting as one of the emulator's users (``alice``, ``bob``, ``carol``; switchable). A
viewer is sent only the messages that user may see (an ephemeral reply reaches only its user), as the Discord JSON of
:meth:`DiscordEmulator.message_json`. Actions (slash commands, autocomplete, clicks, select choices) run as the
viewer's user; whatever the emulator or the bot refuses comes back as an ``error`` for the page to show in a toast.

The protocol, JSON both ways. The page sends ``{"op": ..., "ref": n, ...}``:

- ``as`` ``user``: act as another user (answered by a new ``snapshot``)
- ``invoke`` ``path`` ``options`` ``channel``; ``autocomplete`` the same plus ``focused``
- ``click`` ``message`` ``custom_id``; ``select`` the same plus ``values``
- ``commands``: the registered slash commands again

and receives ``snapshot``, ``message_create``/``message_update`` (``message``), ``message_delete`` (``id``,
``channel_id``), ``channel`` (a thread that appeared or changed), ``commands``, ``choices`` (``ref``), ``done``
(``ref``: the bot answered) and ``error`` (``ref``, ``text``).

A socket without the sandbox's key (an address without it, or a tab left open on an earlier run's) receives only
``refused`` (``text``: what to do, in one line) and is closed with the code :data:`REFUSED`: retrying cannot help, so
the page shows the line and stops reconnecting. A browser does not let a page read why a handshake was refused, hence
a socket that opens to say it. A socket opened by a page of another origin is refused at the handshake (403).

A message's attachments download from ``/sandbox/files/{message}/{attachment}/{filename}?key=…&as=user``: with the
run's key, and only for a user who may see the message (an ephemeral reply's ``.pdn`` is its user's alone).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from aiohttp import WSMsgType, web

from bot.emulator import (
    Channel,
    DiscordEmulator,
    EmulatorEvent,
    InteractionHandle,
    Message,
    Reply,
    User,
    download,
    find_attachment,
)
from bot.i18n import Text, _, language
from bot.sandbox._key import new_key
from bot.sandbox._options import ActionError, snowflake, typed_options
from bot.sandbox._places import channel_json, sees, visible_channels
from bot.web import StaticFiles

log = logging.getLogger(__name__)

STATIC: Final = StaticFiles(Path(__file__).with_name("static"), "/assets/sandbox", "sandbox_static")
SOCKET_PATH: Final = "/sandbox/ws"
REFUSED: Final = 4003
"""The close code of a socket without the sandbox's key (websocket codes 4000-4999 are the application's)."""
FILES_PATH: Final = "/sandbox/files"
HISTORY: Final = 200
"""Messages per channel a viewer gets on connecting (the newest)."""
_QUEUE_LIMIT: Final = 1000
"""Updates waiting for one slow viewer before it is disconnected (it reconnects and gets a fresh snapshot)."""
_FOREIGN: Final = "the sandbox answers only its own page"
"""The refusal of a request from a page of another origin (no person reads it: only a page of another site gets it)."""
_TIMEOUT_TEXT: Final = "The application did not respond"
"""What Discord shows when a bot leaves an interaction unanswered."""

JSON = dict[str, Any]


class Viewer:
    """One connected page: the user it acts as, and its queue of updates (sent in order by one task)."""

    def __init__(self, socket: web.WebSocketResponse, user: User) -> None:
        self.socket = socket
        self.user = user
        self.queue: asyncio.Queue[JSON | None] = asyncio.Queue(_QUEUE_LIMIT)
        self.tasks: set[asyncio.Task[None]] = set()

    def push(self, update: JSON) -> None:
        try:
            self.queue.put_nowait(update)
        except asyncio.QueueFull:
            log.warning("a sandbox page fell %d updates behind; closing it", _QUEUE_LIMIT)
            self.close()

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    async def send_loop(self) -> None:
        while (update := await self.queue.get()) is not None:
            if self.socket.closed:
                return
            await self.socket.send_json(update)
        await self.socket.close()


async def _modules_as_javascript(request: web.Request, response: web.StreamResponse) -> None:
    """Serve the page's scripts as JavaScript whatever the system's MIME table says: browsers refuse an ES module of
    another type, and on Windows the registry may map ``.js`` to ``text/plain``."""
    if request.path.startswith(STATIC.prefix + "/") and request.path.endswith(".js"):
        response.content_type = "text/javascript"


class SandboxBridge:
    """Serves the sandbox page and its websocket for one started :class:`DiscordEmulator`.

    ``install(app)`` adds ``GET /`` (the page), the websocket and the static files to an aiohttp application that
    has not started yet.
    """

    def __init__(self, emulator: DiscordEmulator, *, default_user: str = "alice", key: str | None = None) -> None:
        self.emulator = emulator
        self.default_user = default_user
        self.key = key if key is not None else new_key()
        """The secret the page's address carries and its socket must present: another page in the user's browser
        (even one whose name resolves to this machine) does not know it, so it gets nothing. New at each start, or
        kept in the sandbox's data folder (:func:`kept_key`)."""
        self.viewers: set[Viewer] = set()
        self._unsubscribe: Callable[[], None] | None = None

    # -- aiohttp --------------------------------------------------------------------------------------------------

    def install(self, app: web.Application, *_: object) -> None:
        """Add the page, its websocket and static files to ``app``; close the sockets when ``app`` shuts down.

        Extra positional arguments are ignored, so this fits a ``setup(app, service)`` hook."""
        app.add_routes(
            [
                web.get("/", self.page),
                web.get(SOCKET_PATH, self.socket),
                web.get(FILES_PATH + "/{message}/{attachment}/{filename}", self.file),
                STATIC.route(),
            ]
        )
        app.on_response_prepare.append(_modules_as_javascript)
        app.on_shutdown.append(self._on_shutdown)

    async def page(self, request: web.Request) -> web.Response:
        text = (STATIC.folder / "index.html").read_text(encoding="utf-8")
        for name in ("sandbox.css", "sandbox.js"):
            text = text.replace(f"{{{{{name}}}}}", str(STATIC.url(request.app, name)))
        # The page's script is an ES module that imports the others as "./name.js": the import map sends each of
        # those to its versioned URL, as above, so a browser never runs a stale module from its cache.
        modules: dict[str, str] = {}
        for path in sorted(STATIC.folder.glob("*.js")):
            versioned = STATIC.url(request.app, path.name)
            modules[str(versioned.with_query(None))] = str(versioned)
        text = text.replace("{{importmap}}", json.dumps({"imports": modules}))
        return web.Response(text=text, content_type="text/html", headers={"Cache-Control": "no-cache"})

    def page_url(self, address: str) -> str:
        """The page's address with the key: the one to open (and the one ``kingme`` prints)."""
        return f"{address}/?key={self.key}"

    def _foreign(self, request: web.Request) -> bool:
        """Whether a page of another origin makes the request: a browser names the page that opens a socket in
        ``Origin``, which must be this server itself."""
        origin = request.headers.get("Origin")
        return origin is not None and origin != f"{request.scheme}://{request.host}"

    def _keyless(self, request: web.Request) -> str | None:
        """What to do instead, in one line in the language of the user the page asks for, when the request does not
        present the sandbox's key (None when it does)."""
        given = request.query.get("key", "")
        if hmac.compare_digest(given, self.key):
            return None
        if given:
            said = _(
                "This page's key is not the running sandbox's (an earlier run's?): open the address kingme printed "
                "when it last started"
            )
        else:
            said = _("This address has no key: open the one kingme printed when it started, which ends in ?key=…")
        try:
            locale = self._user(request.query.get("as", ""), fallback=True).locale
        except ActionError:  # the bot's own name: said in English
            locale = None
        return language(locale).say(said)

    async def socket(self, request: web.Request) -> web.StreamResponse:
        if self._foreign(request):
            raise web.HTTPForbidden(text=_FOREIGN)
        ws = web.WebSocketResponse(heartbeat=30.0, max_msg_size=1 << 20)
        keyless = self._keyless(request)
        await ws.prepare(request)
        if keyless is not None:
            await ws.send_json({"type": "refused", "text": keyless})
            await ws.close(code=REFUSED)
            return ws
        viewer = Viewer(ws, self._user(request.query.get("as", self.default_user), fallback=True))
        self._subscribe()
        self.viewers.add(viewer)
        sender = asyncio.create_task(viewer.send_loop(), name="sandbox-viewer")
        viewer.push(self.snapshot(viewer.user))
        try:
            async for frame in ws:
                if frame.type is WSMsgType.TEXT:
                    self._receive(viewer, frame.data)
                elif frame.type is WSMsgType.ERROR:
                    break
        finally:
            self.viewers.discard(viewer)
            viewer.close()
            for task in list(viewer.tasks):
                task.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await sender
        return ws

    async def file(self, request: web.Request) -> web.Response:
        """An attachment as a download, for a user (``as``) who may see its message: a 404 for anyone else."""
        refusal = _FOREIGN if self._foreign(request) else self._keyless(request)
        if refusal is not None:
            raise web.HTTPForbidden(text=refusal)
        try:
            user = self._user(request.query.get("as", ""))
            message_id, attachment_id = (snowflake(request.match_info[k], k) for k in ("message", "attachment"))
        except ActionError:
            raise web.HTTPNotFound(text="no such file") from None
        found = find_attachment(self.emulator.state, message_id, attachment_id, visible_to=user.id)
        if found is None:
            raise web.HTTPNotFound(text="no such file")
        return download(found[1])

    async def close(self) -> None:
        """Disconnect every page and stop listening to the emulator."""
        for viewer in list(self.viewers):
            viewer.close()
            with contextlib.suppress(Exception):
                await viewer.socket.close()
        self.viewers.clear()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    async def _on_shutdown(self, app: web.Application) -> None:
        await self.close()

    # -- state for the page -----------------------------------------------------------------------------------------

    def snapshot(self, user: User) -> JSON:
        """Everything a page shows on connecting, as ``user`` sees it."""
        emulator = self.emulator
        guild = emulator.guild
        channels = visible_channels(emulator, user)
        messages: list[JSON] = []
        for channel in channels:
            for message in emulator.messages(channel, visible_to=user)[-HISTORY:]:
                messages.append(emulator.message_json(message))
        return {
            "type": "snapshot",
            "me": _user_json(user),
            "bot": _user_json(emulator.bot_user),
            "users": [_user_json(u) for u in emulator.state.users.values()],
            "players": [u.name for u in emulator.state.users.values() if not u.bot],
            "guild": {"id": str(guild.id), "name": guild.name},
            "channel_id": str(emulator.channel.id),
            "channels": [channel_json(emulator, c, user) for c in channels],
            "messages": messages,
            "commands": self.commands(),
            "cdn": emulator.cdn_url,
        }

    def commands(self) -> list[JSON]:
        """The slash commands the bot synced, as it sent them (names, descriptions, options, choices)."""
        return [c.payload | {"id": str(c.id)} for c in self.emulator.registered_commands() if c.type == 1]

    # -- emulator events --------------------------------------------------------------------------------------------

    def _subscribe(self) -> None:
        if self._unsubscribe is None:
            self._unsubscribe = self.emulator.subscribe(self._on_event)

    def _on_event(self, event: EmulatorEvent) -> None:
        """Turn one change of the emulated world into an update for each page that may see it (in the emulator's
        thread of control, so the message is serialised as it is now)."""
        if not self.viewers:
            return
        if event.message is not None:
            message = event.message
            if event.kind == "message_delete":
                update: JSON = {"type": "message_delete", "id": str(message.id), "channel_id": str(message.channel_id)}
                for viewer in self.viewers:
                    viewer.push(update)
                return
            update = {"type": event.kind, "message": self.emulator.message_json(message)}
            for viewer in self.viewers:
                if message.visible_for(viewer.user.id) and sees(self.emulator, viewer.user, message.channel_id):
                    viewer.push(update)
        elif event.channel is not None:
            for viewer in self.viewers:
                if sees(self.emulator, viewer.user, event.channel.id):
                    viewer.push({"type": "channel", "channel": channel_json(self.emulator, event.channel, viewer.user)})

    # -- page actions -----------------------------------------------------------------------------------------------

    def _receive(self, viewer: Viewer, text: str) -> None:
        ref: object = None
        try:
            request = json.loads(text)
            if not isinstance(request, dict):
                raise ActionError("an action is a JSON object")
            ref = request.get("ref")
            self._act(viewer, request, ref)
        except ActionError as exc:
            said = exc.args[0] if exc.args and isinstance(exc.args[0], Text) else str(exc)
            viewer.push(_error(ref, language(viewer.user.locale).say(said)))
        except (ValueError, KeyError, TypeError, RuntimeError) as exc:
            # the emulator's validation (what the Discord client would refuse to send) and malformed requests
            viewer.push(_error(ref, _describe(exc)))

    def _act(self, viewer: Viewer, request: JSON, ref: object) -> None:
        op = request.get("op")
        emulator = self.emulator
        if op == "as":
            viewer.user = self._user(str(request.get("user", "")))
            viewer.push(self.snapshot(viewer.user))
        elif op == "commands":
            viewer.push({"type": "commands", "ref": ref, "commands": self.commands()})
        elif op in ("invoke", "autocomplete"):
            path = request.get("path")
            if not isinstance(path, list) or not all(isinstance(p, str) for p in path) or not path:
                raise ActionError("a command path is a list of names")
            options = request.get("options") or {}
            if not isinstance(options, dict):
                raise ActionError("options are an object of names and values")
            channel = self._channel(request.get("channel"))
            if not sees(emulator, viewer.user, channel.id):
                raise ActionError("that channel is gone")
            focused = str(request.get("focused", "")) if op == "autocomplete" else None
            options = typed_options(emulator, self.commands(), path, options, focused)
            if op == "invoke":
                handle = emulator.invoke(viewer.user, path, options, channel=channel)
                self._follow(viewer, ref, handle, _done)
            else:
                handle = emulator.autocomplete(viewer.user, path, options, focused or "", channel=channel)
                self._follow(viewer, ref, handle, _choices)
        elif op in ("click", "select"):
            message = self._message(viewer, request.get("message"))
            custom_id = str(request.get("custom_id", ""))
            if op == "click":
                handle = emulator.click(viewer.user, message, custom_id)
            else:
                values = request.get("values")
                if not isinstance(values, list):
                    raise ActionError("a select sends a list of values")
                handle = emulator.select(viewer.user, message, custom_id, [str(v) for v in values])
            self._follow(viewer, ref, handle, _done)
        else:
            raise ActionError(f"unknown action {op!r}")

    def _follow(
        self, viewer: Viewer, ref: object, handle: InteractionHandle, answer: Callable[[object, Reply], JSON]
    ) -> None:
        """Wait for the bot's answer in the background and tell the page (the updates arrive as events)."""

        async def wait() -> None:
            try:
                reply = await handle
            except TimeoutError:
                viewer.push(_error(ref, _TIMEOUT_TEXT))
                return
            viewer.push(answer(ref, reply))

        task = asyncio.create_task(_logged(wait()), name="sandbox-interaction")
        viewer.tasks.add(task)
        task.add_done_callback(viewer.tasks.discard)

    def _user(self, name: str, *, fallback: bool = False) -> User:
        try:
            user = self.emulator.user(name)
        except KeyError:
            if fallback:
                return self.emulator.user(self.default_user)
            raise ActionError(f"there is no user {name!r}") from None
        if user.bot:
            raise ActionError("the sandbox cannot act as the bot")
        return user

    def _channel(self, value: object) -> Channel:
        if value is None:
            return self.emulator.channel
        channel = self.emulator.state.channels.get(snowflake(value, "channel"))
        if channel is None:
            raise ActionError("that channel is gone")
        return channel

    def _message(self, viewer: Viewer, value: object) -> Message:
        message = self.emulator.state.messages.get(snowflake(value, "message"))
        if (
            message is None
            or not message.visible_for(viewer.user.id)
            or not sees(self.emulator, viewer.user, message.channel_id)
        ):
            raise ActionError("that message is gone")
        return message


async def _logged(work: Awaitable[None]) -> None:
    try:
        await work
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("a sandbox interaction failed")


def _user_json(user: User) -> JSON:
    return {"id": str(user.id), "name": user.name, "bot": user.bot}


def _done(ref: object, reply: Reply) -> JSON:
    return {"type": "done", "ref": ref, "messages": [str(m.id) for m in reply.messages]}


def _choices(ref: object, reply: Reply) -> JSON:
    return {"type": "choices", "ref": ref, "choices": reply.choices}


def _error(ref: object, text: str) -> JSON:
    return {"type": "error", "ref": ref, "text": text}


def _describe(exc: BaseException) -> str:
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return text or type(exc).__name__
