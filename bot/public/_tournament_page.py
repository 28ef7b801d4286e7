"""The public page of a tournament (``/tournaments/{id}``, and ``.json``): its settings and state, its entrants, the
standings with the format's tie-breaks and each player's rounds, and each round's matches with a link to every game's
replay. While the tournament is open or running the page asks the browser to load it again every
:data:`REFRESH_SECONDS` (a ``<meta http-equiv="refresh">``, which the pages' CSP does not restrict: no script runs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Final

from aiohttp import web

from bot.public._layout import SERVICE_KEY, escape, game_path, leaderboard_path, not_found, page, tournament_path
from bot.public._tournament_view import (
    FORMAT_NAMES,
    TIEBREAK_NAMES,
    MatchGame,
    Outcome,
    match_games,
    outcome,
    points_text,
    round_ballot_index,
    state_text,
    tiebreak_text,
    tournament_json,
    variant_title,
)
from bot.service import (
    TIEBREAKS,
    MatchKind,
    Round,
    StandingRow,
    TournamentFormat,
    TournamentId,
    TournamentRecord,
    UnknownTournamentError,
    UserId,
    ballot_of,
    duration,
    tournament_standings,
)

REFRESH_SECONDS: Final = 30
"""How often the page of a tournament being played loads itself again."""
ROUTE: Final = r"{tournament_id:[^/]{1,100}}"
"""Any last segment, so that a malformed id gets the page not found too (checked against :data:`_ID`)."""
_ID = re.compile(r"[0-9A-Za-z_-]{1,40}")


def tournament_routes() -> list[web.RouteDef]:
    """The page's routes (the JSON's first: its path also matches the page's pattern)."""
    return [
        web.get(f"/tournaments/{ROUTE}.json", tournament_json_page),
        web.get(f"/tournaments/{ROUTE}", tournament_html),
    ]


async def _tournament(request: web.Request) -> tuple[TournamentRecord, tuple[StandingRow, ...]]:
    """The tournament of the request's route and its standings; the page not found for an unknown or malformed id."""
    text = request.match_info["tournament_id"]
    missing = f"There is no tournament {text[:40]!r}."
    if not _ID.fullmatch(text):
        raise not_found(request, missing)
    try:
        record = await request.app[SERVICE_KEY].tournaments.get(TournamentId(text))
    except UnknownTournamentError:
        raise not_found(request, missing) from None
    return record, tournament_standings(record.model)


async def tournament_json_page(request: web.Request) -> web.Response:
    record, rows = await _tournament(request)
    return web.json_response(tournament_json(record, rows), headers={"Cache-Control": "no-cache"})


async def tournament_html(request: web.Request) -> web.Response:
    record, rows = await _tournament(request)
    names = {e.id: record.name_of(e.id) for e in record.model.players}
    rounds = "".join(_round_html(record, r, names) for r in reversed(record.model.rounds))
    body = f"""
<h1>{escape(record.name)}</h1>
<p class="summary"><span class="state">{escape(state_text(record))}</span></p>
<ul class="facts">
<li>{escape(_format_text(record))}</li>
<li>{escape(_match_text(record.match))}</li>
<li>{escape(variant_title(record))}, {escape(str(duration(record.turn_time)))} a move</li>
<li>{"Rated: games between people count for the ratings" if record.rated else "Unrated"}</li>
</ul>
{_standings_html(record, rows, names)}
{rounds}
<h2>Entrants ({len(record.model.players)})</h2>
<ol class="entrants">{"".join(f"<li>{_name(names[e.id], e.withdrawn)}</li>" for e in record.model.players)}</ol>
<p class="links"><a href="{leaderboard_path(record.guild_id, record.variant)}">the server's leaderboard</a>
 · <a href="{tournament_path(record.id)}.json">JSON</a></p>
"""
    refresh = f'\n<meta http-equiv="refresh" content="{REFRESH_SECONDS}">' if record.status.live else ""
    return page(request, f"{record.name} · King Me", body, head=refresh)


def _format_text(record: TournamentRecord) -> str:
    name = FORMAT_NAMES[record.format]
    if record.format is TournamentFormat.ARENA or not record.rounds_planned:
        return name
    return f"{name}, {record.rounds_planned} round{'s' if record.rounds_planned != 1 else ''}"


def _match_text(match: MatchKind) -> str:
    if match is MatchKind.BALLOT:
        return "Ballot matches: two games of the round's three-move ballot, colours swapped"
    return "Single games from the start position"


