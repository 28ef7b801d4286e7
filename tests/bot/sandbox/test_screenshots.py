"""The board as people see it: the sandbox page in headless Chromium at a desktop's width and a phone's (390 px),
in Discord's dark and light themes, with the board's tiles (the bot's application emojis) served by the emulator.

Each view must show all 81 tiles loaded, in 9 rows of 9 inside the window (no sideways scrolling), and the colours
read back from the screenshot at each piece and at its square must contrast at least 3:1. The screenshots are saved
under ``artifacts/`` (``board-desktop-dark.png``, …); copy them to ``docs/`` when the look changes.
"""

from __future__ import annotations

import io
import json
import statistics
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest
from PIL import Image

from bot.emulator import Message
from bot.games._tiles import MIN_CONTRAST, contrast
from bot.sandbox_runtime import SandboxRuntime
from tests.bot.sandbox.conftest import ARTIFACTS
from tests.support import board_in_thread, eventually

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

POSITION = "B:W6,30,19,K2:B1,22,25,K3"
"""Black (alice) must take 1x10; then White's only move takes too, 30x21: a board with men and kings of both sides,
a last move with a start, an end and a capture."""
VIEWS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SCALE = 2
"""Device pixels per CSS pixel (a phone's, and crisp screenshots for the README)."""
# The board's 81 tiles: the first custom emoji of its embed (the status line's come after the grid).
TILES = """(id) => [...document.querySelectorAll(`.msg[data-id="${id}"] .embed-desc img.emoji`)].slice(0, 81)
  .map((img) => {
  const box = img.getBoundingClientRect();
  return {name: img.dataset.name, loaded: img.complete ? img.naturalWidth : 0,
          x: box.left, y: box.top, width: box.width, height: box.height};
})"""


def player_option(message: Message, prefix: str) -> tuple[str, str]:
    """The custom id and first option of the message's select menu whose custom id starts with ``prefix``."""
    select = next(c for c in message.iter_components() if str(c.get("custom_id", "")).startswith(prefix))
    return select["custom_id"], select["options"][0]["value"]


async def played_board(sandbox: SandboxRuntime) -> Message:
    """Alice plays the AI from :data:`POSITION`; returns the board once the AI has answered."""
    emulator = sandbox.emulator
    alice = emulator.user("alice")
    notice = (await emulator.invoke(alice, ["checkers", "play"], {"level": "easy", "position": POSITION})).message
    board = await board_in_thread(emulator, notice)
    custom_id, value = player_option(board, "km:p:")
    await emulator.select(alice, board, custom_id, [value])  # 1x10 is the only move: choosing the piece plays it
    await eventually(lambda: "30x21" in json.dumps(board.embeds), within=20, what="the AI's 30x21 on the board")
    return board


