"""Puzzles in the sandbox (the whole sandbox over its websocket, as the browser page drives it): ``/checkers puzzle``
answered only to its person, played with its buttons, and ``/checkers daily`` with a channel typed by name (refused:
nobody manages the sandbox's server)."""

from __future__ import annotations

from typing import Any

from tests.bot.sandbox.conftest import component

EPHEMERAL = 1 << 6


async def test_a_puzzle_and_the_daily_setting_in_the_sandbox(connect: Any) -> None:
    alice = await connect("alice")
    bob = await connect("bob")
    answer = await alice.act("invoke", path=["checkers", "puzzle"], options={})
    assert answer["type"] == "done", answer
    await alice.wait_for(lambda u: component(u.get("message") or {}, "km:zp:") is not None, what="the puzzle")
    board = next(m for m in alice.messages().values() if component(m, "km:zp:") is not None)
    assert board["flags"] & EPHEMERAL and board["embeds"][0]["title"].startswith("Puzzle ")
    await bob.barrier()
    assert board["id"] not in bob.messages(), "alice's puzzle reached bob's page"

    hint = component(board, "km:zb:hint:")
    assert hint is not None
    answer = await alice.act("click", message=board["id"], custom_id=hint["custom_id"])
    assert answer["type"] == "done", answer
    await alice.wait_for(
        lambda u: "Hint: move the piece on" in str((u.get("message") or {}).get("embeds")), what="the hint"
    )
    board = alice.messages()[board["id"]]
    give_up = component(board, "km:zb:giveup:")
    assert give_up is not None
    answer = await alice.act("click", message=board["id"], custom_id=give_up["custom_id"])
    assert answer["type"] == "done", answer
    await alice.wait_for(lambda u: "You gave up" in str((u.get("message") or {}).get("embeds")), what="the line")
    assert component(alice.messages()[board["id"]], "km:zb:retry:") is not None

    answer = await alice.act("invoke", path=["checkers", "daily"], options={"channel": "checkers", "hour": "9"})
    assert answer["type"] == "done", answer
    await alice.barrier()
    said = [m["content"] for m in alice.messages().values() if m["flags"] & EPHEMERAL and m["content"]]
    # the sandbox's people do not manage its server (as for seasons): the command is refused, briefly and privately
    assert any(text.startswith("Only a member who can manage the server") for text in said), said
