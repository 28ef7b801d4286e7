"""Attachment files as Discord's CDN serves them: the content type Discord gives an upload, and the download response
(its type, its name in ``Content-Disposition``, no sniffing)."""

from __future__ import annotations

import mimetypes
from urllib.parse import quote

from aiohttp import web

from ._state import Attachment, EmulatorState, Message

TEXT: str = "text/plain; charset=utf-8"
BINARY: str = "application/octet-stream"


def content_type_for(filename: str, data: bytes) -> str:
    """The type by the file's extension; else, as Discord does, plain text for UTF-8 text (a ``.pdn`` game record)
    and an octet stream for anything else."""
    guessed = mimetypes.guess_type(filename)[0]
    if guessed is not None:
        return guessed
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return BINARY
    return TEXT if "\x00" not in text else BINARY


def content_disposition(filename: str) -> str:
    """``attachment`` with the file's name, plain for old clients and UTF-8 encoded (RFC 6266) for the rest."""
    plain = "".join(c if 32 <= ord(c) < 127 and c not in '"\\' else "_" for c in filename) or "file"
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(filename, safe='')}"


def download(attachment: Attachment) -> web.Response:
    """The file as a download: its type, its name, and no content sniffing (a text file never runs as a page)."""
    return web.Response(
        body=attachment.data,
        headers={
            "Content-Type": attachment.content_type,
            "Content-Disposition": content_disposition(attachment.filename),
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "private, no-store",
        },
    )


def find_attachment(
    state: EmulatorState, message_id: int, attachment_id: int, *, visible_to: int | None
) -> tuple[Message, Attachment] | None:
    """The message and its attachment, when the message exists and ``visible_to`` (a user id, or None for anyone)
    may see it: an ephemeral message's files are its user's alone."""
    message = state.messages.get(message_id)
    if message is None or not message.visible_for(visible_to):
        return None
    found = next((a for a in message.attachments if a.id == attachment_id), None)
    return None if found is None else (message, found)
