"""Application emojis as Discord keeps them: the REST routes under ``/applications/{app}/emojis`` and the CDN route
that serves their images.

Discord's rules, checked here: a name of 2–32 characters from ``[A-Za-z0-9_]``, an image given as a
``data:image/png;base64,…`` URI (JPEG and GIF too on Discord; the bot sends PNG) of at most 256 KiB, and at most
2,000 emojis per application. A refusal is a 400 with Discord's codes (50035 invalid form body, 30008 too many
emojis); an unknown emoji is a 404 (10014). Clients fetch an emoji's image from the CDN by id:
``{cdn}/emojis/{id}.png``, here served by the emulator itself.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from aiohttp import web

from ._http import ApiError, Handler, json_response, read_body, reject_invalid
from ._state import JSON, EmulatorState, User

NAME: Final = re.compile(r"^[A-Za-z0-9_]{2,32}$")
MAX_IMAGE_BYTES: Final = 256 * 1024
MAX_EMOJIS: Final = 2000
_DATA_URI: Final = re.compile(r"^data:image/(png|jpeg|gif);base64,(.*)$", re.DOTALL)
_SIGNATURES: Final = {"png": b"\x89PNG\r\n\x1a\n", "jpeg": b"\xff\xd8\xff", "gif": b"GIF8"}


@dataclass(eq=False)
class AppEmoji:
    id: int
    name: str
    image: bytes
    content_type: str


class ApplicationEmojis:
    """The application's emojis, their REST routes and their images."""

    def __init__(self, state: EmulatorState, bot_user: User, *, limit: int = MAX_EMOJIS) -> None:
        self.state = state
        self.bot_user = bot_user
        self.limit = limit
        """How many emojis the application may own (a test may lower it to see the bot fall back)."""
        self.emojis: dict[int, AppEmoji] = {}

    def routes(self, as_bot: Callable[[Handler], Handler]) -> list[web.RouteDef]:
        """The REST routes (each guarded by ``as_bot``) and the CDN route, which needs no token."""
        base = "/api/v10/applications/{app}/emojis"
        return [
            web.get(base, as_bot(self.list_emojis)),
            web.post(base, as_bot(self.create)),
            web.get(base + "/{emoji}", as_bot(self.get)),
            web.patch(base + "/{emoji}", as_bot(self.edit)),
            web.delete(base + "/{emoji}", as_bot(self.delete)),
            web.get("/emojis/{file}", self.image),
        ]

    def by_name(self, name: str) -> AppEmoji | None:
        return next((e for e in self.emojis.values() if e.name == name), None)

    # -- REST ---------------------------------------------------------------------------------------------------------

    async def list_emojis(self, request: web.Request) -> web.Response:
        self._application(request)
        return json_response({"items": [self._json(e) for e in self.emojis.values()]})

    async def get(self, request: web.Request) -> web.Response:
        return json_response(self._json(self._emoji(request)))

    async def create(self, request: web.Request) -> web.Response:
        self._application(request)
        body, _ = await read_body(request)
        name, image = body.get("name"), body.get("image")
        problems = _name_problems(name)
        decoded = _decode_image(image, problems)
        reject_invalid(problems)
        if len(self.emojis) >= self.limit:
            raise ApiError(400, 30008, f"Maximum number of emojis reached ({self.limit})")
        assert decoded is not None and isinstance(name, str)
        emoji = AppEmoji(self.state.snowflake(), name, decoded[1], decoded[0])
        self.emojis[emoji.id] = emoji
        return json_response(self._json(emoji), 201)

    async def edit(self, request: web.Request) -> web.Response:
        emoji = self._emoji(request)
        body, _ = await read_body(request)
        name = body.get("name")
        reject_invalid(_name_problems(name))
        assert isinstance(name, str)
        emoji.name = name
        return json_response(self._json(emoji))

    async def delete(self, request: web.Request) -> web.Response:
        emoji = self._emoji(request)
        del self.emojis[emoji.id]
        return web.Response(status=204)

    # -- CDN ----------------------------------------------------------------------------------------------------------

    async def image(self, request: web.Request) -> web.Response:
        stem = request.match_info["file"].rsplit(".", 1)[0]
        emoji = self.emojis.get(int(stem)) if stem.isdigit() else None
        if emoji is None:
            return web.Response(status=404, text="404: Not Found")
        return web.Response(
            body=emoji.image, content_type=emoji.content_type, headers={"Cache-Control": "public, max-age=86400"}
        )

    # -- helpers ------------------------------------------------------------------------------------------------------

    def _application(self, request: web.Request) -> None:
        if request.match_info["app"] != str(self.bot_user.id):
            raise ApiError(403, 50001, "Missing Access")

    def _emoji(self, request: web.Request) -> AppEmoji:
        self._application(request)
        raw = request.match_info["emoji"]
        emoji = self.emojis.get(int(raw)) if raw.isdigit() else None
        if emoji is None:
            raise ApiError(404, 10014, "Unknown Emoji")
        return emoji

    def _json(self, emoji: AppEmoji) -> JSON:
        return {
            "id": str(emoji.id),
            "name": emoji.name,
            "roles": [],
            "user": {"id": str(self.bot_user.id), "username": self.bot_user.name, "discriminator": "0", "avatar": None},
            "require_colons": True,
            "managed": False,
            "animated": emoji.content_type == "image/gif",
            "available": True,
        }


def _name_problems(name: object) -> list[str]:
    if not isinstance(name, str) or not NAME.match(name):
        return ["name: must be 2 to 32 characters of letters, digits and underscores"]
    return []


def _decode_image(image: object, problems: list[str]) -> tuple[str, bytes] | None:
    """(content type, bytes) of an image data URI, or None with the reason added to ``problems``."""
    match = _DATA_URI.match(image) if isinstance(image, str) else None
    if match is None:
        problems.append("image: must be a data URI of a PNG, JPEG or GIF image")
        return None
    try:
        data = base64.b64decode(match[2], validate=True)
    except (binascii.Error, ValueError):
        problems.append("image: invalid base64")
        return None
    if len(data) > MAX_IMAGE_BYTES:
        problems.append(f"image: larger than {MAX_IMAGE_BYTES // 1024} KiB")
        return None
    if not data.startswith(_SIGNATURES[match[1]]):
        problems.append(f"image: not a {match[1].upper()} image")
        return None
    return f"image/{match[1]}", data
