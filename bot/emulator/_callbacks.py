"""The bot's side of an interaction: the callback, follow-ups and edits of its messages through the token.

These routes carry no Authorization header; the interaction token is the credential. Each call updates
the :class:`InteractionRecord`, which is what a waiting :class:`InteractionHandle` watches.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiohttp import web

from . import _validate
from ._contexts import FOLLOWUP_LIMIT, user_install_only
from ._http import ApiError, Files, api_errors, json_response, loggable, read_body, reject_invalid
from ._messages import MessageWriter
from ._payloads import PayloadBuilder
from ._state import EPHEMERAL, JSON, LOADING, EmulatorState, InteractionRecord, Message, User

_log = logging.getLogger(__name__)

# interaction callback types
PONG, CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE = 1, 4, 5, 6
UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = 7, 8, 9
# the callback types each interaction type accepts (2 command, 3 component, 4 autocomplete, 5 modal submit)
_ALLOWED = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}
TOKEN_LIFETIME = 15 * 60


class InteractionApi:
    """``POST /interactions/{id}/{token}/callback`` and ``/webhooks/{app}/{token}...``.

    A first callback later than ``response_deadline`` seconds (None: no limit) gets Discord's 404
    "Unknown interaction"; the record keeps the time of that attempt but stays unanswered.
    """

    def __init__(
        self,
        state: EmulatorState,
        payloads: PayloadBuilder,
        writer: MessageWriter,
        *,
        bot_user: User,
        clock: Callable[[], float],
        response_deadline: float | None = 3.0,
    ) -> None:
        self.state = state
        self.payloads = payloads
        self.writer = writer
        self.bot_user = bot_user
        self.clock = clock
        self.response_deadline = response_deadline

    def routes(self) -> list[web.RouteDef]:
        message = "/api/v10/webhooks/{app}/{token}/messages/{message}"
        return [
            web.post("/api/v10/interactions/{interaction}/{token}/callback", api_errors(self.callback)),
            web.post("/api/v10/webhooks/{app}/{token}", api_errors(self.post_followup)),
            web.get(message, api_errors(self.get_message)),
            web.patch(message, api_errors(self.edit_message)),
            web.delete(message, api_errors(self.delete_message)),
        ]

    async def callback(self, request: web.Request) -> web.Response:
        record = self.state.interactions.get(int(request.match_info["interaction"]))
        if record is None or record.token != request.match_info["token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        record.callbacks += 1
        if record.answered:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        now = self.clock()
        if now - record.dispatched_at > TOKEN_LIFETIME:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if self.response_deadline is not None and now - record.dispatched_at > self.response_deadline:
            record.responded_at = record.responded_at or now
            late = now - record.dispatched_at
            _log.warning("interaction %r answered after %.2fs: refused as Discord would", record.name, late)
            raise ApiError(404, 10062, "Unknown interaction")
        body, files = await read_body(request)
        kind, data = int(body.get("type", 0)), body.get("data") or {}
        if kind != PONG and kind not in _ALLOWED.get(record.type, set()):
            raise ApiError(
                400, 40004, f"Callback type {kind} is not allowed for interaction type {record.type}"
            )
        message = self._answer(record, kind, data, files)
        record.response_type, record.responded_at = kind, now
        if kind not in (DEFERRED_MESSAGE, DEFERRED_UPDATE):
            record.settled.set()
        interaction = {
            "id": str(record.id),
            "type": record.type,
            "response_message_id": str(message.id) if message else None,
            "response_message_loading": kind == DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(message and message.ephemeral),
        }
        resource: JSON = {"type": kind} | ({"message": self.payloads.message(message)} if message else {})
        return json_response({"interaction": interaction, "resource": resource})

    def _answer(self, record: InteractionRecord, kind: int, data: JSON, files: Files) -> Message | None:
        """Carry out one callback; returns the message it created or updated, if any."""
        channel = self.state.channels[record.channel_id]
        if kind in (CHANNEL_MESSAGE, DEFERRED_MESSAGE):
            ephemeral = int(data.get("flags") or 0) & EPHEMERAL
            fields: JSON = {
                "flags": ephemeral | (LOADING if kind == DEFERRED_MESSAGE else 0),
                "visible_to": record.user.id if ephemeral else None,
                "webhook_id": self.bot_user.id,
                "type": 20 if record.type == 2 else 0,
                "interaction_metadata": self._metadata(record),
            }
            if kind == CHANNEL_MESSAGE:
                message = self.writer.create(channel, data, files, **fields)
            else:  # an empty "thinking..." message that the first follow-up or edit fills
                message = Message(
                    self.state.snowflake(), channel.id, channel.guild_id, self.bot_user, **fields
                )
            record.original_message_id = message.id
            record.add_message(message.id)
            self.state.add_message(message)
            return message
        if kind in (DEFERRED_UPDATE, UPDATE_MESSAGE):
            clicked = self.state.messages.get(record.message_id or 0)
            if clicked is None:
                raise ApiError(404, 10008, "Unknown Message")
            record.original_message_id = clicked.id
            if kind == DEFERRED_UPDATE:
                return None
            self.writer.edit(clicked, data, files)
            record.add_message(clicked.id)
            return clicked
        if kind == AUTOCOMPLETE_RESULT:
            choices = list(data.get("choices") or [])
            reject_invalid(_validate.choice_problems(choices))
            record.choices = choices
        elif kind == MODAL:
            record.modal = data
        return None

    def _metadata(self, record: InteractionRecord) -> JSON:
        data: JSON = {
            "id": str(record.id),
            "type": record.type,
            "user": self.payloads.user(record.user),
            "authorizing_integration_owners": dict(record.owners),
        }
        if record.type == 2:
            data["name"] = record.name
        if record.message_id is not None:
            data["interacted_message_id"] = str(record.message_id)
        if record.original_message_id is not None:
            data["original_response_message_id"] = str(record.original_message_id)
        return data

    def _record(self, request: web.Request) -> InteractionRecord:
        """The interaction behind a webhook token; valid once acknowledged, for 15 minutes."""
        token = request.match_info["token"]
        record = next((r for r in self.state.interactions.values() if r.token == token), None)
        if request.match_info["app"] != str(self.bot_user.id) or record is None or not record.answered:
            raise ApiError(404, 10015, "Unknown Webhook")
        if self.clock() - record.dispatched_at > TOKEN_LIFETIME:
            self.state.expired_calls.append(loggable(request))
            raise ApiError(401, 50027, "Invalid Webhook Token")
        return record

    def _message(self, request: web.Request, record: InteractionRecord) -> Message:
        key = request.match_info["message"]
        message_id = record.original_message_id if key == "@original" else int(key)
        message = self.state.messages.get(message_id or 0)
        if message is None or message_id not in {record.original_message_id, *record.message_ids}:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def post_followup(self, request: web.Request) -> web.Response:
        """A follow-up; where only a user install authorised the interaction, at most :data:`FOLLOWUP_LIMIT` of them
        (the sixth gets 400, code 40094), as on Discord."""
        record = self._record(request)
        body, files = await read_body(request)
        original = self.state.messages.get(record.original_message_id or 0)
        if original is not None and original.loading:  # the first follow-up fills the deferred message
            self.writer.edit(original, body, files)
            message = original
        else:
            if user_install_only(record.owners) and record.followups >= FOLLOWUP_LIMIT:
                raise ApiError(400, 40094, "This interaction has hit the maximum number of follow up messages")
            record.followups += 1
            ephemeral = int(body.get("flags") or 0) & EPHEMERAL
            message = self.writer.create(
                self.state.channels[record.channel_id],
                body,
                files,
                flags=ephemeral,
                webhook_id=self.bot_user.id,
                visible_to=record.user.id if ephemeral else None,
                interaction_metadata=self._metadata(record),
            )
            self.state.add_message(message)
        record.add_message(message.id)
        record.settled.set()
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(self.payloads.message(message))
        return web.Response(status=204)

    async def get_message(self, request: web.Request) -> web.Response:
        record = self._record(request)
        return json_response(self.payloads.message(self._message(request, record)))

    async def edit_message(self, request: web.Request) -> web.Response:
        record = self._record(request)
        message = self._message(request, record)
        body, files = await read_body(request)
        self.writer.edit(message, body, files)
        record.add_message(message.id)
        record.settled.set()
        return json_response(self.payloads.message(message))

    async def delete_message(self, request: web.Request) -> web.Response:
        record = self._record(request)
        self.state.delete_message(self._message(request, record))
        return web.Response(status=204)
