"""The sandbox in a real browser (headless Chromium driven by Playwright, with the system's browser): the whole
sandbox as ``kingme sandbox`` runs it, played the way a newcomer plays it.

Never skipped: without Playwright's package or Chromium the test fails and says what to install (CI installs both:
``apt-get install chromium`` and the ``playwright`` package; never ``playwright install``, which downloads browsers).
The board and the replay are saved as screenshots under ``artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bot.i18n import _n
from bot.sandbox_runtime import SandboxRuntime
from core import Board, read_pdn
from tests.bot.sandbox.conftest import ARTIFACTS, make_settings
from tests.bot.sandbox.page_actions import (
    STEP_TIMEOUT,
    board_state,
    choose,
    command,
    newest_board,
    play_move,
    switch_to,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser

MAX_TURNS = 200
REPLAY_CELLS = """() => [...document.querySelectorAll('#board .sq')]
  .map(c => c.classList.contains('light') ? ' ' : (c.dataset.piece || '.')).join('')"""


@pytest.fixture
async def full_sandbox(tmp_path: Path) -> AsyncIterator[SandboxRuntime]:
    """The sandbox with AI worker processes, as ``kingme sandbox`` runs it."""
    runtime = SandboxRuntime(make_settings(tmp_path, use_threads=False))
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop()


def cells(board: Board) -> str:
    """The board as the replay page draws it, from the rules engine: one character a square."""
    size = board.variant.geometry.size
    return "".join(line[::2].ljust(size) for line in board.ascii().split("\n"))


# -- the test ------------------------------------------------------------------------------------------------------


async def test_a_newcomer_plays_easy_to_the_end_then_reads_the_ladder_and_the_replay(
    full_sandbox: SandboxRuntime, browser: Browser
) -> None:
    sandbox = full_sandbox
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(sandbox.page_url)
    await page.wait_for_selector('body[data-me="alice"][data-ready="1"]')
    assert await page.locator(".channel[data-name='checkers']").count() == 1

    # the emulator's validation shows as a toast, and the command comes back to be fixed
    await command(page, "/checkers play colour:green")
    await page.wait_for_selector(".toast:has-text('not one of its choices')")

    # /checkers play level:easy, the level chosen from the bot's autocomplete; the game is in its own thread
    await command(page, "/checkers play level:eas", pick="easy")
    notice = page.locator(".msg:has(.thread-card)").last
    await notice.wait_for()
    assert "alice used /checkers play" in str(await notice.locator(".ref").text_content())
    await notice.locator(".thread-card").click()
    board_id = await newest_board(page)
    await play_move(page, board_id)

    # bob may not move alice's pieces: the bot refuses him in a message only he sees
    await switch_to(page, "bob")
    before = (await board_state(page, board_id))["piece"]
    await choose(page, board_id, "km:p:")
    refusal = page.locator('.msg[data-ephemeral="true"]').last
    await refusal.wait_for()
    assert "you are not playing in this game" in (await refusal.inner_text()).lower()
    assert "Only you can see this" in await refusal.inner_text()
    assert (await board_state(page, board_id))["piece"] == before, "bob's choice changed alice's board"
    await switch_to(page, "alice")
    assert await page.locator('.msg[data-ephemeral="true"]').count() == 0, "alice sees bob's ephemeral reply"

    for turn in range(MAX_TURNS):
        if (await board_state(page, board_id))["piece"] is None:
            break
        await play_move(page, board_id)
        if turn == 3:
            await page.locator(f'.msg[data-id="{board_id}"]').screenshot(path=ARTIFACTS / "sandbox-board.png")
    else:
        raise AssertionError(f"the game did not end within {MAX_TURNS} moves")
    assert (await board_state(page, board_id))["content"].startswith("Game over.")
    result = page.locator(".msg .content:has-text('🏁')").last
    await result.wait_for()
    game_id = re.search(r"export game:(\w+)", await result.inner_text())
    assert game_id, await result.inner_text()
    await page.screenshot(path=ARTIFACTS / "sandbox-game-over.png")

    # a rated game of alice and bob in its own thread, so the ladder has rows
    await page.locator(".channel[data-name='checkers']").click()
    await command(page, "/checkers challenge opponent:bob")
    accept = page.locator('button[data-custom-id^="km:c:accept"]').last
    await accept.wait_for()
    await switch_to(page, "bob")
    await accept.click()
    thread = page.locator(".channel.thread").last
    await thread.wait_for()
    await thread.click()
    duel = await newest_board(page)
    for _ in range(2):
        mover = (await page.locator(f'.msg[data-id="{duel}"] > .content .mention').first.inner_text()).lstrip("@")
        await switch_to(page, mover)
        await play_move(page, duel)
    mover = (await page.locator(f'.msg[data-id="{duel}"] > .content .mention').first.inner_text()).lstrip("@")
    await switch_to(page, mover)
    await command(page, "/checkers resign")
    await page.locator('button[data-custom-id^="km:r:"]').last.click()  # "Really resign?"
    await page.wait_for_function(
        "(id) => document.querySelector(`.msg[data-id='${id}'] > .content`).textContent.startsWith('Game over')",
        arg=duel,
    )

    # the leaderboard page shows what /checkers leaderboard shows
    await page.locator(".channel[data-name='checkers']").click()
    await command(page, "/checkers leaderboard")
    embed = page.locator(".msg .embed:has(.embed-title:has-text('Leaderboard'))").last
    await embed.wait_for()
    from_bot = [
        line.strip()
        for line in (await embed.locator(".embed-desc").inner_text()).split("\n")
        if re.match(r"^\d+\. ", line.strip())
    ]
    assert len(from_bot) == 2, from_bot
    ladder = await context.new_page()
    await ladder.goto(f"{sandbox.address}/leaderboard/{sandbox.emulator.guild.id}/american")
    rows = await ladder.locator("table.ladder tbody tr").all()
    from_page = []
    for row in rows:
        rank, name, rating, games = [await cell.inner_text() for cell in await row.locator("td").all()]
        from_page.append(f"{rank}. {name}: {rating} ({_n('{count} game', '{count} games', int(games))})")
    assert from_page == from_bot

    # the replay shows every position of the finished game against easy
    assert sandbox.service is not None
    played = read_pdn(await sandbox.service.pdn(game_id[1]))[0].board
    board = Board(played.initial_fen, played.variant)
    expected = [cells(board)]
    for move in played.move_stack:
        board.push(move)
        expected.append(cells(board))
    replay = await context.new_page()
    await replay.goto(f"{sandbox.address}/games/{game_id[1]}")
    assert "[Result" in await replay.locator("#pdn").inner_text()
    shown = [await replay.evaluate(REPLAY_CELLS)]
    for _ in range(len(expected) - 1):
        await replay.click("#next")
        shown.append(await replay.evaluate(REPLAY_CELLS))
    assert shown == expected, "the replay does not show the game's positions in order"
    assert await replay.locator("#next").is_disabled() and await replay.locator("#last").is_disabled()
    await replay.click("#first")
    assert await replay.evaluate(REPLAY_CELLS) == expected[0]
    assert await replay.locator("#prev").is_disabled()
    await replay.click("#last")
    await replay.click("#prev")
    assert await replay.evaluate(REPLAY_CELLS) == expected[-2]
    await replay.screenshot(path=ARTIFACTS / "replay.png", full_page=True)

    assert errors == [], f"script errors in the page: {errors}"
    await context.close()