def _name(name: str, withdrawn: bool = False) -> str:
    return escape(name) + (' <span class="withdrawn">(withdrawn)</span>' if withdrawn else "")


def _standings_html(record: TournamentRecord, rows: tuple[StandingRow, ...], names: Mapping[UserId, str]) -> str:
    if not record.model.rounds:
        return '<p class="empty">The standings appear once the first round is paired.</p>'
    numbers = [r.number for r in record.model.rounds]
    kinds = TIEBREAKS[record.format]
    head = "".join(
        [
            "<th>#</th><th>Player</th><th>Score</th>",
            *(f"<th>{escape(TIEBREAK_NAMES[k])}</th>" for k in kinds),
            *(f'<th class="round">R{n}</th>' for n in numbers),
        ]
    )
    body = []
    for row in rows:
        by_round = {r.round: r for r in row.results}
        cells = []
        for number in numbers:
            result = by_round.get(number)
            if result is None:
                cells.append('<td class="round"></td>')
                continue
            kind = outcome(result, record.match.games)
            points = points_text(result.points) if result.results else ""
            text = kind.letter if kind is Outcome.UNFINISHED and not points else f"{kind.letter} {points}"
            against = "a bye" if result.opponent is None else f"against {names.get(result.opponent, result.opponent)}"
            cells.append(f'<td class="round {kind.value}" title="{escape(against)}">{escape(text)}</td>')
        body.append(
            f'<tr><td class="rank">{row.rank}</td><td class="name">{_name(names[row.player], row.withdrawn)}</td>'
            f'<td class="score">{points_text(row.score)}</td>'
            + "".join(f'<td class="tiebreak">{tiebreak_text(k, v)}</td>' for k, v in row.tiebreaks)
            + "".join(cells)
            + "</tr>"
        )
    return (
        f'<h2>Standings</h2><div class="table-wrap"><table class="ladder standings"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
        '<p class="note">W, D, L: the match won, drawn, lost, with the points scored; B: a bye; …: not over yet.</p>'
    )


def _round_html(record: TournamentRecord, round_: Round, names: Mapping[UserId, str]) -> str:
    playing = record.status.live and round_.number == record.round
    title = f"Round {round_.number}" + (" (being played)" if playing else "")
    index = round_ballot_index(round_)
    ballot = ""
    if index is not None:
        opening = ballot_of(index)
        ballot = f'<p class="ballot">Ballot {escape(opening.name)}: <code>{escape(" ".join(opening.moves))}</code></p>'
    rows = []
    for board, pairing in enumerate(round_.pairings):
        games = match_games(record, round_.number, board)
        scored = [r for r in pairing.results if r is not None]
        score = f"{points_text(_half(sum(scored)))}–{points_text(_half(2 * len(scored) - sum(scored)))}"
        if not pairing.finished:
            score = f"{score} …" if scored else "…"
        rows.append(
            f'<tr><td class="board-no">{board + 1}</td><td class="name">{escape(names[pairing.black])}</td>'
            f'<td class="name">{escape(names[pairing.white])}</td><td class="score">{escape(score)}</td>'
            f'<td class="games">{" · ".join(_game_html(g, names, len(games)) for g in games)}</td></tr>'
        )
    table = (
        '<div class="table-wrap"><table class="ladder pairings"><thead><tr><th>Board</th><th>Black</th><th>White</th>'
        f"<th>Score</th><th>Games</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        if rows
        else ""
    )
    bye = ""
    if round_.bye is not None:
        points = _half(round_.bye.half_points)
        worth = f"{points_text(points)} point{'' if points == 1 else 's'}"
        bye = f'<p class="bye">Bye: {escape(names[round_.bye.player])} ({escape(worth)})</p>'
    return f'<section class="round"><h2>{escape(title)}</h2>{ballot}{table}{bye}</section>'


def _game_html(game: MatchGame, names: Mapping[UserId, str], games: int) -> str:
    label = f"Game {game.number}: " if games > 1 else ""
    colours = f"{names[game.black]} (Black) v {names[game.white]} (White)"
    if game.game_id is None:
        what = f"{game.result} (forfeit)" if game.result is not None else "not begun"
        return f'<span class="game" title="{escape(colours)}">{escape(label + what)}</span>'
    what = game.result or "being played"
    return f'<a class="game" href="{game_path(game.game_id)}" title="{escape(colours)}">{escape(label + what)}</a>'


def _half(half_points: int) -> Fraction:
    return Fraction(half_points, 2)
