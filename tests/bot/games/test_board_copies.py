"""A game's board is the message the bot made for it: ``/checkers board`` anywhere else shows a copy that no update,
click or ping ever reaches (a stranger's thread named after the game cannot take its board)."""

from __future__ import annotations

from tests.bot.games.conftest import Harness, board_state, custom_ids, play_ai, play_first_move
from tests.support import eventually


async def test_a_board_shown_elsewhere_is_a_copy_never_wired_to_the_game(harness: Harness) -> None:
    emulator, bot, service = harness.emulator, harness.bot, harness.service
    assert bot is not None and service is not None
    alice, carol = harness.user("alice"), harness.user("carol")
    board = await play_ai(harness, alice)
    state = board_state(board)
    assert state is not None
    game_id = state[0]

    # carol, who does not play, opens a thread beside the game's, named after the game: she gets no board
    trap = emulator.state.add_thread(emulator.channel, f"game {game_id}", carol)
    await eventually(lambda: bot.get_channel(trap.id) is not None, what="the bot seeing the thread")
    refused = (await harness.command(carol, "board", channel=trap)).message
    assert refused.ephemeral and "no game" in refused.content.lower()

    # alice asks for her board in a side thread: she gets a copy without controls
    thread = emulator.state.add_thread(emulator.channel, "side", alice)
    await eventually(lambda: bot.get_channel(thread.id) is not None, what="the bot seeing the thread")
    copy = (await harness.command(alice, "board", channel=thread)).message
    assert copy.channel_id == thread.id and not copy.ephemeral, copy.content
    assert custom_ids(copy) == [], "a copy has no controls"
    stored = (await service.state(game_id)).game.board_message
    assert stored is not None and int(stored.message_id) == board.id  # the game's board is still the bot's own

    # the game goes on: its own board follows it, the copy and carol's thread hear nothing
    seen_in_thread = len(emulator.messages(thread))
    copy_text = copy.content
    await play_first_move(harness, alice, board)
    await eventually(lambda: (s := board_state(board)) is not None and s[1] >= 2, what="the AI's answer on the board")
    assert copy.content == copy_text and custom_ids(copy) == []
    assert len(emulator.messages(thread)) == seen_in_thread
    stored = (await service.state(game_id)).game.board_message
    assert stored is not None and int(stored.message_id) == board.id
