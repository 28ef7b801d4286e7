"""The bot-authenticated REST routes under ``/api/v10``: login, commands, channels, messages, threads.

Every route here wants ``Authorization: Bot <token>`` (401 otherwise, which discord.py turns into
``LoginFailure`` at login). Requests no route knows get a JSON 404 and are listed in ``unhandled``.
"""

from __future__ import annotations

import logging
import time

from aiohttp import web

from . import _validate
from ._attachments import download
from ._callbacks import DEFERRED_UPDATE
from ._contexts import bot_can_access
from ._gateway import Gateway
from ._http import ApiError, Handler, api_errors, json_response, loggable, read_body, reject_invalid
from ._limits import EditLimiter
from ._messages import MessageWriter
from ._payloads import PayloadBuilder
from ._state import (
    HAS_THREAD,
    JSON,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Channel,
    EmulatorState,
    Message,
    RegisteredCommand,
    User,
)

_log = logging.getLogger(__name__)

NONCE_LENGTH = 25
NONCE_WINDOW = 300.0
"""Seconds a message's nonce is enforced (Discord: "checked for uniqueness in the past few minutes")."""


class RestApi:
    """Route handlers bound to one emulated world and one bot token."""

    def __init__(
        self,
        state: EmulatorState,
        payloads: PayloadBuilder,
        gateway: Gateway,
        writer: MessageWriter,
        *,
        token: str,
        bot_user: User,
        shards: int = 1,
    ) -> None:
        self.state = state
        self.payloads = payloads
        self.gateway = gateway
        self.writer = writer
        self.bot_user = bot_user
        self.unhandled: list[str] = []
        self.edits = EditLimiter(state)
        """Discord's limits on editing channel messages (a test may change ``edits.limits``)."""
        self._token = token
        self._shards = shards

    def routes(self) -> list[web.RouteDef]:
        """All routes; the catch-all 404 comes last, so register these after any others."""
        bot, api = self._as_bot, "/api/v10"
        msgs = api + "/channels/{channel}/messages"
        return [
            web.get(api + "/users/@me", bot(self.get_me)),
            web.get(api + "/users/{user}", bot(self.get_user)),
            web.get(api + "/oauth2/applications/@me", bot(self.get_application)),
            web.get(api + "/gateway", api_errors(self.get_gateway)),
            web.get(api + "/gateway/bot", bot(self.get_gateway)),
            web.get(api + "/applications/{app}/commands", bot(self.get_commands)),
            web.put(api + "/applications/{app}/commands", bot(self.put_commands)),
            web.get(api + "/applications/{app}/guilds/{guild}/commands", bot(self.get_commands)),
            web.put(api + "/applications/{app}/guilds/{guild}/commands", bot(self.put_commands)),
            web.get(api + "/guilds/{guild}/members/{user}", bot(self.get_member)),
            web.get(api + "/channels/{channel}", bot(self.get_channel)),
            web.patch(api + "/channels/{channel}", bot(self.edit_channel)),
            web.post(api + "/channels/{channel}/typing", bot(self.typing)),
            web.post(api + "/channels/{channel}/threads", bot(self.create_thread)),
            web.put(api + "/channels/{channel}/thread-members/{user}", bot(self.join_thread)),
            web.get(msgs, bot(self.get_messages)),
            web.post(msgs, bot(self.post_message)),
            web.get(msgs + "/{message}", bot(self.get_message)),
            web.patch(msgs + "/{message}", bot(self.edit_message)),
            web.delete(msgs + "/{message}", bot(self.delete_message)),
            web.post(msgs + "/{message}/threads", bot(self.create_thread)),
            web.get("/attachments/{channel}/{attachment}/{filename}", self.get_attachment),
            web.route("*", api + "/{tail:.*}", self.not_found),
        ]

    def _as_bot(self, handler: Handler) -> Handler:
        guarded = api_errors(handler)

        async def checked(request: web.Request) -> web.StreamResponse:
            if request.headers.get("Authorization") != f"Bot {self._token}":
                return json_response({"message": "401: Unauthorized", "code": 0}, 401)
            self.state.bot_calls.append(loggable(request))
            return await guarded(request)

        return checked

    async def not_found(self, request: web.Request) -> web.Response:
        self.unhandled.append(loggable(request))
        _log.warning("no emulated route for %s", loggable(request))
        return json_response({"message": "404: Not Found", "code": 0}, 404)

    def _channel(self, request: web.Request) -> Channel:
        """The channel of the route; 403 "Missing Access" (recorded) where the bot is not: a DM or group DM it is not
        in, a channel of a guild it was never invited to. Only the interaction's webhook works there."""
        channel = self.state.channels.get(int(request.match_info["channel"]))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        if not bot_can_access(self.state, channel, self.bot_user.id):
            self._refuse(request)
        return channel

    def _refuse(self, request: web.Request) -> None:
        self.state.refused_calls.append(loggable(request))
        _log.warning("%s refused: the bot has no access there", loggable(request))
        raise ApiError(403, 50001, "Missing Access")

    def _channel_message(self, request: web.Request) -> Message:
        channel = self._channel(request)
        message = self.state.messages.get(int(request.match_info["message"]))
        if message is None or message.channel_id != channel.id or message.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(self.payloads.channel(self._channel(request)))

    async def edit_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, _ = await read_body(request)
        for key in ("name", "archived", "locked", "auto_archive_duration"):
            if key in body and body[key] is not None:
                setattr(channel, key, body[key])
        if channel.is_thread:
            self.state.emit("thread_update", channel=channel)
        return json_response(self.payloads.channel(channel))

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return web.Response(status=204)

    async def get_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        before, after = int(request.query.get("before", 0)), int(request.query.get("after", 0))
        limit = min(int(request.query.get("limit", 50)), 100)
        found = [
            m
            for m in self.state.channel_messages(channel.id)
            if (not before or m.id < before) and m.id > after
        ]
        newest_first = list(reversed(found[:limit] if after else found[-limit:]))
        return json_response([self.payloads.message(m) for m in newest_first])

    async def post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if channel.is_thread and (channel.archived or channel.locked):
            raise ApiError(400, 50083, "Thread is archived")
        body, files = await read_body(request)
        nonce = None if body.get("nonce") is None else str(body["nonce"])
        if nonce is not None and len(nonce) > NONCE_LENGTH:
            raise ApiError(400, 50035, "Invalid Form Body: nonce must be 25 characters or fewer")
        if nonce is not None and body.get("enforce_nonce"):
            # As Discord does: a message by the same author with the same nonce in the past few minutes is returned
            # instead of creating a second one (a send retried after a lost reply, or by another process).
            earlier = self.state.nonces.get((self.bot_user.id, nonce))
            if earlier is not None and time.monotonic() - earlier[1] < NONCE_WINDOW:
                found = self.state.messages.get(earlier[0])
                if found is not None:
                    return json_response(self.payloads.message(found))
        reference = body.get("message_reference")
        message = self.writer.create(
            channel, body, files, message_reference=reference, type=19 if reference else 0
        )
        self.state.add_message(message)
        if nonce is not None and body.get("enforce_nonce"):
            self.state.nonces[self.bot_user.id, nonce] = (message.id, time.monotonic())
        return json_response(self.payloads.message(message))

    async def get_message(self, request: web.Request) -> web.Response:
        return json_response(self.payloads.message(self._channel_message(request)))

    async def edit_message(self, request: web.Request) -> web.Response:
        message = self._channel_message(request)
        if message.author.id != self.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        refused = self.edits.admit(message)
        if refused is not None:
            return refused
        body, files = await read_body(request)
        self.writer.edit(message, body, files)
        for record in self.state.interactions.values():  # a deferred click may be answered by a plain edit
            if record.message_id == message.id and record.response_type == DEFERRED_UPDATE:
                record.add_message(message.id)
                record.settled.set()
        response = json_response(self.payloads.message(message))
        response.headers.update(self.edits.headers(message.channel_id))
        return response

    async def delete_message(self, request: web.Request) -> web.Response:
        self.state.delete_message(self._channel_message(request))
        return web.Response(status=204)

    async def create_thread(self, request: web.Request) -> web.Response:
        """Both ``/channels/{id}/threads`` and ``/channels/{id}/messages/{id}/threads`` (same id as the
        message, as on Discord)."""
        parent = self._channel(request)
        body, _ = await read_body(request)
        if parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if not parent.threads_allowed:
            raise ApiError(403, 50013, "Missing Permissions")
        if not 1 <= len(body.get("name") or "") <= 100:
            reject_invalid(["name: 1-100 characters"])
        duration = int(body.get("auto_archive_duration") or 1440)
        if "message" in request.match_info:
            message = self._channel_message(request)
            if message.thread_id is not None:
                raise ApiError(400, 160004, "A thread has already been created for this message")
            thread = self.state.add_thread(
                parent, body["name"], self.bot_user, thread_id=message.id, auto_archive_duration=duration
            )
            message.thread_id, message.flags = thread.id, message.flags | HAS_THREAD
            self.state.message_changed(message, edited=False)
        else:
            kind = int(body.get("type") or PRIVATE_THREAD)
            if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
                reject_invalid([f"type: {kind} is not a thread type"])
            thread = self.state.add_thread(
                parent, body["name"], self.bot_user, type=kind, auto_archive_duration=duration
            )
        return json_response(self.payloads.channel(thread), 201)

    async def join_thread(self, request: web.Request) -> web.Response:
        thread = self._channel(request)
        key = request.match_info["user"]
        thread.member_ids.add(self.bot_user.id if key == "@me" else int(key))
        return web.Response(status=204)

    async def get_attachment(self, request: web.Request) -> web.Response:
        wanted = int(request.match_info["attachment"])
        for message in self.state.channel_messages(int(request.match_info["channel"]), visible_to=None):
            for attachment in message.attachments:
                if attachment.id == wanted:
                    return download(attachment)
        return json_response({"message": "404: Not Found", "code": 0}, 404)

    async def get_me(self, request: web.Request) -> web.Response:
        return json_response(self.payloads.user(self.bot_user) | {"verified": True, "mfa_enabled": False})

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.state.users.get(int(request.match_info["user"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(self.payloads.user(user))

    async def get_application(self, request: web.Request) -> web.Response:
        owner = next(iter(self.state.guilds.values())).owner_id if self.state.guilds else self.bot_user.id
        return json_response(
            {
                "id": str(self.bot_user.id),
                "name": self.bot_user.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "owner": self.payloads.user(self.state.users[owner]),
                "team": None,
                "interactions_endpoint_url": None,
                "redirect_uris": [],
                "tags": [],
                "bot": self.payloads.user(self.bot_user),
            }
        )

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.gateway.url.rstrip("/"),
                "shards": self._shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self.state.guilds.get(int(request.match_info["guild"]))
        if guild is not None and not guild.has_bot:
            self._refuse(request)
        user_id = int(request.match_info["user"])
        if guild is None or user_id not in guild.member_ids:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(self.payloads.member(self.state.users[user_id], guild))

    def _scope(self, request: web.Request) -> int | None:
        if request.match_info["app"] != str(self.bot_user.id):
            raise ApiError(403, 50001, "Missing Access")
        guild = request.match_info.get("guild")
        if guild is not None and int(guild) not in self.state.guilds:
            raise ApiError(403, 50001, "Missing Access")
        return None if guild is None else int(guild)

    def _command_payload(self, command: RegisteredCommand) -> JSON:
        data = command.payload | {
            "id": str(command.id),
            "application_id": str(command.application_id),
            "version": str(command.version),
            "type": command.type,
        }
        data.setdefault("description", "")
        if command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        return data

    async def get_commands(self, request: web.Request) -> web.Response:
        guild_id = self._scope(request)
        commands = [c for c in self.state.commands.values() if c.guild_id == guild_id]
        return json_response([self._command_payload(c) for c in commands])

    async def put_commands(self, request: web.Request) -> web.Response:
        """Bulk overwrite: a command keeps its id when its name and type stay, as on Discord."""
        guild_id = self._scope(request)
        body, _ = await read_body(request)
        payloads = list(body) if isinstance(body, list) else []
        reject_invalid(_validate.command_problems(payloads))
        old = {(c.name, c.type): c for c in self.state.commands.values() if c.guild_id == guild_id}
        for command in old.values():
            del self.state.commands[command.id]
        for payload in payloads:
            kind = int(payload.get("type", 1))
            previous = old.get((payload["name"], kind))
            command = RegisteredCommand(
                previous.id if previous else self.state.snowflake(),
                self.bot_user.id,
                payload["name"],
                kind,
                guild_id,
                payload,
                previous.version + 1 if previous else 1,
            )
            self.state.commands[command.id] = command
        current = [c for c in self.state.commands.values() if c.guild_id == guild_id]
        self.state.emit("commands_update")
        return json_response([self._command_payload(c) for c in current])
