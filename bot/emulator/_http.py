"""HTTP plumbing shared by the REST routes: Discord-shaped errors, exact JSON responses, body parsing.

Errors use Discord's JSON shape ``{"code", "message", "errors"?}`` with a 4xx status (discord.py retries
5xx). Bodies are sent with the exact header ``Content-Type: application/json``: discord.py compares it
verbatim, so aiohttp's ``json_response`` (which adds a charset) would turn every answer into a string.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import BodyPartReader, web

from ._state import JSON

_log = logging.getLogger(__name__)

_TOKEN_IN_PATH = re.compile(r"(/(?:webhooks|interactions)/\d+/)[^/]+")
Files = dict[int, tuple[str, bytes]]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ApiError(Exception):
    """Raised inside a handler; :func:`api_errors` turns it into a Discord-shaped JSON error response."""

    def __init__(self, status: int, code: int, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.problems = status, code, message, problems or []


def json_response(data: Any, status: int = 200) -> web.Response:
    body = json.dumps(data).encode()
    return web.Response(body=body, status=status, headers={"Content-Type": "application/json"})


def loggable(request: web.Request) -> str:
    """Method and path with interaction tokens blanked out."""
    path = _TOKEN_IN_PATH.sub(r"\1<token>", request.path)
    return f"{request.method} {path}"


def reject_invalid(problems: list[str]) -> None:
    """Raise Discord's 400 "Invalid Form Body" (code 50035) when there are problems."""
    if problems:
        raise ApiError(400, 50035, "Invalid Form Body", problems)


def api_errors(handler: Handler) -> Handler:
    async def guarded(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except ApiError as error:
            body: JSON = {"code": error.code, "message": error.message}
            if error.problems:
                body["errors"] = {"_errors": [{"code": "INVALID", "message": p} for p in error.problems]}
                _log.warning("%s rejected: %s", loggable(request), "; ".join(error.problems))
            return json_response(body, error.status)

    return guarded


async def read_body(request: web.Request) -> tuple[Any, Files]:
    """The JSON body, or for multipart requests the ``payload_json`` part plus the ``files[n]`` parts."""
    if not request.content_type.startswith("multipart/"):
        text = await request.text()
        return (json.loads(text) if text else {}), {}
    body: JSON = {}
    files: Files = {}
    async for part in await request.multipart():
        if not isinstance(part, BodyPartReader):
            continue
        name = part.name or ""
        data = await part.read()
        if name == "payload_json":
            body = json.loads(data)
        elif name.startswith("files[") and name.endswith("]"):
            files[int(name[6:-1])] = (part.filename or name, bytes(data))
    return body, files
