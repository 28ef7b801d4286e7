"""The public pages of the HTTP side: a leaderboard per server and variant (HTML and JSON), a page per finished game
with its PDN and a step-by-step replay, and a page per tournament (:mod:`bot.public._tournament_page`). They only read
through the game service; nothing here writes.

    register_public_routes(app, service)    # before the application starts
"""

from __future__ import annotations

import logging
from typing import Final

from aiohttp import web

from bot.public._layout import (
    GLOBAL,
    REPLAY_BOARD,
    SERVICE_KEY,
    STATIC,
    escape,
    game_path,
    leaderboard_path,
    not_found,
    page,
    script_json,
    static_url,
    store_unavailable,
)
from bot.public._puzzle_page import puzzle_routes
from bot.public._replay import replay
from bot.public._tournament_page import tournament_routes
from bot.service import (
    GameId,
    GameService,
    GameState,
    GuildId,
    InvalidRequestError,
    LeaderboardEntry,
    UnknownGameError,
)
from bot.web import JSON
from core import VARIANTS, InvalidPdnError

log = logging.getLogger(__name__)

DEFAULT_LIMIT: Final = 10
"""As many rows as ``/checkers leaderboard`` shows."""
MAX_LIMIT: Final = 100
_GUILD = r"{guild_id:[0-9]{1,20}|global}"
_VARIANT = r"{variant:[a-z][a-z0-9-]{0,30}}"
_GAME = r"{game_id:[0-9A-Za-z_-]{1,40}}"


def register_public_routes(app: web.Application, service: GameService) -> None:
    """Add the public pages and their static files to ``app`` (before it starts)."""
    app[SERVICE_KEY] = service
    app.middlewares.append(store_unavailable)
    app.add_routes(
        [
            web.get(f"/leaderboard/{_GUILD}/{_VARIANT}.json", leaderboard_json),
            web.get(f"/leaderboard/{_GUILD}/{_VARIANT}", leaderboard_html),
            web.get(f"/games/{_GAME}.pdn", game_pdn),
            web.get(f"/games/{_GAME}.json", game_json),
            web.get(f"/games/{_GAME}", game_html),
            *tournament_routes(),
            *puzzle_routes(),
            STATIC.route(),
        ]
    )


# -- leaderboard ------------------------------------------------------------------------------------------------------


async def _leaderboard(request: web.Request) -> tuple[GuildId | None, str, list[LeaderboardEntry]]:
    guild = request.match_info["guild_id"]
    guild_id = None if guild == GLOBAL else GuildId(guild)  # the route admits only digits
    variant = request.match_info["variant"]
    if variant not in VARIANTS:
        raise not_found(request, f"There is no variant {variant!r}: try {', '.join(VARIANTS)}.")
    try:
        limit = max(1, min(int(request.query.get("limit", DEFAULT_LIMIT)), MAX_LIMIT))
    except ValueError:
        raise web.HTTPBadRequest(text="limit must be a number") from None
    service = request.app[SERVICE_KEY]
    try:
        entries = await service.leaderboard(variant, guild_id, limit)
    except InvalidRequestError as exc:
        raise not_found(request, exc.message) from None
    return guild_id, variant, entries


async def _title(request: web.Request, guild_id: GuildId | None, variant: str) -> str:
    """The page's title: the server by its name (as the bot last saw it), or its id when the name is not known."""
    name = await request.app[SERVICE_KEY].guild_name(guild_id) if guild_id is not None else None
    where = "everyone" if guild_id is None else name or f"server {guild_id}"
    return f"Leaderboard: {VARIANTS[variant].title}, {where}"


async def leaderboard_json(request: web.Request) -> web.Response:
    guild_id, variant, entries = await _leaderboard(request)
    body = {
        "guild_id": guild_id,
        "variant": variant,
        "title": await _title(request, guild_id, variant),
        "entries": [
            {
                "rank": e.rank,
                "user_id": e.user_id,
                "name": e.name,
                "rating": e.rating,
                "rd": e.rd,
                "provisional": e.provisional,
                "games": e.games,
            }
            for e in entries
        ],
    }
    return web.json_response(body, headers={"Cache-Control": "no-cache"})


