"""The replay page's evaluation graph in a real browser (headless Chromium through Playwright, as in
``tests/bot/sandbox/test_browser.py``): a game with a deliberate blunder, reviewed through the game service, is drawn
with one point per position and the blunder marked; a click on a point shows that position."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.sandbox_runtime import SandboxRuntime
from bot.service import ChannelId, GameService, GameView, GuildId, User
from tests.bot.sandbox.conftest import ARTIFACTS, browser, chromium

if TYPE_CHECKING:
    from playwright.async_api import Browser

__all__ = ["browser", "chromium"]  # the browser fixtures, shared
MOVES = ("11-15", "23-19", "12-16", "19x12")
"""Black's 12-16 hangs a man to 19x12."""


async def alice_against_bob(sandbox: SandboxRuntime) -> tuple[GameService, GuildId, User, User, GameView]:
    """A game between alice (Black) and bob in the sandbox's channel, through the game service."""
    emulator, service = sandbox.emulator, sandbox.service
    assert service is not None
    alice, bob = (User(emulator.user(n).id, n) for n in ("alice", "bob"))
    guild = GuildId(str(emulator.guild.id))
    started = await service.challenge(guild, ChannelId(str(emulator.channel.id)), alice, bob, color="black")
    assert started.challenge is not None
    view = (await service.accept(started.challenge.id, guild, bob)).game
    assert view is not None
    return service, guild, alice, bob, view


async def test_the_replay_page_draws_the_evaluation_graph_with_the_blunder(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    service, guild, alice, bob, view = await alice_against_bob(sandbox)
    for text in MOVES:
        view = (await service.move(view.id, guild, alice if view.to_move.id == alice.id else bob, text)).game
        assert view is not None
    await service.resign(view.id, guild, alice)

    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    url = f"{sandbox.address}/games/{view.id}"
    await page.goto(url)
    assert "Not reviewed yet" in await page.locator("#graph").inner_text()
    assert await page.locator("#graph circle").count() == 0

    analysis = await service.analyse(view.id, bob)
    assert [m.judgement.value for m in analysis.review.moves][2] == "blunder"
    await page.goto(url)
    points = page.locator("#graph circle.point")
    assert await points.count() == len(MOVES) + 1, "one point per position"
    blunders = page.locator("#graph circle.point.blunder")
    assert await blunders.count() == 1 and await blunders.get_attribute("data-ply") == "3"
    assert await page.locator("#graph polyline.curve").count() == 1
    await page.locator("#graph").screenshot(path=ARTIFACTS / "replay-graph.png")

    await blunders.click()
    assert await page.locator("#board").get_attribute("data-ply") == "3"
    assert "12-16" in await page.locator("#status").inner_text()
    assert await page.locator('#graph circle.point.current[data-ply="3"]').count() == 1
    assert errors == [], errors
    await page.close()


async def test_the_page_of_a_game_being_played_follows_it_move_by_move(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    """Anyone with the link watches a game as it is played: the page opens on the newest position and adds each
    move as it is made (no reload, no login); once the game ends it shows the result and stops asking."""
    service, guild, alice, bob, view = await alice_against_bob(sandbox)
    view = (await service.move(view.id, guild, alice, MOVES[0])).game
    assert view is not None

    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(f"{sandbox.address}/games/{view.id}")
    assert "Being played now" in await page.locator(".summary").inner_text()
    assert await page.locator("#board").get_attribute("data-ply") == "1", "the newest position"
    assert "being played" in await page.locator("#status").inner_text()

    for text in MOVES[1:3]:
        view = (await service.move(view.id, guild, alice if view.to_move.id == alice.id else bob, text)).game
        assert view is not None
    await page.wait_for_function("() => document.querySelector('#board').dataset.ply === '3'", timeout=20_000)
    assert await page.locator("#moves .mv").all_inner_texts() == list(MOVES[:3])

    await service.resign(view.id, guild, bob)
    await page.wait_for_function("() => document.querySelector('#result').textContent !== '*'", timeout=20_000)
    assert "resign" in (await page.locator(".summary").inner_text()).lower()
    assert errors == [], errors
    await page.close()
