"""The public page of a tournament (``/tournaments/{id}`` and ``.json``) on the sandbox's HTTP side, with the real
service and Redis: a Swiss followed while it runs and once it is over (its standings are the service's, every game is
linked to its replay, each result is the game's), a ballot match with a withdrawal (its ballot, a forfeit), names that
are HTML shown as text, the pages' headers, the page not found, 503 while the store is down, and the page in Chromium
under its CSP."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from html import escape as html_escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest

from bot.public import _tournament_page, tournament_path
from bot.public._tournament_view import Outcome, outcome, points_text
from bot.sandbox_runtime import SandboxRuntime
from bot.service import (
    TIEBREAKS,
    ChannelId,
    GameService,
    GuildId,
    MatchKind,
    RoundResult,
    TournamentId,
    TournamentRecord,
    TournamentStatus,
    User,
    UserId,
    ballot_of,
    tournament_standings,
)
from tests.bot.public.test_public_pages import get
from tests.bot.sandbox.conftest import browser, chromium
from tests.bot.service.test_tournaments import settle
from tests.support import eventually

if TYPE_CHECKING:
    from playwright.async_api import Browser, ConsoleMessage

__all__ = ["browser", "chromium"]  # the browser fixtures, shared

ROW = re.compile(
    r'<tr><td class="rank">(\d+)</td><td class="name">(.+?)</td><td class="score">([^<]*)</td>'
    r'((?:<td class="tiebreak">[^<]*</td>)*)((?:<td class="round[^"]*"[^>]*>[^<]*</td>)*)</tr>'
)
CELL = re.compile(r"<td[^>]*>([^<]*)</td>")
GAME_LINK = re.compile(r'<a class="game" href="/games/([0-9a-f]+)"[^>]*>([^<]*)</a>')
DEPLOY = Path(__file__).resolve().parents[3] / "docs" / "deploy.md"


def shape(value: object, path: str = "") -> set[str]:
    """Every field of a JSON value as a path: ``rounds[].matches[].games[].id``."""
    fields = set()
    if isinstance(value, dict):
        for key, item in value.items():
            fields |= {f"{path}.{key}", *shape(item, f"{path}.{key}")}
    elif isinstance(value, list):
        for item in value:
            fields |= shape(item, f"{path}[]")
    return fields


def documented() -> set[str]:
    """The fields of the example in docs/deploy.md's "A tournament's JSON" (its ``//`` comments taken out)."""
    text = DEPLOY.read_text(encoding="utf-8").split("### A tournament's JSON", 1)[1]
    block = text.split("```", 2)[1]
    return shape(json.loads(re.sub(r"//.*", "", block)))


def test_points_and_outcomes_as_a_crosstable_writes_them() -> None:
    assert [points_text(Fraction(n, 4)) for n in range(7)] == ["0", "¼", "½", "¾", "1", "1¼", "1½"]
    assert points_text(Fraction(4600, 3)) == "1533.33"
    bob = UserId("2")
    assert outcome(RoundResult(1, bob, (2, 1)), 2) is Outcome.WIN  # 1½ of 2
    assert outcome(RoundResult(1, bob, (2, 0)), 2) is Outcome.DRAW
    assert outcome(RoundResult(1, bob, (0, 1)), 2) is Outcome.LOSS
    assert outcome(RoundResult(1, bob, (2,)), 2) is Outcome.UNFINISHED, "the second game is not scored yet"
    assert outcome(RoundResult(1, None, (2,)), 1) is Outcome.BYE
    assert outcome(RoundResult(1, bob, (1,)), 1) is Outcome.DRAW


def people(sandbox: SandboxRuntime, *names: str) -> list[User]:
    """Members of the sandbox's server (added when the emulator does not have them yet)."""
    emulator = sandbox.emulator
    found = []
    for name in names:
        try:
            member = emulator.user(name)
        except KeyError:
            member = emulator.add_user(name)
        found.append(User(member.id, name))
    return found


async def open_tournament(
    sandbox: SandboxRuntime, players: list[User], *, name: str, rounds: int, match: MatchKind
) -> tuple[GameService, TournamentId]:
    """A Swiss in the sandbox's channel, created by the first of ``players`` and entered by the others (not started)."""
    service = sandbox.service
    assert service is not None
    guild, channel = GuildId(str(sandbox.emulator.guild.id)), ChannelId(str(sandbox.emulator.channel.id))
    created = await service.tournaments.create(guild, channel, players[0], name=name, rounds=rounds, match=match)
    for person in players[1:]:
        await service.tournaments.join(created.id, person)
    return service, created.id


