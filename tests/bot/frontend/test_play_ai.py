"""A game against the AI, driven as a user drives it: a slash command, then select menus to the end."""

from __future__ import annotations

from tests.bot.frontend.conftest import Harness, board_state, description, eventually, play_first_move


async def test_whole_game_against_easy_with_select_menus(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    reply = await harness.command(alice, "play", {"level": "easy"})
    board = reply.message
    assert not board.ephemeral and board.embeds, "the board is a public embed"
    assert f"<@{alice.id}>" in board.content
    grid = description(board).split("\n\n")[0].split("\n")
    assert len(grid) == 9 and all(row.count("\u200b") <= 9 for row in grid), "rows of at most 10 emoji"
    assert "<t:" in description(board), "the move deadline is a Discord timestamp"

    for _ in range(300):
        state = board_state(board)
        if state is None:
            break
        await play_first_move(harness, alice, board)
        await eventually(
            lambda s=state: board_state(board) != s and "thinking" not in board.content,  # type: ignore[misc]
            what="the AI's answer on the board",
        )
    else:
        raise AssertionError("the game did not end")
    assert board.content == "Game over."
    assert "🏁" in description(board)
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages()), what="the result message")
    latencies = [r.latency for r in emulator.state.interactions.values()]
    assert latencies and all(x is not None and x < 3 for x in latencies)