def colour_at(shot: Image.Image, tile: dict[str, Any], x: float, y: float) -> str:
    """The median colour of the 3×3 device pixels at (``x``, ``y``) of a tile (0..1 across and down)."""
    cx = round((tile["x"] + x * tile["width"]) * SCALE)
    cy = round((tile["y"] + y * tile["height"]) * SCALE)
    pixels = [shot.getpixel((cx + dx, cy + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    r, g, b = (round(statistics.median(p[i] for p in pixels)) for i in range(3))  # type: ignore[index]
    return f"#{r:02x}{g:02x}{b:02x}"


async def check_view(page: Page, board_id: str, view: str, scheme: str) -> None:
    message = page.locator(f'.msg[data-id="{board_id}"]')
    await message.wait_for()
    await message.locator(".embed").scroll_into_view_if_needed()
    await page.wait_for_function(
        f"() => {{ const t = ({TILES})({json.dumps(board_id)}); return t.length && t.every((i) => i.loaded > 0); }}"
    )
    tiles: list[dict[str, Any]] = await page.evaluate(TILES, board_id)
    assert len(tiles) == 81 and all(t["loaded"] == 128 for t in tiles), "81 tiles, each image loaded"
    rows: dict[int, list[dict[str, Any]]] = {}
    for tile in tiles:
        rows.setdefault(round(tile["y"]), []).append(tile)
    assert [len(row) for row in rows.values()] == [9] * 9, f"9 rows of 9 tiles ({view}, {scheme})"
    width = await page.evaluate("() => window.innerWidth")
    assert all(t["x"] >= 0 and t["x"] + t["width"] <= width for t in tiles), "the board fits the window's width"
    assert await page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scroll"
    assert all(16 <= t["width"] <= 24 for t in tiles), "tiles are the size of emoji in text"

    shot = Image.open(io.BytesIO(await page.screenshot())).convert("RGB")
    pieces = [t for t in tiles if t["name"].split("_")[1][:2] in ("bm", "bk", "wm", "wk")]
    assert {t["name"] for t in pieces} == {"km1_bm", "km1_bk", "km1_wm", "km1_wk", "km1_wmh"}
    for tile in pieces:
        king = tile["name"].split("_")[1][1] == "k"
        body = colour_at(shot, tile, 0.5, 0.83 if king else 0.5)  # a king's crown is in its middle
        square = colour_at(shot, tile, 0.1, 0.1)
        ratio = contrast(body, square)
        assert ratio >= MIN_CONTRAST, f"{tile['name']}: {body} on {square} is {ratio:.2f}:1 ({view}, {scheme})"
    await message.screenshot(path=ARTIFACTS / f"board-{view}-{scheme}.png")
    if view == "desktop" and scheme == "dark":
        await page.screenshot(path=ARTIFACTS / "sandbox-tiles.png")


def errors_into(errors: list[str]) -> Any:
    return lambda exc: errors.append(str(exc))


@pytest.mark.parametrize("scheme", ["dark", "light"])
async def test_the_board_reads_at_a_glance_on_desktop_and_phone_in_both_themes(
    sandbox: SandboxRuntime, browser: Browser, scheme: str
) -> None:
    board = await played_board(sandbox)
    for view, viewport in VIEWS.items():
        context = await browser.new_context(viewport=viewport, device_scale_factor=SCALE, color_scheme=scheme)  # type: ignore[arg-type]
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", errors_into(errors))
        try:
            await page.goto(sandbox.page_url)
            await page.wait_for_selector('body[data-ready="1"]')
            background = await page.evaluate("() => getComputedStyle(document.body).backgroundColor")
            assert background == ("rgb(49, 51, 56)" if scheme == "dark" else "rgb(255, 255, 255)"), background
            await page.locator(".msg:has(.thread-card) .thread-card").last.click()  # into the game's thread
            await check_view(page, str(board.id), view, scheme)
            assert errors == []
        finally:
            await context.close()


async def test_a_message_of_a_few_emoji_shows_them_jumbo_as_discord_does(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    emulator = sandbox.emulator
    king = emulator.emojis.by_name("km1_bk")
    assert king is not None, "the bot uploaded its tiles"
    url = f"{emulator.api_url}/channels/{emulator.channel.id}/messages"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bot {emulator.token}"}) as session:
        for count in (3, 28):
            body = {"content": f"<:km1_bk:{king.id}>" * count}
            async with session.post(url, json=body) as sent:
                assert sent.status == 200, await sent.text()
    context = await browser.new_context(viewport=VIEWS["desktop"])
    page = await context.new_page()
    try:
        await page.goto(sandbox.page_url)
        await page.wait_for_selector('body[data-ready="1"]')
        heights = await page.evaluate(
            """() => [...document.querySelectorAll('.msg .content')].filter((c) => c.querySelector('img.emoji'))
                 .map((c) => c.querySelector('img.emoji').getBoundingClientRect().height)"""
        )
        assert heights == [48, 22], "jumbo (48 px) up to 27 emoji, text-sized (22 px) beyond"
    finally:
        await context.close()