async def round_opened(service: GameService, tid: TournamentId, number: int) -> TournamentRecord:
    """The tournament once every single game of round ``number`` is open (the round is saved before its games)."""

    async def opened() -> bool:
        record = await service.tournaments.get(tid)
        return len(record.games_of_round(number)) == len(record.model.rounds[number - 1].pairings)

    await eventually(opened, what=f"the games of round {number} opened")
    return await service.tournaments.get(tid)


def expected_rows(record: TournamentRecord) -> list[tuple[str, ...]]:
    """The standings table as the service computes them, in the page's words, for a tournament whose points are
    whole (single games, no draw): rank, name, score, the tie-breaks, and per round ``W 1``, ``L 0``, ``B 1`` or ``…``
    (a game not over yet)."""
    rows = []
    for row in tournament_standings(record.model):
        by_round = {r.round: r for r in row.results}
        cells = []
        for number in range(1, record.round + 1):
            result = by_round[number]
            if result.opponent is None:
                cells.append(f"B {result.points}")
            elif not result.results:
                cells.append("…")
            else:
                cells.append(f"{'W' if result.results[0] == 2 else 'L'} {result.points}")
        tiebreaks = [str(value) for _, value in row.tiebreaks]
        rows.append((str(row.rank), record.name_of(row.player), str(row.score), *tiebreaks, *cells))
    return rows


def shown_rows(html: str) -> list[tuple[str, ...]]:
    return [
        (rank, name, score, *CELL.findall(tiebreaks), *CELL.findall(rounds))
        for rank, name, score, tiebreaks, rounds in ROW.findall(html)
    ]


async def test_a_swiss_page_follows_it_round_by_round_to_its_end(sandbox: SandboxRuntime) -> None:
    players = people(sandbox, "alice", "bob", "carol", "dave")
    service, tid = await open_tournament(sandbox, players, name="Autumn Swiss", rounds=2, match=MatchKind.SINGLE)
    url = sandbox.address + tournament_path(tid)
    started = await service.tournaments.start(tid, players[0])
    assert started.round == 1 and len(started.games) == 2
    await settle(service, tid)  # round 1 over: round 2 paired, its games being played
    record = await round_opened(service, tid, 2)
    assert record.status is TournamentStatus.RUNNING and record.round == 2

    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, url)
        assert status == 200
        assert "Round 2 of 2 being played" in html and "Round 2 (being played)" in html
        assert f'<meta http-equiv="refresh" content="{_tournament_page.REFRESH_SECONDS}">' in html
        assert shown_rows(html) == expected_rows(record)
        assert {cells[-1] for cells in shown_rows(html)} == {"…"}, "round 2 is not over for anyone"
        links = dict(GAME_LINK.findall(html))
        assert set(links) == {g.game_id for g in record.games}, "every game opened so far is linked"
        assert {links[g.game_id] for g in record.games_of_round(2)} == {"being played"}
        status, _, data = await get(session, url + ".json")
        assert status == 200 and (data["status"], data["round"], data["rounds_planned"]) == ("running", 2, 2)
        assert [r["outcome"] for row in data["standings"] for r in row["results"] if r["round"] == 2] == [
            "unfinished"
        ] * 4

        record = await settle(service, tid)
        assert record.status is TournamentStatus.FINISHED
        status, html, _ = await get(session, url)
        assert status == 200 and '<span class="state">Finished</span>' in html
        assert 'http-equiv="refresh"' not in html, "a finished tournament's page stays as it is"
        assert "<h1>Autumn Swiss</h1>" in html and "Single games from the start position" in html
        assert "Swiss, 2 rounds" in html and "English draughts" in html
        assert shown_rows(html) == expected_rows(record)
        links = dict(GAME_LINK.findall(html))
        assert set(links) == {g.game_id for g in record.games} and len(links) == 4
        for game_id, shown in links.items():
            game = (await service.state(game_id)).game
            assert shown == game.result, "each game's result is the game's own"
            status, replay, _ = await get(session, f"{sandbox.address}/games/{game_id}")
            assert status == 200 and html_escape(game.black.name) in replay, "the link opens the game's replay"

        status, _, data = await get(session, url + ".json")
        assert status == 200
        assert {f for f in shape(data) if f.count(".") == 1} == {f for f in documented() if f.count(".") == 1}
        assert shape(data) <= documented(), shape(data) - documented()
        assert (data["id"], data["name"], data["status"], data["format"], data["match"]) == (
            tid, "Autumn Swiss", "finished", "swiss", "single"
        )  # fmt: skip
        assert data["tiebreaks"] == [k.value for k in TIEBREAKS[record.format]]
        assert [e["name"] for e in data["entrants"]] == ["alice", "bob", "carol", "dave"]
        rows = tournament_standings(record.model)
        assert [(r["rank"], r["id"], r["score"]) for r in data["standings"]] == [
            (row.rank, row.player, float(row.score)) for row in rows
        ]
        assert [r["tiebreaks"] for r in data["standings"]] == [
            {k.value: float(v) for k, v in row.tiebreaks} for row in rows
        ]
        assert [[(r["round"], r["opponent"], r["points"]) for r in s["results"]] for s in data["standings"]] == [
            [(r.round, r.opponent, float(r.points)) for r in row.results] for row in rows
        ]
        assert [r["number"] for r in data["rounds"]] == [1, 2] and all(r["ballot"] is None for r in data["rounds"])
        games = [g for r in data["rounds"] for m in r["matches"] for g in m["games"]]
        assert {g["id"] for g in games} == {g.game_id for g in record.games}
        for game in games:
            state = (await service.state(game["id"])).game
            assert (game["black"], game["white"], game["result"]) == (state.black.id, state.white.id, state.result)
            assert game["url"] == f"/games/{game['id']}" and game["forfeit"] is False
        for round_ in data["rounds"]:
            for match in round_["matches"]:
                assert match["finished"] and sum(match["score"]) == 1.0


