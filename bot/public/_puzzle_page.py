"""A puzzle's solution on the public replay page, ``/puzzles/{id}``: the puzzle's position and its line, drawn by the
replay page's script (:mod:`bot.public._replay` reads the line from the PDN the service makes). Only the shipped
set's puzzles: a person's own puzzles come from their games and are theirs."""

from __future__ import annotations

from html import escape

from aiohttp import web

from bot.public._layout import REPLAY_BOARD, SERVICE_KEY, not_found, page, script_json, static_url
from bot.public._replay import replay

_PUZZLE = r"{puzzle_id:[0-9a-f]{8}}"


def puzzle_path(puzzle_id: str) -> str:
    return f"/puzzles/{puzzle_id}"


def puzzle_routes() -> list[web.RouteDef]:
    return [web.get(f"/puzzles/{_PUZZLE}", puzzle_html)]


async def puzzle_html(request: web.Request) -> web.Response:
    puzzle_id = request.match_info["puzzle_id"]
    pdn = request.app[SERVICE_KEY].puzzles.solution_pdn(puzzle_id)
    if pdn is None:
        raise not_found(request, f"There is no puzzle {puzzle_id!r}.")
    data = {
        "id": puzzle_id,
        "live": False,
        "version": 0,
        "end": "",
        "replay": replay(pdn).as_json(),
        "review": None,
    }
    title = f"Puzzle {puzzle_id}"
    body = f"""
<h1>{escape(title)}</h1>
<p class="summary">The puzzle's position, then its solution: the solver's moves and the replies.</p>
{REPLAY_BOARD}    <div id="graph" class="graph"></div>
    <ol id="moves" class="moves"></ol>
  </div>
</div>
<h2>PDN</h2>
<pre id="pdn" class="pdn">{escape(pdn)}</pre>
<script id="game-data" type="application/json">{script_json(data)}</script>
<script src="{static_url(request, "replay.js")}"></script>
"""
    return page(request, f"{title} · King Me", body)
