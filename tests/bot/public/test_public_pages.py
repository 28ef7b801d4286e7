"""The public pages (``bot.public``) on the sandbox's HTTP side: the leaderboard matches ``/checkers leaderboard``,
and a finished game's page replays every position of its PDN."""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from typing import Any

import aiohttp
import pytest

from bot.public import replay
from bot.sandbox_runtime import SandboxRuntime
from bot.service import ChannelId, GameService, GuildId, User
from core import Board, game_to_pdn, read_pdn
from tests.support import eventually

EMBED_ROW = re.compile(r"^\*\*(\d+)\.\*\* (.+): (\d+\??) \((\d+) games\)$")
HTML_ROW = re.compile(
    r'<tr><td class="rank">(\d+)</td><td class="name">(.+?)</td><td class="rating">(\d+\??)</td>'
    r'<td class="games">(\d+)</td></tr>'
)


def ascii_cells(board: Board) -> str:
    """The board's squares from :meth:`Board.ascii` (one character a square, the spaces between them dropped)."""
    return "".join(line[::2].ljust(board.variant.geometry.size) for line in board.ascii().split("\n"))


@pytest.mark.parametrize("variant", ["american", "mini"])
def test_replay_has_every_position_of_the_game(variant: str) -> None:
    board = Board(variant=variant)
    expected = [ascii_cells(board)]
    for _ in range(30):
        if board.is_game_over():
            break
        moves = board.legal_moves
        board.push(max(moves, key=lambda m: (len(m.captures), m.text())))  # captures when there are some
        expected.append(ascii_cells(board))
    pdn = game_to_pdn(board, {"Black": "alice", "White": "bob"})

    game = replay(pdn)
    assert game.variant == variant and game.size == board.variant.geometry.size
    assert [p.cells for p in game.positions] == expected
    assert [p.move for p in game.positions[1:]] == [m.text() for m in board.move_stack]
    assert any(p.captures for p in game.positions), "the game should show a capture"
    assert game.positions[-1].fen == board.fen()
    assert sum(n is not None for row in game.numbers for n in row) == board.variant.geometry.squares


async def play_rated_game(service: GameService, guild_id: int, channel_id: int, alice: User, bob: User) -> str:
    """A rated game of alice and bob: two moves, then the side to move resigns. Returns its id."""
    guild, channel = GuildId(str(guild_id)), ChannelId(str(channel_id))
    challenge = (await service.challenge(guild, channel, alice, bob)).challenge
    assert challenge is not None
    view = (await service.accept(challenge.id, guild, bob)).game
    assert view is not None
    for _ in range(2):
        mover = alice if view.to_move.id == alice.id else bob
        view = (await service.move(view.id, guild, mover, view.legal_moves[0])).game
        assert view is not None
    loser = alice if view.to_move.id == alice.id else bob
    await service.resign(view.id, guild, loser)
    return view.id


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, str, Any]:
    async with session.get(url) as response:
        body = await response.text()
        data = await response.json() if response.content_type == "application/json" else None
        return response.status, body, data


async def test_leaderboard_page_matches_the_command(sandbox: SandboxRuntime) -> None:
    emulator, service = sandbox.emulator, sandbox.service
    assert service is not None
    alice, bob = (User(emulator.user(n).id, n) for n in ("alice", "bob"))
    guild = emulator.guild.id
    await play_rated_game(service, guild, emulator.channel.id, alice, bob)
    await play_rated_game(service, guild, emulator.channel.id, bob, alice)

    reply = await emulator.invoke(emulator.user("carol"), ["checkers", "leaderboard"], {})
    description = reply.message.embeds[0]["description"]
    from_bot = [m.groups() for m in map(EMBED_ROW.match, description.split("\n")) if m]
    assert len(from_bot) == 2

    # the bot records each server's name as Discord makes it available (discord.py waits for the last guild first)
    await eventually(lambda: service.guild_name(GuildId(str(guild))), what="the server's name recorded")
    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, f"{sandbox.address}/leaderboard/{guild}/american")
        assert status == 200
        assert HTML_ROW.findall(html) == from_bot
        assert f"<h1>Leaderboard: English draughts, {html_escape(emulator.guild.name)}</h1>" in html, "its name"
        status, _, data = await get(session, f"{sandbox.address}/leaderboard/{guild}/american.json")
        assert status == 200 and data["guild_id"] == str(guild) and data["variant"] == "american"
        from_json = [
            (str(e["rank"]), e["name"], f"{round(e['rating'])}{'?' if e['provisional'] else ''}", str(e["games"]))
            for e in data["entries"]
        ]
        assert from_json == from_bot

        status, html, _ = await get(session, f"{sandbox.address}/leaderboard/global/american")
        assert status == 200 and len(HTML_ROW.findall(html)) == 2
        status, html, _ = await get(session, f"{sandbox.address}/leaderboard/{guild}/mini")
        assert status == 200 and "Nobody has a rating here yet" in html
        status, html, _ = await get(session, f"{sandbox.address}/leaderboard/{guild}/chess")
        assert status == 404 and "no variant" in html
        status, _, _ = await get(session, f"{sandbox.address}/leaderboard/not-a-guild/american")
        assert status == 404