async def test_a_ballot_match_shows_its_ballot_and_a_forfeit(sandbox: SandboxRuntime) -> None:
    """Bob withdraws in the first game of a ballot match: that game is resigned, the second (never begun) is a forfeit,
    and the page says so beside the ballot the round played."""
    alice, bob = people(sandbox, "alice", "bob")
    service, tid = await open_tournament(sandbox, [alice, bob], name="Ballot cup", rounds=1, match=MatchKind.BALLOT)
    await service.tournaments.start(tid, alice)
    await service.tournaments.withdraw(tid, bob)

    async def finished() -> bool:
        return (await service.tournaments.get(tid)).status is TournamentStatus.FINISHED

    await eventually(finished, what="the tournament over: nobody is left to pair")
    record = await service.tournaments.get(tid)
    [pairing] = record.model.rounds[0].pairings
    assert pairing.ballot is not None
    ballot = ballot_of(pairing.ballot)
    [played] = record.games

    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, sandbox.address + tournament_path(tid))
        assert status == 200
        assert f"Ballot {ballot.name}: <code>{' '.join(ballot.moves)}</code>" in html
        assert html_escape("Ballot matches: two games of the round's three-move ballot") in html
        game = (await service.state(played.game_id)).game
        assert GAME_LINK.findall(html) == [(played.game_id, f"Game 1: {game.result}")]
        forfeit = "0-1" if game.black.id == alice.id else "1-0"  # bob lost it, with the colours swapped
        assert f"Game 2: {forfeit} (forfeit)" in html
        assert 'bob <span class="withdrawn">(withdrawn)</span>' in html
        status, _, data = await get(session, sandbox.address + tournament_path(tid) + ".json")
        assert status == 200 and shape(data) <= documented(), shape(data) - documented()
        [round_] = data["rounds"]
        assert round_["ballot"] == {"index": pairing.ballot, "name": ballot.name, "moves": list(ballot.moves)}
        [match] = round_["matches"]
        assert [(g["number"], g["id"], g["result"], g["forfeit"]) for g in match["games"]] == [
            (1, played.game_id, game.result, False),
            (2, None, forfeit, True),
        ]
        assert match["score"] == ([2.0, 0.0] if pairing.black == alice.id else [0.0, 2.0])
        assert [(s["name"], s["score"], s["withdrawn"]) for s in data["standings"]] == [
            ("alice", 2.0, False),
            ("bob", 0.0, True),
        ]
        assert [r["outcome"] for s in data["standings"] for r in s["results"]] == ["win", "loss"]


