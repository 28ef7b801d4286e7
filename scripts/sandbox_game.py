"""Play a short game against a running sandbox from outside it, as its page would: connect to the page's websocket
with the run's key, start ``/checkers play level:easy`` as alice, then type moves with ``/checkers move`` (taken from
the bot's own autocomplete) and wait for the AI's answer after each. Exits 0 once the moves are made (or the game
ended) with the bot answering every one; anything else fails with what was missing.

    PYTHONPATH=. python scripts/sandbox_game.py 'http://127.0.0.1:8080/?key=...' [--moves 3]

scripts/container-check runs it against the sandbox inside the container; the address is the one ``kingme sandbox``
prints at start.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bot.sandbox import SOCKET_PATH
from tests.bot.sandbox.conftest import PageSocket, Update, board_version

PLAYER = "alice"


def socket_url(page_url: str) -> str:
    """The page's websocket for ``PLAYER``, from the page's address with its key."""
    parts = urlsplit(page_url)
    key = parse_qs(parts.query).get("key", [""])[0]
    if parts.scheme != "http" or not key:
        raise SystemExit(f"sandbox_game: {page_url!r} is not the address kingme sandbox printed (http://...?key=...)")
    return f"ws://{parts.netloc}{SOCKET_PATH}?as={PLAYER}&key={key}"


def latest_board(page: PageSocket) -> Update:
    boards = [m for m in page.messages().values() if board_version(m) is not None]
    if not boards:
        raise AssertionError("the bot posted no board with a piece menu")
    return boards[-1]


def answered(board_id: str, version: tuple[str, int]) -> Callable[[Update], bool]:
    """Whether an update shows the board past ``version`` with the AI done thinking (or the game over)."""

    def check(update: Update) -> bool:
        message = update.get("message") or {}
        return (
            update["type"] == "message_update"
            and message["id"] == board_id
            and board_version(message) != version
            and "thinking" not in message["content"]
        )

    return check


async def play(page: PageSocket, moves: int) -> int:
    """Start a game against ``easy`` and play up to ``moves`` moves; returns how many were played."""
    answer = await page.act("invoke", path=["checkers", "play"], options={"level": "easy"})
    assert answer["type"] == "done", f"/checkers play: {answer}"
    # the game gets a thread of its own, and its board comes there just after the command's answer
    await page.wait_for(lambda u: board_version(u.get("message") or {}) is not None, what="the game's board")
    board = latest_board(page)
    thread = board["channel_id"]
    played = 0
    while played < moves and (version := board_version(board)) is not None:
        typed = {"path": ["checkers", "move"], "options": {"move": ""}, "channel": thread}
        choices = await page.act("autocomplete", **typed, focused="move")
        assert choices["type"] == "choices" and choices["choices"], f"no legal move offered: {choices}"
        move = choices["choices"][0]["value"]
        seen = len(page.updates)
        answer = await page.act("invoke", path=["checkers", "move"], options={"move": move}, channel=thread)
        assert answer["type"] == "done", f"/checkers move {move}: {answer}"
        update = await page.wait_for(
            answered(board["id"], version), after=seen, what=f"the board after {move} and the AI's answer"
        )
        board = update["message"]
        played += 1
        print(f"played {move}; the board is at {board_version(board) or 'the end of the game'}")
    return played


async def main(page_url: str, moves: int) -> None:
    async with aiohttp.ClientSession() as session:
        page = PageSocket(await session.ws_connect(socket_url(page_url)))
        try:
            await page.wait_for(lambda u: u["type"] == "snapshot", what="the page's first snapshot")
            played = await play(page, moves)
        finally:
            await page.close()
    print(f"sandbox game: {played} moves played as {PLAYER}, each answered by the bot")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", help="the page's address with its key, as kingme sandbox printed it")
    parser.add_argument("--moves", type=int, default=3, help="moves to play (default 3)")
    args = parser.parse_args()
    try:
        asyncio.run(main(args.page, args.moves))
    except AssertionError as exc:
        sys.exit(f"sandbox_game: {exc}")