async def test_game_page_has_the_pdn_and_every_position(sandbox: SandboxRuntime) -> None:
    emulator, service = sandbox.emulator, sandbox.service
    assert service is not None
    alice, bob = (User(emulator.user(n).id, n) for n in ("alice", "bob"))
    game_id = await play_rated_game(service, emulator.guild.id, emulator.channel.id, alice, bob)
    pdn = await service.pdn(game_id)

    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, f"{sandbox.address}/games/{game_id}")
        assert status == 200
        assert "alice vs bob" in html or "bob vs alice" in html
        for button in ("first", "prev", "next", "last"):
            assert f'id="{button}"' in html
        assert '<script id="game-data" type="application/json">' in html

        status, _, data = await get(session, f"{sandbox.address}/games/{game_id}.json")
        assert status == 200 and data["pdn"] == pdn
        moves = read_pdn(pdn)[0].board.move_stack
        assert [p["move"] for p in data["replay"]["positions"]] == [None, *(m.text() for m in moves)]

        async with session.get(f"{sandbox.address}/games/{game_id}.pdn") as response:
            assert response.status == 200 and await response.text() == pdn
            assert f"kingme-{game_id}.pdn" in response.headers["Content-Disposition"]

        status, html, _ = await get(session, f"{sandbox.address}/games/nosuchgame")
        assert status == 404 and "no game" in html
        active = await service.play_ai(
            GuildId(str(emulator.guild.id)), ChannelId(str(emulator.channel.id)), alice, "easy"
        )
        assert active.game is not None
        status, html, _ = await get(session, f"{sandbox.address}/games/{active.game.id}")
        assert status == 200 and "Being played now" in html, "a game being played has its page: it can be watched"


async def test_no_name_can_end_the_replay_pages_script(sandbox: SandboxRuntime) -> None:
    """Players named to break out of the page: the embedded data stays one inert JSON text, and the game reads back."""
    emulator, service = sandbox.emulator, sandbox.service
    assert service is not None
    hostile = "</script><script>alert(1)</script>\u2028<!--"
    mallory, bob = User(emulator.user("alice").id, hostile), User(emulator.user("bob").id, "bob\u2029&amp;")
    game_id = await play_rated_game(service, emulator.guild.id, emulator.channel.id, mallory, bob)

    async with aiohttp.ClientSession() as session:
        status, html, _ = await get(session, f"{sandbox.address}/games/{game_id}")
        assert status == 200
        start = html.index('<script id="game-data" type="application/json">') + len(
            '<script id="game-data" type="application/json">'
        )
        payload = html[start : html.index("</script>", start)]
        assert not any(c in payload for c in "<>&\u2028\u2029")  # nothing in it can end or comment out the element
        data = json.loads(payload)
        assert {data["black"], data["white"]} == {hostile, "bob\u2029&amp;"}
        assert "<script>alert(1)" not in html  # the visible title and PDN are escaped too
        status, _, as_json = await get(session, f"{sandbox.address}/games/{game_id}.json")
        assert status == 200 and len(as_json["replay"]["positions"]) == 3


async def test_public_pages_send_security_headers_and_no_server_version(sandbox: SandboxRuntime) -> None:
    """Every public page (a game, a leaderboard, a page not found) has a strict CSP that forbids inline code and
    framing, no referrer and nosniff; no response says which Python or aiohttp answers. (The replay page still draws
    its board and graph under that CSP: tests/bot/public/test_review_graph.py runs it in Chromium.)"""
    emulator, service = sandbox.emulator, sandbox.service
    assert service is not None
    alice, bob = (User(emulator.user(n).id, n) for n in ("alice", "bob"))
    game_id = await play_rated_game(service, emulator.guild.id, emulator.channel.id, alice, bob)
    base = sandbox.web_url
    async with aiohttp.ClientSession() as session:
        for path in (f"/games/{game_id}", f"/leaderboard/{emulator.guild.id}/american", "/games/nosuchgame"):
            async with session.get(base + path) as response:
                csp = response.headers.get("Content-Security-Policy", "")
                assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp, (path, csp)
                assert "'unsafe-inline'" not in csp
                assert response.headers.get("Referrer-Policy") == "no-referrer"
                assert response.headers.get("X-Content-Type-Options") == "nosniff"
                assert response.headers.get("Server") == "King Me", response.headers.get("Server")
        async with session.get(sandbox.ops_url + "/healthz") as response:  # the operators' listener too
            assert response.headers.get("Server") == "King Me", response.headers.get("Server")
