"""The sandbox page's key, in headless Chromium on the whole sandbox: a page opened without its key, or with an earlier
run's, says in one line what to do and stops reconnecting; with ``--data`` the key is made once, kept in the data
folder for its owner's eyes only, and a tab open on the sandbox keeps working across a restart."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING

from bot.sandbox import KEY_FILE, kept_key
from bot.sandbox_runtime import SandboxRuntime, free_port
from tests.bot.sandbox.conftest import make_settings
from tests.bot.sandbox.page_actions import STEP_TIMEOUT, command

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

NO_KEY = "This address has no key: open the one kingme printed when it started, which ends in ?key=…"
OLD_KEY = (
    "This page's key is not the running sandbox's (an earlier run's?): open the address kingme printed when it last "
    "started"
)
READY = 'body[data-ready="1"]'
HELP = '.msg[data-ephemeral="true"]'
"""The bot's answer to /checkers help, which only its asker sees."""
REFUSED = 'body[data-refused="1"]'
RETRIES_WOULD_SHOW_WITHIN = 3_000
"""Milliseconds in which a page that went on reconnecting would have opened more sockets (it retries after 0.25 s,
then 0.5 s, ...)."""


async def new_page(browser: Browser, errors: list[str], sockets: list[str]) -> Page:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("websocket", lambda ws: sockets.append(ws.url))
    return page


async def notice(page: Page) -> str:
    """The line the page shows above the messages, once the sandbox has refused it."""
    await page.wait_for_selector(REFUSED)
    shown = page.locator("#notice")
    assert await shown.is_visible()
    return await shown.inner_text()


async def test_a_page_without_the_key_or_with_an_old_one_says_what_to_do_and_stops(
    sandbox: SandboxRuntime, browser: Browser
) -> None:
    errors: list[str] = []
    sockets: list[str] = []
    page = await new_page(browser, errors, sockets)

    await page.goto(sandbox.address)  # the address without its key, as the README once showed it
    assert await notice(page) == NO_KEY
    assert await page.get_attribute("#conn", "title") == NO_KEY
    await page.wait_for_timeout(RETRIES_WOULD_SHOW_WITHIN)
    assert len(sockets) == 1, f"the page went on reconnecting: {sockets}"
    await command(page, "/checkers help")  # not "wait a moment": the same line
    await page.locator(".toast", has_text=NO_KEY).wait_for()

    sockets.clear()
    await page.goto(f"{sandbox.address}/?key=an-earlier-runs-key-0123")
    assert await notice(page) == OLD_KEY
    await page.wait_for_timeout(RETRIES_WOULD_SHOW_WITHIN)
    assert len(sockets) == 1, f"the page went on reconnecting: {sockets}"

    await page.goto(sandbox.page_url)  # the address kingme printed
    await page.wait_for_selector(READY)
    assert not await page.locator("#notice").is_visible()
    await command(page, "/checkers help")
    await page.locator(HELP).wait_for()
    assert errors == []
    await page.context.close()


async def test_with_data_the_key_is_kept_and_an_open_tab_works_across_restarts(
    tmp_path: Path, browser: Browser
) -> None:
    settings = make_settings(tmp_path, http_port=free_port("127.0.0.1"))
    data = tmp_path / "kept"
    errors: list[str] = []
    sockets: list[str] = []
    page = await new_page(browser, errors, sockets)

    first = SandboxRuntime(settings, data_dir=data)
    await first.start()
    try:
        key_file = data / KEY_FILE
        assert key_file.read_text().strip() == first.bridge.key
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        await page.goto(first.page_url)
        await page.wait_for_selector(READY)
    finally:
        await first.stop()
    await page.wait_for_selector('body[data-ready=""]')  # the tab saw the sandbox go

    second = SandboxRuntime(settings, data_dir=data)
    await second.start()
    try:
        assert second.page_url == first.page_url, "a restart with --data made a new key"
        await page.wait_for_selector(READY)  # the open tab reconnected by itself
        await page.reload()
        await page.wait_for_selector(READY)
        await command(page, "/checkers help")
        await page.locator(HELP).wait_for()
    finally:
        await second.stop()

    # a sandbox on the same port without --data has a key of its own: the tab left open is told, and stops
    third = SandboxRuntime(settings)
    await third.start()
    try:
        assert third.page_url != first.page_url
        assert await notice(page) == OLD_KEY
        opened = len(sockets)
        await page.wait_for_timeout(RETRIES_WOULD_SHOW_WITHIN)
        assert len(sockets) == opened, f"the page went on reconnecting: {sockets[opened:]}"
    finally:
        await third.stop()
    assert errors == []
    await page.context.close()


def test_a_kept_key_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / KEY_FILE
    key = kept_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kept_key(path) == key and path.read_text() == key + "\n"
    path.chmod(0o644)  # a copy made with looser permissions is tightened
    assert kept_key(path) == key and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("\x00 not a key")  # a damaged file is replaced by a new key
    replaced = kept_key(path)
    assert replaced != key and path.read_text() == replaced + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]
