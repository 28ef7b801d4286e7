"""What every public page shares: the paths of the pages, the page around a body with its security headers and static
files, the page not found, and the answer when the store is unavailable (503 with ``Retry-After``)."""

from __future__ import annotations

import html
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

from aiohttp import web

from bot.service import GameService, StoreUnavailableError
from bot.web import StaticFiles

STATIC: Final = StaticFiles(Path(__file__).with_name("static"), "/assets/public", "public_static")
GLOBAL: Final = "global"
"""The ``guild_id`` of the ladder of everyone (``/checkers leaderboard scope:global``)."""
RETRY_AFTER: Final = 5
"""Seconds a client is asked to wait (``Retry-After``) when the store is unavailable."""
PAGE_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}
"""Every public page's security headers: its scripts and styles are our own files (no inline code runs, the game's data
is a JSON data block), no other site may frame it, and no link leaks its address."""

SERVICE_KEY: Final = web.AppKey("public_service", GameService)


REPLAY_BOARD: Final = """<div class="replay">
  <div class="board-wrap"><div id="board" class="board" role="img" aria-label="board"></div></div>
  <div class="side">
    <div class="controls">
      <button id="first" title="First position (Home)">⏮ First</button>
      <button id="prev" title="Previous (←)">◀ Previous</button>
      <button id="next" title="Next (→)">Next ▶</button>
      <button id="last" title="Last position (End)">Last ⏭</button>
    </div>
    <p id="status" class="status" aria-live="polite"></p>
"""
"""The start of a replay page (a game's, a puzzle's): the board the page's script draws, its buttons and status line;
the page goes on with its graph and move list, and closes both divisions."""


def leaderboard_path(guild_id: str | int | None, variant: str = "american") -> str:
    """The page's path: ``guild_id`` None is the ladder of everyone."""
    return f"/leaderboard/{GLOBAL if guild_id is None else guild_id}/{variant}"


def game_path(game_id: str) -> str:
    return f"/games/{game_id}"


def tournament_path(tournament_id: str) -> str:
    return f"/tournaments/{tournament_id}"


def public_url(base_url: str, path: str) -> str:
    """``path`` under the operator's ``PUBLIC_BASE_URL`` (for links in the bot's messages)."""
    return base_url.rstrip("/") + path


def escape(text: str) -> str:
    """``text`` as HTML text or an attribute's value (quotes escaped too)."""
    return html.escape(text, quote=True)


def static_url(request: web.Request, name: str) -> str:
    """The URL of a static file, with a hash of its content so a changed file is fetched again."""
    return str(STATIC.url(request.app, name))


def page(request: web.Request, title: str, body: str, status: int = 200, head: str = "") -> web.Response:
    """A whole page around ``body`` (HTML, escaped by its maker), with the security headers; ``head`` is more of the
    page's head (HTML)."""
    text = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">{head}
<title>{escape(title)}</title>
<link rel="stylesheet" href="{static_url(request, "public.css")}">
</head>
<body>
<header class="top"><span class="brand">👑 King Me</span></header>
<main>{body}</main>
</body>
</html>
"""
    headers = {"Cache-Control": "no-cache", **PAGE_HEADERS}
    return web.Response(text=text, content_type="text/html", status=status, headers=headers)


def not_found(request: web.Request, text: str) -> web.HTTPNotFound:
    """The page not found, saying ``text`` (plain text), to raise."""
    found = page(request, "Not found · King Me", f"<h1>Not found</h1><p>{escape(text)}</p>", status=404)
    return web.HTTPNotFound(text=found.text, content_type="text/html", headers=PAGE_HEADERS)


@web.middleware
async def store_unavailable(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Any page whose store is unavailable (Redis down or restarting) answers 503 with ``Retry-After``, never 500."""
    try:
        return await handler(request)
    except StoreUnavailableError as exc:
        title = "Unavailable · King Me"
        answer = page(request, title, f"<h1>Unavailable</h1><p>{escape(exc.message)}</p>", status=503)
        answer.headers["Retry-After"] = str(RETRY_AFTER)
        answer.headers["Cache-Control"] = "no-store"
        return answer


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(data: object) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` (so no text can end the
    element or open a comment) and no U+2028/U+2029 (line ends to older JavaScript), each written as its escape."""
    return json.dumps(data, separators=(",", ":")).translate(_SCRIPT_SAFE)
