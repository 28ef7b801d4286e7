"""Play anywhere (issue 23): King Me installed on a person's account plays in a group DM, a DM and a server without
the bot, answering interactions only (no channel route, no thread), with tokens that expire after 15 minutes, and
with the same games as in a server: rated on the global ladder alone, ended by the sweeper, shown on the next click."""

from __future__ import annotations

import re

from bot.emulator import Channel, Message, User
from bot.service import NO_GUILD, Place
from tests.bot.games.conftest import Harness, board_state, component, custom_ids, play_first_move
from tests.support import eventually

QUARTER_HOUR = 16 * 60
"""Longer than an interaction token lives (15 minutes)."""


def to_move(harness: Harness, board: Message) -> User:
    match = re.match(r"<@(\d+)>, your move", board.content)
    assert match, f"the board does not name the player to move: {board.content!r}"
    return harness.emulator.state.users[int(match[1])]


def pause(harness: Harness, seconds: float) -> None:
    """Time passes for Discord (tokens age) and for the service (deadlines come) alike."""
    harness.emulator.advance_clock(seconds)
    harness.clock.advance(seconds)


def only_through_interactions(harness: Harness, channel: Channel) -> None:
    """The bot reached ``channel`` through the interactions only: no channel route, no thread, no stale token."""
    emulator = harness.emulator
    assert emulator.refused_calls == []
    assert emulator.channel_calls(channel) == [], "no channel route of the place, not even one that would work"
    assert emulator.threads(channel) == []
    assert emulator.expired_calls == [], "no token used past its 15 minutes"


async def challenge_accepted(harness: Harness, channel: Channel, opponent: User | None) -> Message:
    """alice challenges ``opponent`` (anyone there when None) in ``channel``; bob accepts; returns the board, which is
    the challenge's own message."""
    emulator, alice, bob = harness.emulator, harness.user("alice"), harness.user("bob")
    options = {"turn_time": 300} | ({"opponent": opponent} if opponent is not None else {})
    offer = (await harness.command(alice, "challenge", options, channel=channel)).message
    assert not offer.ephemeral and offer.channel_id == channel.id
    accept = component(offer, "km:c:accept:")
    assert accept is not None
    await emulator.click(bob, offer, accept["custom_id"])
    assert board_state(offer) is not None, f"the accepted challenge became the board: {offer.content!r}"
    return offer


async def resign_on(harness: Harness, user: User, board: Message) -> None:
    """Resign with the board's button and the "Really resign?" one; the board then shows the game over."""
    emulator = harness.emulator
    resign = component(board, "km:b:resign:")
    assert resign is not None, custom_ids(board)
    asked = (await emulator.click(user, board, resign["custom_id"])).message
    confirm = component(asked, "km:r:")
    assert asked.ephemeral and confirm is not None
    await emulator.click(user, asked, confirm["custom_id"])
    await eventually(lambda: board.content == "Game over.", what="the finished game on the board")


async def test_commands_declare_both_installs_and_every_context(harness: Harness) -> None:
    by_name = {c.name: c.payload for c in harness.emulator.registered_commands()}
    assert by_name["checkers"]["integration_types"] == [0, 1]
    assert by_name["checkers"]["contexts"] == [0, 1, 2]
    assert by_name["tournament"]["integration_types"] == [0], "a tournament needs the bot in the server"
    assert by_name["tournament"]["contexts"] == [0]


