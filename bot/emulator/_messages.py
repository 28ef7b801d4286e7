"""Messages written by the bot: created from a request body and files, or edited, always validated first."""

from __future__ import annotations

from typing import Any

from . import _validate
from ._attachments import content_type_for
from ._http import Files, reject_invalid
from ._state import JSON, LOADING, Attachment, Channel, EmulatorState, Message, User

_SETTABLE_FLAGS = 1 << 2 | _validate.COMPONENTS_V2  # suppress embeds, components v2; the rest is Discord's


class MessageWriter:
    """Turns message bodies into :class:`Message` objects authored by ``author`` (the bot)."""

    def __init__(self, state: EmulatorState, author: User) -> None:
        self.state = state
        self.author = author

    def create(self, channel: Channel, body: JSON, files: Files, **fields: Any) -> Message:
        """A new message (not yet added to the state); ``fields`` sets flags, metadata and the like."""
        message = Message(
            self.state.snowflake(),
            channel.id,
            channel.guild_id,
            self.author,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            **fields,
        )
        message.attachments = self._attachments(body, files, [])
        message.flags |= int(body.get("flags") or 0) & _SETTABLE_FLAGS
        self._check(message.content, message.embeds, message.components, message.flags, message.attachments)
        return message

    def edit(self, message: Message, body: JSON, files: Files) -> None:
        """Apply an edit when the result is a valid message; it also ends a "thinking..." state."""
        content = (body.get("content") or "") if "content" in body else message.content
        embeds = list(body.get("embeds") or []) if "embeds" in body else message.embeds
        components = list(body.get("components") or []) if "components" in body else message.components
        attachments = message.attachments
        if "attachments" in body or files:
            attachments = self._attachments(body, files, message.attachments)
        flags = message.flags & ~LOADING
        if body.get("flags") is not None:
            flags = (flags & ~_SETTABLE_FLAGS) | (int(body["flags"]) & _SETTABLE_FLAGS)
        self._check(content, embeds, components, flags, attachments)
        was_loading = message.loading
        message.content, message.embeds, message.components = content, embeds, components
        message.attachments, message.flags = attachments, flags
        self.state.message_changed(message, edited=not was_loading)

    @staticmethod
    def _check(
        content: str, embeds: list[JSON], components: list[JSON], flags: int, attachments: list[Attachment]
    ) -> None:
        reject_invalid(_validate.message_problems(content, embeds, components, flags, len(attachments)))

    def _attachments(self, body: JSON, files: Files, existing: list[Attachment]) -> list[Attachment]:
        """New files are ``files[n]`` referenced as ``{"id": n}``; existing ones are kept by their id."""
        if "attachments" not in body:
            return existing + [self._attachment(name, data) for name, data in files.values()]
        by_id = {a.id: a for a in existing}
        result: list[Attachment] = []
        for entry in body["attachments"] or []:
            ref = int(entry["id"])
            if ref in by_id:
                result.append(by_id[ref])
            elif ref in files:
                name, data = files[ref]
                result.append(self._attachment(entry.get("filename") or name, data, entry.get("description")))
        return result

    def _attachment(self, filename: str, data: bytes, description: str | None = None) -> Attachment:
        return Attachment(self.state.snowflake(), filename, data, content_type_for(filename, data), description)
