"""The sandbox page does what Discord's client does with a message (in headless Chromium, on the whole sandbox): a
file attached to an ephemeral reply downloads for its user alone; links of every form Discord makes are links, and
nothing in a message or a name runs as HTML; and on a phone (390 px) the chat, the command box, the menus, the
channels and the user switch all work with nothing scrolling sideways."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp

from bot.sandbox import FILES_PATH
from bot.sandbox_runtime import SandboxRuntime
from core import read_pdn
from tests.bot.sandbox.conftest import ARTIFACTS
from tests.bot.sandbox.page_actions import STEP_TIMEOUT, command, newest_board, open_game_thread, play_move

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

FETCH = """async (href) => {
  const response = await fetch(href);
  return {status: response.status, type: response.headers.get('content-type'),
          disposition: response.headers.get('content-disposition'), text: await response.text()};
}"""
LINKS = """(id) => [...document.querySelectorAll(`.msg[data-id="${id}"] a[href]`)]
  .map((a) => ({href: a.getAttribute('href'), target: a.target, rel: a.rel, text: a.textContent}))"""
DRAWER_OPEN = "() => document.querySelector('#sidebar').getBoundingClientRect().left === 0"
"""The drawer has slid all the way in."""
NO_SIDEWAYS_SCROLL = """() => document.documentElement.scrollWidth <= window.innerWidth
  && document.querySelector('#messages').scrollWidth <= document.querySelector('#messages').clientWidth"""


async def open_page(browser: Browser, sandbox: SandboxRuntime, viewport: dict[str, int], errors: list[str]) -> Page:
    context = await browser.new_context(viewport=viewport, accept_downloads=True)  # type: ignore[arg-type]
    page = await context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(sandbox.page_url)
    await page.wait_for_selector('body[data-me="alice"][data-ready="1"]')
    return page


async def test_an_exported_game_downloads_from_the_page_for_its_user_alone(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    errors: list[str] = []
    page = await open_page(browser, sandbox, DESKTOP, errors)
    await command(page, "/checkers play level:eas", pick="easy")
    await open_game_thread(page)
    await newest_board(page)
    await command(page, "/checkers export")
    card = page.locator('.msg[data-ephemeral="true"] .attachment').last
    await card.wait_for()
    name = await card.locator(".fname").inner_text()
    assert re.fullmatch(r"kingme-\w+\.pdn", name), name
    assert re.fullmatch(r"\d+ bytes|\d+\.\d KB", await card.locator(".size").inner_text())
    alice = sandbox.emulator.user("alice")
    [thread] = sandbox.emulator.threads()  # the export was asked for in the game's thread
    reply = next(m for m in reversed(sandbox.emulator.messages(thread, visible_to=alice)) if m.attachments)
    assert reply.ephemeral
    sent = reply.attachments[0].data.decode()

    # a click on the download button saves the file, under its name
    async with page.expect_download() as started:
        await card.locator(".file-download").click()
    download = await started.value
    assert download.suggested_filename == name
    saved = (await asyncio.to_thread(Path(await download.path()).read_bytes)).decode()
    assert saved == sent and "[Event" in saved
    assert read_pdn(saved)[0].board is not None

    # the name is a link to the same file, served as text to download
    href = await card.locator(".fname").get_attribute("href")
    assert href is not None and href.startswith(FILES_PATH + "/")
    fetched = await page.evaluate(FETCH, href)
    assert fetched["status"] == 200 and fetched["text"] == sent
    assert fetched["type"] == "text/plain; charset=utf-8"
    assert fetched["disposition"].startswith(f'attachment; filename="{name}"')

    # only alice's page may have it: not bob (whose page never shows it), not without the run's key
    async with aiohttp.ClientSession() as session:
        async with session.get(sandbox.address + href.replace("as=alice", "as=bob")) as response:
            assert response.status == 404
        async with session.get(sandbox.address + re.sub(r"key=[^&]+", "key=guess", href)) as response:
            assert response.status == 403
    assert errors == []
    await page.context.close()


async def test_links_of_every_form_are_links_and_nothing_runs_as_html(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    emulator = sandbox.emulator
    villain = emulator.add_user('<script>window.pwned = "name"</script>')
    content = (
        "Read <https://example.com/no-embed> and https://example.com/bare?a=1&b=2. Also [the rules]"
        "(https://example.com/masked) and [hidden](<https://example.com/masked-no-embed>). "
        "Not links: [evil](javascript:window.pwned='masked') <javascript:window.pwned='angle'> "
        "[data](data:text/html,hi) javascript:alert(1) "
        f"<img src=x onerror=\"window.pwned='img'\"> <script>window.pwned='script'</script> <@{villain.id}>"
    )
    embed = {
        "title": "<b>bold?</b><script>window.pwned='title'</script>",
        "url": "javascript:window.pwned='title-url'",
        "description": "See [the ladder](https://example.com/ladder) or <https://example.com/embed>",
        "fields": [{"name": "<i>field</i>", "value": "https://example.com/field", "inline": False}],
    }
    url = f"{emulator.api_url}/channels/{emulator.channel.id}/messages"
    headers = {"Authorization": f"Bot {emulator.token}"}
    async with (
        aiohttp.ClientSession(headers=headers) as session,
        session.post(url, json={"content": content, "embeds": [embed]}) as sent,
    ):
        assert sent.status == 200, await sent.text()
        message_id = (await sent.json())["id"]
    errors: list[str] = []
    page = await open_page(browser, sandbox, DESKTOP, errors)
    links: list[dict[str, Any]] = await page.evaluate(LINKS, message_id)
    assert [link["href"] for link in links] == [
        "https://example.com/no-embed",
        "https://example.com/bare?a=1&b=2",
        "https://example.com/masked",
        "https://example.com/masked-no-embed",
        "https://example.com/ladder",
        "https://example.com/embed",
        "https://example.com/field",
    ]
    assert all(link["target"] == "_blank" and link["rel"] == "noopener noreferrer" for link in links)
    assert [link["text"] for link in links][2:5] == ["the rules", "hidden", "the ladder"]
    message = page.locator(f'.msg[data-id="{message_id}"]')
    text = await message.inner_text()
    for shown in (
        "[evil](javascript:window.pwned='masked')",
        "<javascript:window.pwned='angle'>",
        "<script>window.pwned='script'</script>",
        "<img src=x onerror=\"window.pwned='img'\">",
        '@<script>window.pwned = "name"</script>',
        "<b>bold?</b><script>window.pwned='title'</script>",
        "<i>field</i>",
    ):
        assert shown in text, f"{shown!r} is not shown as text"
    hostile = await page.evaluate(
        """() => ({scripts: document.querySelectorAll('#app script').length,
                   handlers: document.querySelectorAll('#app [onerror]').length,
                   bold: document.querySelectorAll('.msg b, .msg i, .msg img:not(.emoji)').length,
                   pwned: window.pwned === undefined ? null : String(window.pwned)})"""
    )
    assert hostile == {"scripts": 0, "handlers": 0, "bold": 0, "pwned": None}
    switch = await page.evaluate(
        "() => [...document.querySelectorAll('#user-switch button > span')].map((s) => s.innerText)"
    )
    assert switch[-1] == villain.name, "the user switch shows the name as it is"
    assert errors == []
    await page.context.close()


async def test_on_a_phone_the_chat_has_the_screen_and_everything_stays_usable(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    errors: list[str] = []
    page = await open_page(browser, sandbox, PHONE, errors)
    drawer = page.locator("#sidebar")
    assert not await drawer.is_visible(), "the channels and users cover the chat"
    chat = await page.locator(".chat").bounding_box()
    assert chat is not None and chat["x"] == 0 and chat["width"] == PHONE["width"]
    assert await page.evaluate(NO_SIDEWAYS_SCROLL)

    # the command box and its suggestions, within the screen
    box = page.locator("#command")
    await box.click()
    await box.type("/checkers ch")
    suggestions = await page.locator("#suggest").bounding_box()
    assert suggestions is not None and suggestions["x"] >= 0
    assert suggestions["x"] + suggestions["width"] <= PHONE["width"]
    await command(page, "/checkers challenge opponent:bo", pick="@bob")
    accept = page.locator('button[data-custom-id^="km:c:accept"]').last
    await accept.wait_for()
    assert ((await accept.bounding_box()) or {"height": 0})["height"] >= 40, "a button too small for a thumb"

    # bob accepts: the user switch is in the drawer, behind the chip of who we are
    await page.click("#me-chip")
    await page.wait_for_function(DRAWER_OPEN)
    width = (await drawer.bounding_box() or {"width": PHONE["width"]})["width"]
    assert width <= 0.85 * PHONE["width"], "the drawer leaves some of the chat in view"
    await page.screenshot(path=ARTIFACTS / "sandbox-phone-drawer.png")
    await page.click('[data-user="bob"]')
    await page.wait_for_selector('body[data-me="bob"][data-ready="1"]')
    await drawer.wait_for(state="hidden")
    assert await page.locator("#me-chip > span").inner_text() == "bob"
    await accept.click()

    # the game's thread, from the drawer's channel list; a move with both select menus
    await page.click("#menu-toggle")
    thread = page.locator(".channel.thread").last
    await thread.wait_for()
    name = await thread.get_attribute("data-name")
    await thread.click()
    await drawer.wait_for(state="hidden")
    assert await page.locator("#chat-title").inner_text() == name
    board = await newest_board(page)
    mover = (await page.locator(f'.msg[data-id="{board}"] > .content .mention').first.inner_text()).lstrip("@")
    if mover != "bob":
        await page.click("#me-chip")
        await page.click(f'[data-user="{mover}"]')
        await page.wait_for_selector(f'body[data-me="{mover}"][data-ready="1"]')
    await play_move(page, board)
    assert await page.evaluate(NO_SIDEWAYS_SCROLL), "the board or its menus scroll sideways"
    await page.screenshot(path=ARTIFACTS / "sandbox-phone.png")

    # the backdrop closes the drawer without choosing anything
    await page.click("#menu-toggle")
    await drawer.wait_for(state="visible")
    await page.mouse.click(PHONE["width"] - 10, PHONE["height"] // 2)
    await drawer.wait_for(state="hidden")
    assert await page.locator("#chat-title").inner_text() == name
    assert await page.evaluate(NO_SIDEWAYS_SCROLL)
    assert errors == []
    await page.context.close()
