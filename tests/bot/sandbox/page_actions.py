"""Acting in the sandbox page the way a player does (typing commands, choosing from select menus, switching user),
shared by the browser tests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.async_api import Page

STEP_TIMEOUT = 30_000
"""Milliseconds for one step in the page (an AI answer on a loaded machine included)."""

BOARD_STATE = """(id) => {
  const message = document.querySelector(`.msg[data-id="${id}"]`);
  if (!message) return null;
  const piece = message.querySelector('.select[data-custom-id^="km:p:"]');
  const content = message.querySelector('.content');
  return {piece: piece ? piece.dataset.customId : null, content: content ? content.textContent : ''};
}"""


async def command(page: Page, text: str, *, pick: str | None = None) -> None:
    """Type a slash command in the command box; with ``pick``, type ``text`` and choose the suggestion ``pick``
    (what the bot's autocomplete offers), then send it with Enter."""
    box = page.locator("#command")
    await box.click()
    await box.fill("")
    await box.type(text)
    if pick is not None:
        await page.locator(f'.suggestion[data-name^="{pick}"]').first.click()
    await box.press("Enter")


async def switch_to(page: Page, user: str) -> None:
    await page.click(f'[data-user="{user}"]')
    await page.wait_for_selector(f'body[data-me="{user}"][data-ready="1"]')


async def choose(page: Page, message_id: str, prefix: str, index: int = 0) -> None:
    """Open a message's select menu whose custom id starts with ``prefix`` and choose its ``index``-th option."""
    select = page.locator(f'.msg[data-id="{message_id}"] .select[data-custom-id^="{prefix}"]')
    await select.locator(".select-head").click()
    await select.locator(".option").nth(index).click()


async def board_state(page: Page, message_id: str) -> dict[str, Any]:
    state = await page.evaluate(BOARD_STATE, message_id)
    assert state is not None, f"board message {message_id} is not on the page"
    return dict(state)


async def play_move(page: Page, board_id: str) -> None:
    """Choose the first piece and its first move (a piece with one move plays it when chosen), then wait until the
    board moved on (after the AI's answer)."""
    before = (await board_state(page, board_id))["piece"]
    await choose(page, board_id, "km:p:")
    menu = await page.wait_for_function(  # the piece's moves, or (a piece with one move) the move played
        """([id, before]) => {
          const message = document.querySelector(`.msg[data-id="${id}"]`);
          if (!message) return null;
          if (message.querySelector('.select[data-custom-id^="km:m:"]')) return 'menu';
          const piece = message.querySelector('.select[data-custom-id^="km:p:"]');
          return !piece || piece.dataset.customId !== before ? 'played' : null;
        }""",
        arg=[board_id, before],
        timeout=STEP_TIMEOUT,
    )
    if await menu.json_value() == "menu":
        await choose(page, board_id, "km:m:")
    await page.wait_for_function(
        """([id, before]) => {
          const message = document.querySelector(`.msg[data-id="${id}"]`);
          if (!message || message.querySelector('.content.thinking')) return false;
          const text = (message.querySelector('.content') || {}).textContent || '';
          const piece = message.querySelector('.select[data-custom-id^="km:p:"]');
          if (text.includes('thinking')) return false;
          return piece ? piece.dataset.customId !== before : text.includes('Game over');
        }""",
        arg=[board_id, before],
        timeout=STEP_TIMEOUT,
    )


async def newest_board(page: Page) -> str:
    board = page.locator('.msg:has(.select[data-custom-id^="km:p:"])').last
    await board.wait_for(timeout=STEP_TIMEOUT)
    message_id = await board.get_attribute("data-id")
    assert message_id
    return message_id


async def open_game_thread(page: Page) -> None:
    """Follow the newest link to a game's thread (a command's answer in the channel links to the thread it opened)."""
    notice = page.locator(".msg:has(.thread-card)").last
    await notice.wait_for(timeout=STEP_TIMEOUT)
    await notice.locator(".thread-card").click()
