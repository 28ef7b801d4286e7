"""Discord's own limits never cost a board update: a game with 24-hour turns played across simulated hours keeps a
current board past error 30046 (edits of a message older than an hour), and a burst of edits that Discord rate-limits
is waited out while clicks are still answered within Discord's 3 seconds.

The emulator answers with Discord's limits here (:class:`EditLimits`); its messages are dated by the same test clock
as the game service, so a board ages by hours in a moment."""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.emulator import EditLimits, Message, User
from bot.emulator._limits import OLD_MESSAGE_EDITS, RATE_LIMITED
from bot.service import GameView
from tests.bot.games.conftest import Harness, board_state, component, play_ai, play_first_move
from tests.support import eventually

MINUTE, HOUR = 60.0, 3600.0
TURNS = 10
"""Alice's moves, one every :data:`PAUSE`: the game lasts hours, and its board, edited at least once a turn (the AI's
answer), meets Discord's limit on old messages (3 edits an hour) within two hours."""
PAUSE = 15 * MINUTE


@pytest.fixture
def emulator_answer_timeout() -> float:
    return 20.0  # a click that waits for a rate-limited board is settled (its board edited) only after the wait


async def stored_board(harness: Harness, game_id: str) -> tuple[GameView, Message | None]:
    """The game as stored, and its board message: the one recorded with the game (None if it is not in Discord)."""
    assert harness.service is not None
    view = await harness.service.state(game_id)
    ref = view.game.board_message
    assert ref is not None, "the game has a board recorded with it"
    return view, harness.emulator.state.messages.get(int(ref.message_id))


async def wait_for_alices_turn(harness: Harness, game_id: str, alice: User) -> tuple[GameView, Message]:
    """Wait until the AI has answered and the game's recorded board shows the stored position; returns both."""
    found: list[tuple[GameView, Message]] = []

    async def current() -> bool:
        view, board = await stored_board(harness, game_id)
        ready = not view.game.is_active or view.to_move.id == str(alice.id)
        shown = board is not None and (board_state(board) == (game_id, view.version) or not view.game.is_active)
        if ready and shown and board is not None:
            found[:] = [(view, board)]
        return bool(found)

    await eventually(current, within=15, what="the AI's answer on the game's current board")
    return found[0]


async def test_a_long_game_keeps_its_board_current_past_error_30046(harness: Harness) -> None:
    emulator, clock = harness.emulator, harness.clock
    emulator.state.clock = clock  # Discord's clock is the service's: boards age as turns pass
    emulator.rest.edits.limits = EditLimits(edits=100, per=1.0)  # Discord's limit on old messages (the rate: below)
    alice = harness.user("alice")
    first = await play_ai(harness, alice, {"level": "easy"})
    state = board_state(first)
    assert state is not None
    game_id, plies = state[0], 0
    view, board = await stored_board(harness, game_id)
    assert view.game.turn_time == 24 * HOUR and board is first
    boards = [board.id]

    def follow(board: Message) -> None:
        if board.id != boards[-1]:
            boards.append(board.id)
            assert boards[-2] not in emulator.state.messages, "the board that could no longer be edited is gone"

    for turn in range(TURNS):
        clock.advance(PAUSE)
        if turn % 2:  # a click on the board people see
            await play_first_move(harness, alice, board)
        else:  # a command: acknowledged privately, the board edited by the bot
            reply = await harness.command(alice, "move", {"move": view.legal_moves[0]}, channel=board.channel_id)
            assert reply.message.ephemeral
        plies += 1
        view, board = await wait_for_alices_turn(harness, game_id, alice)
        plies += 1 if len(view.game.moves) > plies else 0  # the AI's answer (none if alice's move ended the game)
        assert len(view.game.moves) == plies, "every move is stored"
        follow(board)
        if not view.game.is_active:
            break

    refused = [r for r in emulator.rest.edits.refusals if r.code == OLD_MESSAGE_EDITS]
    assert refused, "Discord refused an edit of the hour-old board (30046)"
    assert {r.message_id for r in refused} <= set(boards[:-1]), "every refused board was replaced"
    assert all(r.answered for r in emulator.state.interactions.values()), "every interaction was answered in time"
    if view.game.is_active:  # a click on the newest board works, and the AI answers on it
        await play_first_move(harness, alice, board)
        view, board = await wait_for_alices_turn(harness, game_id, alice)
        follow(board)
        assert len(view.game.moves) == plies + 2

        clock.advance(25 * HOUR)  # alice never moves again: she loses on time, and the board says so
        assert harness.service is not None
        await harness.service.sweep()
        view, board = await wait_for_alices_turn(harness, game_id, alice)
        follow(board)
    assert not view.game.is_active and board_state(board) is None and board.content == "Game over."
    assert len(boards) > 1


async def test_a_burst_of_edits_waits_out_429s_and_clicks_are_answered_in_time(harness: Harness) -> None:
    """Another process of the bot edits in the channel and empties its edit bucket (one edit per 4 s here): the edit
    after alice's move gets a 429, which discord.py waits out while the AI's answer queues behind it. Alice clicks her
    board meanwhile: the click is acknowledged at once and answered once the board is free; every update lands."""
    emulator = harness.emulator
    emulator.rest.edits.limits = EditLimits(edits=1, per=4.0)
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy"})
    state = board_state(board)
    assert state is not None
    game_id, channel = state[0], board.channel_id

    other = discord.Client(intents=discord.Intents.none())  # another process, with the same token
    await other.login(emulator.token)
    try:
        note = await other.get_partial_messageable(channel).send("another board")
        # discord.py returns from the edit that empties a bucket only once the bucket is full again: let it wait
        elsewhere = asyncio.create_task(note.edit(content="another board, edited"))
        await eventually(lambda: emulator.state.messages[note.id].content.endswith("edited"), what="the other edit")
        view, _ = await stored_board(harness, game_id)
        await harness.command(alice, "move", {"move": view.legal_moves[0]}, channel=channel)
        await eventually(
            lambda: any(r.code == RATE_LIMITED and r.message_id == board.id for r in emulator.rest.edits.refusals),
            what="a 429 on the board's edit",
        )
        piece = component(board, "km:p:")  # the board still shows the position before alice's move
        assert piece is not None
        click = emulator.select(alice, board, piece["custom_id"], [piece["options"][0]["value"]])
        await click
        await elsewhere
    finally:
        await other.close()
    assert click.record.answered, "answered within Discord's 3 s (the emulator refuses a later first answer)"
    assert click.record.response_type == 6, "acknowledged first (a deferred update): the board was busy"

    view, current = await wait_for_alices_turn(harness, game_id, alice)
    assert current is board and board_state(board) == (game_id, view.version) and len(view.game.moves) == 2
    await play_first_move(harness, alice, board)  # another move: its edit waits for the bucket, and lands
    view, current = await wait_for_alices_turn(harness, game_id, alice)
    assert current is board and board_state(board) == (game_id, view.version) and len(view.game.moves) == 4
    assert all(r.answered for r in emulator.state.interactions.values()), "every interaction was answered in time"