async def test_names_are_text_and_the_page_has_the_public_headers(sandbox: SandboxRuntime) -> None:
    """A tournament and a player named in HTML: the page shows the names as text (in the title, the entrants, the
    standings); an open tournament lists its entrants; unknown or malformed ids get the page not found; every answer
    has the public pages' CSP and headers."""
    hostile = '</td><script>alert("x")</script>'
    alice, bob = people(sandbox, "alice", "bob")
    mallory = User(bob.id, hostile)
    service, tid = await open_tournament(
        sandbox, [alice, mallory], name="<b>Cup</b> & <i>co</i>", rounds=1, match=MatchKind.SINGLE
    )
    url = sandbox.address + tournament_path(tid)

    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, url)
        assert status == 200 and "Open for entries: 2 of 32 places taken" in html
        assert "<script>" not in html and "<b>Cup" not in html
        assert "<h1>&lt;b&gt;Cup&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;</h1>" in html
        assert f"<li>{html_escape(hostile)}</li>" in html, "the entrants, in seeded order"
        assert "The standings appear once the first round is paired." in html
        status, _, data = await get(session, url + ".json")
        assert status == 200 and data["status"] == "open" and data["standings"] == [] and data["rounds"] == []
        assert [e["name"] for e in data["entrants"]] == ["alice", hostile], "the JSON keeps the name as it is"

        await service.tournaments.start(tid, alice)
        status, html, _ = await get(session, url)
        assert status == 200 and "<script>" not in html
        assert f'<td class="name">{html_escape(hostile)}</td>' in html, "in the standings and the pairings"

        for path in (f"/tournaments/{'0' * 12}", "/tournaments/not-a-tournament.json", "/tournaments/%3Cscript%3E"):
            status, html, _ = await get(session, sandbox.address + path)
            assert status == 404 and "There is no tournament" in html, path
            assert "<script>" not in html
        for path in (tournament_path(tid), f"/tournaments/{'0' * 12}", "/tournaments/a.b.c"):
            async with session.get(sandbox.address + path) as response:
                csp = response.headers.get("Content-Security-Policy", "")
                assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp, (path, csp)
                assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
                assert response.headers.get("Referrer-Policy") == "no-referrer"
                assert response.headers.get("X-Frame-Options") == "DENY"
                assert response.headers.get("X-Content-Type-Options") == "nosniff"
                assert response.headers.get("Server") == "King Me"
        async with session.get(url + ".json") as response:
            assert response.content_type == "application/json"
            assert response.headers.get("X-Content-Type-Options") == "nosniff"
            assert response.headers.get("Server") == "King Me"


async def test_the_page_answers_503_while_the_store_is_down(sandbox: SandboxRuntime) -> None:
    alice, bob = people(sandbox, "alice", "bob")
    _, tid = await open_tournament(sandbox, [alice, bob], name="Outage cup", rounds=1, match=MatchKind.SINGLE)
    server = sandbox.embedded
    assert server is not None
    # Stopped, not killed: the store's default durability (``appendfsync everysec``) may still hold the tournament's
    # write in memory for up to two seconds while the disk is busy, and a SIGKILL would lose it; stopping flushes the
    # append-only file. Through the owner's handle, it stays down until started again.
    server.stop()
    try:
        async with aiohttp.ClientSession() as session:
            for path in (tournament_path(tid), tournament_path(tid) + ".json"):
                async with session.get(sandbox.address + path) as response:
                    text = await response.text()
                    assert (response.status, response.headers.get("Retry-After")) == (503, "5"), (path, text)
                    assert "cannot reach its storage" in text
                    assert "default-src 'none'" in response.headers.get("Content-Security-Policy", "")
    finally:
        server.start()
    async with aiohttp.ClientSession() as session:
        status, _, _ = await get(session, sandbox.address + tournament_path(tid))
        assert status == 200, "back once the store is"


CSP_WATCH = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
});
"""


async def test_the_page_of_a_running_tournament_loads_and_reloads_under_its_csp(
    sandbox: SandboxRuntime, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In Chromium: no CSP violation (the watch is shown to catch one), the stylesheet applied, and the page of a
    running tournament loads itself again (the meta refresh, with no script)."""
    monkeypatch.setattr(_tournament_page, "REFRESH_SECONDS", 1)
    players = people(sandbox, "alice", "bob", "carol")
    service, tid = await open_tournament(sandbox, players, name="Spring Swiss", rounds=2, match=MatchKind.SINGLE)
    await service.tournaments.start(tid, players[0])

    page = await browser.new_page()
    errors: list[Any] = []
    page.on("pageerror", lambda exc: errors.append(exc))

    def console(message: ConsoleMessage) -> None:
        where = message.location["url"]
        if message.type == "error" and not where.endswith("/favicon.ico"):  # no page of ours has an icon
            errors.append(f"{message.text} at {where}")

    page.on("console", console)
    await page.add_init_script(CSP_WATCH)
    await page.goto(sandbox.address + tournament_path(tid))
    assert "Round 1 of 2 being played" in await page.locator(".summary").inner_text()
    assert await page.locator("table.standings tbody tr").count() == 3
    assert "B 1" in await page.locator("table.standings").inner_text(), "three players: one has the bye"
    applied = await page.locator("header.top").evaluate("e => getComputedStyle(e).borderBottomStyle")
    assert applied == "solid", "public.css is loaded"
    assert await page.evaluate("window.cspViolations") == [] and errors == [], errors
    await page.wait_for_event("load", timeout=15_000)  # the refresh
    assert await page.locator("table.standings tbody tr").count() == 3
    assert await page.evaluate("window.cspViolations") == [] and errors == [], errors

    inline = "() => document.head.append(Object.assign(document.createElement('style'), {textContent: 'p {}'}))"
    await page.evaluate(inline)
    await page.wait_for_function("() => window.cspViolations.length > 0", timeout=5_000)
    assert "style-src" in (await page.evaluate("window.cspViolations"))[0], "the watch does see a violation"
    await page.close()
