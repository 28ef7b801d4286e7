"""A game against every AI level, driven as a user drives it: a slash command, then select menus to the end, and then
the game in ``/checkers stats``."""

from __future__ import annotations

import re

import pytest

from ai.api import levels
from bot.emulator import Message, User
from tests.bot.games.conftest import Harness, board_state, description, game_thread, play_ai, play_first_move
from tests.support import eventually

THINK = 0.05
"""The AI's time a move (``think``), small so that the search levels keep the suite fast."""
# From Black's side (``colour`` is Black by default): the line of ``/checkers stats`` each result adds one to.
OUTCOME = {"1-0": (1, 0, 0), "0-1": (0, 1, 0), "1/2-1/2": (0, 0, 1)}


async def play_to_the_end(harness: Harness, user: User, board: Message) -> None:
    """Play the first piece's first move with the select menus, and wait for the AI's answer, until the game ends."""
    for _ in range(300):
        state = board_state(board)
        if state is None:
            break
        await play_first_move(harness, user, board)
        await eventually(
            lambda s=state: board_state(board) != s and "thinking" not in board.content,  # type: ignore[misc]
            within=10,
            what="the AI's answer on the board",
        )
    else:
        raise AssertionError("the game did not end")


@pytest.mark.parametrize("level", list(levels()))
async def test_whole_game_against_each_level_with_select_menus(harness: Harness, level: str) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": level, "think": THINK})
    assert not board.ephemeral and board.embeds, "the board is a public embed"
    assert f"<@{alice.id}>" in board.content
    assert f"AI ({level})" in board.embeds[0]["title"]
    grid = description(board).split("\n\n")[0].split("\n")
    tiles = [re.findall(r"<:km\d+_\w+:\d+>", row) for row in grid]
    assert [len(row) for row in tiles] == [9] * 9 and ["".join(row) for row in tiles] == grid, (
        "9 rows of 9 tiles (the application's emojis), nothing else"
    )
    assert "<t:" in description(board), "the move deadline is a Discord timestamp"

    await play_to_the_end(harness, alice, board)
    assert board.content == "Game over."
    assert "🏁" in description(board)
    thread = game_thread(harness, board)
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages(thread)), what="the result message")
    result = next(m for m in emulator.messages(thread) if "🏁" in m.content).content
    found = re.search(r"\((1-0|0-1|1/2-1/2)\)", result.splitlines()[0])
    assert found is not None, result
    records = list(emulator.state.interactions.values())
    assert records and all(r.answered for r in records), "every interaction was answered in time (within 3 s)"

    stats = (await harness.command(alice, "stats")).message
    assert stats.ephemeral and len(stats.embeds) == 2
    won, lost, drawn = OUTCOME[found[1]]
    for embed in stats.embeds:  # this server, and everyone
        against = {f["name"]: f["value"] for f in embed["fields"]}.get("Against the AI")
        assert against == f"{level}: {won} won, {lost} lost, {drawn} drawn", embed


@pytest.mark.parametrize(("variant", "kings"), [("mini", False), ("american", True)])
async def test_the_legend_lists_kings_only_where_the_variant_has_them(
    harness: Harness, variant: str, kings: bool
) -> None:
    """Mini has no kings: its board's legend does not explain a king's mark (it did)."""
    board = await play_ai(harness, harness.user("alice"), {"level": "easy", "variant": variant})
    [legend] = [field["value"] for field in board.embeds[0]["fields"] if field["name"] == "Legend"]
    assert ("king" in legend) is kings, legend
    assert "Black man" in legend and "White man" in legend
