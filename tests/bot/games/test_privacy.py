"""``/checkers privacy``: a person sees what King Me stores about them and deletes it with a button; their games stay
whole for the other player (history, PDN, the replay's reading of it), under "Deleted player"."""

from __future__ import annotations

from bot.emulator import Message
from bot.service import UserId
from bot.store import NAMESPACE
from core.pdn import read_pdn
from tests.bot.games.conftest import Harness, component, custom_ids, description, play_first_move, resign
from tests.bot.games.test_challenge import start_game
from tests.bot.service.conftest import snapshot
from tests.support import eventually


async def privacy(harness: Harness, user_name: str) -> Message:
    reply = await harness.command(harness.user(user_name), "privacy")
    message: Message = reply.message
    assert message.ephemeral, message.content
    return message


async def test_see_delete_confirm_and_the_opponent_keeps_the_game(harness: Harness) -> None:
    emulator = harness.emulator
    board, black, white = await start_game(harness)
    thread = emulator.threads()[0]
    alice, bob = harness.user("alice"), harness.user("bob")

    busy = await privacy(harness, "alice")
    assert "1 game in progress" in busy.content and "first finish or resign" in busy.content
    assert custom_ids(busy) == [], "no delete button while a game is being played"

    await play_first_move(harness, black, board)
    await play_first_move(harness, white, board)
    await resign(harness, black, channel=thread)  # two moves, then a resignation: a rated game
    await harness.command(alice, "play", {"level": "easy"})
    await resign(harness, alice)

    shown = await privacy(harness, "alice")
    for text in ("alice", "2 finished games", "Ratings on 2 ladders", "records against the AI on 2"):
        assert text in shown.content, shown.content
    button = component(shown, "km:privacy:")
    assert button is not None and button["label"] == "Delete my data"

    clicked = await emulator.click(alice, shown, button["custom_id"])
    assert shown.content.startswith("Your data is deleted: 2 games now show “Deleted player”, 2 ratings removed")
    assert custom_ids(shown) == []

    # the bot's own posts: the boards, the results and the threads' names no longer show alice (edited in the
    # background; she is told once it is done)
    def told() -> list[Message]:
        sent = [emulator.state.messages[i] for i in clicked.interaction.message_ids if i in emulator.state.messages]
        return [m for m in sent if "Your name is gone" in m.content]

    await eventually(lambda: bool(told()), within=30, what="alice told the posts were edited")
    assert told()[0].ephemeral and "2 thread names" in told()[0].content, told()[0].content
    for room in emulator.threads():
        assert "alice" not in room.name and "Deleted player" in room.name, room.name
        for message in emulator.messages(room):
            shown_text = message.content + repr(message.embeds)
            assert "alice" not in shown_text, f"{room.name}: {shown_text[:200]}"
    assert "Deleted player" in repr(board.embeds), "the game's board drawn again from the anonymised game"

    # bob's side: the game is still in his history, its PDN reads back, and alice is nowhere
    history = (await harness.command(bob, "history")).message
    lines = description(history)
    assert "against Deleted player" in lines and "alice" not in lines
    [bobs_game] = await harness.service.history(UserId(str(bob.id)))  # type: ignore[union-attr]
    assert bobs_game.id in lines
    exported = (await harness.command(bob, "export", {"game": bobs_game.id})).message
    assert '"Deleted player"]' in exported.content and "alice" not in exported.content
    [record] = read_pdn(await harness.service.pdn(bobs_game.id))  # type: ignore[union-attr]
    assert "Deleted player" in (record.headers["Black"], record.headers["White"])
    assert len(record.board.move_stack) == len(bobs_game.moves) == 2

    stored = await snapshot(harness.redis)
    assert not [key for key in stored if str(alice.id).encode() in key], "no key is named after alice"
    assert str(alice.id) not in repr(stored) and "alice" not in repr(stored), "no value names alice"
    assert (await privacy(harness, "alice")).content == "King Me stores nothing about you."


async def test_edits_a_stopped_bot_left_are_made_at_its_next_start_old_results_included(harness: Harness) -> None:
    """A bot that stopped right after an erasure (its edits recorded, none made) makes them when it starts again; a
    result posted before results were recorded with the game is found in the game's thread and edited too."""
    emulator = harness.emulator
    board, black, _white = await start_game(harness)
    thread = emulator.threads()[0]
    alice, bob = harness.user("alice"), harness.user("bob")
    await resign(harness, black, channel=thread)
    await eventually(lambda: any("alice" in m.content for m in emulator.messages(thread)[1:]), what="the result")
    assert harness.service is not None
    [game] = await harness.service.history(UserId(str(bob.id)))
    await harness.redis.hdel(f"{NAMESPACE}:game:{game.id}", "result")  # as older versions kept it: no record of it

    erasure = await harness.service.erase_personal_data(UserId(str(alice.id)))
    await harness.service.tidyings.start(UserId(str(alice.id)), erasure.games, ["alice"])
    await harness.restart()  # the bot stopped before any edit

    def shows_alice() -> list[str]:
        shown = [thread.name] + [m.content + repr(m.embeds) for m in emulator.messages(thread)]
        return [text[:120] for text in shown if "alice" in text]

    await eventually(lambda: not shows_alice(), within=30, what="alice's name edited out after the restart")
    assert "Deleted player" in thread.name and board.id in {m.id for m in emulator.messages(thread)}
    async def record_gone() -> bool:
        return not await harness.redis.exists(f"{NAMESPACE}:tidying")

    await eventually(record_gone, what="the record (with her name) gone with the edits")
    stored = await snapshot(harness.redis)
    assert "alice" not in repr(stored), "no value names alice"