async def leaderboard_html(request: web.Request) -> web.Response:
    guild_id, variant, entries = await _leaderboard(request)
    title = await _title(request, guild_id, variant)
    if entries:
        rows = "\n".join(
            f'<tr><td class="rank">{e.rank}</td><td class="name">{escape(e.name)}</td>'
            f'<td class="rating">{round(e.rating)}{"?" if e.provisional else ""}</td>'
            f'<td class="games">{e.games}</td></tr>'
            for e in entries
        )
        table = (
            '<table class="ladder"><thead><tr><th>#</th><th>Player</th><th>Rating</th><th>Games</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>"
            '<p class="note"><code>?</code> marks a provisional rating.</p>'
        )
    else:
        table = (
            '<p class="empty">Nobody has a rating here yet: finish a rated game with '
            "<code>/checkers challenge</code>.</p>"
        )
    others = " · ".join(
        f'<a href="{leaderboard_path(guild_id, name)}">{escape(v.title)}</a>' for name, v in VARIANTS.items()
    )
    json_link = f'<a href="{leaderboard_path(guild_id, variant)}.json">JSON</a>'
    body = f"<h1>{escape(title)}</h1>{table}<p class='links'>{others} · {json_link}</p>"
    return page(request, title, body)


# -- games ------------------------------------------------------------------------------------------------------------


async def _game(request: web.Request) -> tuple[GameState, str]:
    """The game of the request's route and its PDN (result ``*`` while it is being played)."""
    game_id = GameId(request.match_info["game_id"])  # the service answers an unknown or malformed id as unknown
    service = request.app[SERVICE_KEY]
    try:
        view = await service.state(game_id)
        pdn = await service.pdn(game_id)
    except UnknownGameError:
        raise not_found(request, f"There is no game {game_id!r}.") from None
    return view.game, pdn


async def game_pdn(request: web.Request) -> web.Response:
    game, pdn = await _game(request)
    return web.Response(
        text=pdn,
        content_type="application/x-pdn",
        headers={"Content-Disposition": f'attachment; filename="kingme-{game.id}.pdn"'},
    )


async def game_json(request: web.Request) -> web.Response:
    game, pdn = await _game(request)
    return web.json_response(await _game_data(request, game, pdn), headers={"Cache-Control": "no-cache"})


async def _game_data(request: web.Request, game: GameState, pdn: str) -> dict[str, JSON]:
    """The game for the page's script and the JSON: its replay, and its review when it has one (the graph)."""
    review = await request.app[SERVICE_KEY].stored_review(game.id)
    try:
        positions = replay(pdn).as_json()
    except InvalidPdnError:
        log.exception("the stored PDN of game %s does not read back", game.id)
        raise web.HTTPInternalServerError(text="This game's record cannot be read.") from None
    return {
        "id": game.id,
        "live": game.is_active,
        "version": game.version,
        "black": game.black.name,
        "white": game.white.name,
        "result": game.result,
        "end": game.end_text,
        "termination": game.termination,
        "variant": game.variant,
        "pdn": pdn,
        "replay": positions,
        "review": review.as_json() if review is not None else None,
    }


async def game_html(request: web.Request) -> web.Response:
    game, pdn = await _game(request)
    data = await _game_data(request, game, pdn)
    title = f"{game.black.name} vs {game.white.name}"
    payload = script_json(data)
    live = "Being played now: this page follows the game as it is played." if game.is_active else ""
    body = f"""
<h1>{escape(title)}</h1>
<p class="summary"><span id="end">{escape(game.end_text or live)}</span>
 <span id="result" class="result">{escape(game.result or "*")}</span>
 · {escape(VARIANTS[game.variant].title if game.variant in VARIANTS else game.variant)}
 · <a href="{leaderboard_path(game.guild_id, game.variant)}">the server's leaderboard</a></p>
{REPLAY_BOARD}    <div id="graph" class="graph"><p class="note">Not reviewed yet:
     <code>/checkers analyse game:{escape(game.id)}</code> in Discord draws the evaluation graph here.</p></div>
    <ol id="moves" class="moves"></ol>
  </div>
</div>
<h2>PDN</h2>
<p><a href="{game_path(game.id)}.pdn" download>Download the PDN</a></p>
<pre id="pdn" class="pdn">{escape(pdn)}</pre>
<script id="game-data" type="application/json">{payload}</script>
<script src="{static_url(request, "replay.js")}"></script>
"""
    return page(request, f"{title} · King Me", body)