async def test_a_whole_game_in_a_group_dm_by_clicks(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    emulator.install(alice)  # bob and carol never installed King Me: they click alice's messages
    group = emulator.group_dm([alice, bob, carol], name="checkers club")
    board = await challenge_accepted(harness, group, None)  # "anyone here"
    assert harness.service is not None
    state = board_state(board)
    assert state is not None
    game = (await harness.service.state(state[0])).game  # type: ignore[arg-type]
    assert (game.place, game.guild_id, game.channel_id, game.rated) == (Place.GROUP_DM, NO_GUILD, str(group.id), True)

    plies = 0
    while board_state(board) is not None and plies < 400:
        player = to_move(harness, board)
        other = bob if player is alice else alice
        before = board_state(board)
        await play_first_move(harness, player, board)
        plies += 1
        assert board_state(board) != before, "the click's answer updated the board"
        if board_state(board) is not None:  # the opponent is told by a follow-up that mentions them
            await eventually(
                lambda o=other: any(  # type: ignore[misc]
                    m.content.startswith(f"<@{o.id}>:") for m in emulator.messages(group)[-2:]
                ),
                what="the ping of the player to move",
            )
    pings = [m for m in emulator.messages(group) if re.match(r"<@\d+>: ", m.content)]
    assert len(pings) <= 1, "each ping replaced the one before (deleted through its own token)"
    assert board_state(board) is None, f"the game ended in {plies} plies"
    assert board.content == "Game over."
    await eventually(lambda: any("🏁" in m.content for m in emulator.messages(group)), what="the result follow-up")

    only_through_interactions(harness, group)
    records = list(emulator.state.interactions.values())
    assert records and all(r.answered for r in records), "every interaction was answered in time"
    assert all(r.followups <= 5 for r in records)
    ended = (await harness.service.state(game.id)).game
    assert ended.result is not None and not ended.is_active
    everyone = await harness.service.leaderboard("american", None)
    assert {e.user_id for e in everyone} == {str(alice.id), str(bob.id)}, "rated on the global ladder"
    assert {round(e.rating) for e in everyone} != {1500} or ended.winner is None
    assert await harness.service.leaderboard("american", NO_GUILD) == [], "no server's ladder counts it"


async def test_a_game_against_master_in_a_dm_goes_on_after_a_quarter_of_an_hour(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    dm = emulator.dm(alice)  # the DM with the bot: the server install reaches it, the game is played the same way
    board = (await harness.command(alice, "play", {"level": "master", "think": 0.05}, channel=dm)).message
    assert board.channel_id == dm.id and board_state(board) is not None

    async def move_and_answer() -> None:
        state = board_state(board)
        await play_first_move(harness, alice, board)
        await eventually(
            lambda: board_state(board) not in (None, state) and "thinking" not in board.content,
            within=10,
            what="the AI's answer edited into the board",
        )

    await move_and_answer()
    assert harness.service is not None
    game_id = board_state(board)[0]  # type: ignore[index]
    moves = len((await harness.service.state(game_id)).game.moves)  # type: ignore[arg-type]
    shown = board_state(board)

    pause(harness, QUARTER_HOUR)  # every token of the game is now too old
    ack = (await harness.command(alice, "takeback", channel=dm)).message  # changes the game outside the board
    assert ack.ephemeral
    view = await harness.service.state(game_id)  # type: ignore[arg-type]
    assert len(view.game.moves) < moves and view.game.is_active
    assert board_state(board) == shown, "no usable token: the board waits for the next click"

    piece = component(board, "km:p:")
    assert piece is not None
    await emulator.select(alice, board, piece["custom_id"], [piece["options"][0]["value"]])
    assert board_state(board) == (game_id, view.version), "the next click showed the current position"
    await eventually(
        lambda: any("position changed" in m.content for m in emulator.messages(dm, visible_to=alice) if m.ephemeral),
        what="the note that the position changed",
    )

    await move_and_answer()  # and the game goes on, the AI's reply through the new click's token
    assert len((await harness.service.state(game_id)).game.moves) > len(view.game.moves)  # type: ignore[arg-type]
    only_through_interactions(harness, dm)


async def test_the_sweeper_ends_an_overdue_dm_game_shown_on_the_next_click(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob = harness.user("alice"), harness.user("bob")
    emulator.install(alice)
    dm = emulator.dm(alice, bob)  # a DM between two people: the bot is not in it
    board = await challenge_accepted(harness, dm, bob)
    for _ in range(2):  # a game lost on time is rated from its second ply
        await play_first_move(harness, to_move(harness, board), board)
    loser = to_move(harness, board)
    winner = bob if loser is alice else alice
    shown = board_state(board)
    assert shown is not None and harness.service is not None

    pause(harness, QUARTER_HOUR)  # past the 5 minutes a move, and past every token
    results = await harness.service.sweep()
    assert [r.game.id for r in results if r.game is not None] == [shown[0]]
    assert board_state(board) == shown, "the result could not be shown: no token is good"

    piece = component(board, "km:p:")
    assert piece is not None
    await emulator.select(winner, board, piece["custom_id"], [piece["options"][0]["value"]])
    await eventually(lambda: board.content == "Game over.", what="the result on the clicked board")
    assert custom_ids(board) == []
    await eventually(
        lambda: any("over" in m.content and m.ephemeral for m in emulator.messages(dm, visible_to=winner)),
        what="the note that the game is over",
    )

    stats = await harness.service.stats(str(winner.id), "american", None)  # type: ignore[arg-type]
    assert stats.rating.games == 1 and stats.rating.wins == 1 and stats.rating.rating > 1500
    only_through_interactions(harness, dm)


async def test_a_server_without_the_bot_plays_as_a_dm_and_keeps_its_ladder(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    emulator.install(alice)
    strangers = emulator.add_guild("No Bot Here", bot=False)
    general = emulator.add_channel("general", guild=strangers)
    reply = await harness.command(alice, "play", {"level": "easy"}, channel=general)
    board = reply.message
    assert board.channel_id == general.id and board_state(board) is not None, "the board is the answer: no thread"
    state = board_state(board)
    await play_first_move(harness, alice, board)
    await eventually(
        lambda: board_state(board) not in (None, state) and "thinking" not in board.content,
        within=10,
        what="the AI's answer",
    )
    assert harness.service is not None
    game = (await harness.service.state(state[0])).game  # type: ignore[index, arg-type]
    assert (game.place, game.guild_id) == (Place.USER_SERVER, NO_GUILD)

    await resign_on(harness, alice, board)

    again = (await harness.command(alice, "rematch", channel=general)).message  # the same place, colours swapped
    assert again.channel_id == general.id
    await eventually(lambda: board_state(again) is not None, within=10, what="the AI's first move, through the token")
    rematch = (await harness.service.state(board_state(again)[0])).game  # type: ignore[index, arg-type]
    assert (rematch.place, rematch.guild_id, rematch.rematch_of) == (Place.USER_SERVER, NO_GUILD, game.id)
    await resign_on(harness, alice, again)

    only_through_interactions(harness, general)
    assert emulator.messages(general)[0] is board
    keys = [key async for key in harness.redis.scan_iter(match=f"*{strangers.id}*")]
    assert keys == [], "the server's own ladder and records are untouched"
    stats = await harness.service.stats(str(alice.id), "american", None)  # type: ignore[arg-type]
    assert stats.versus_bot.get("easy") == (0, 2, 0), "both losses count in the global record"


async def test_what_needs_the_bot_in_the_server_says_so(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    emulator.install(alice)
    group = emulator.group_dm([alice, harness.user("bob")])
    for name, options in (("watch", {"level_a": "easy", "level_b": "easy"}), ("season list", {})):
        path = ["checkers", *name.split()]
        answer = (await emulator.invoke(alice, path, options, channel=group)).message
        assert answer.ephemeral and "needs King Me in the server" in answer.content, answer.content
    board = (await harness.command(alice, "leaderboard", channel=group)).message
    assert not board.ephemeral and board.embeds, "everyone's ladder, the only one there"
    only_through_interactions(harness, group)
