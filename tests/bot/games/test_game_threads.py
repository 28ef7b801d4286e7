"""Many games side by side in one channel, each in its own thread (a game against the AI, a challenge, an exhibition),
and the one-game-per-channel rule only where threads are not allowed, with a refusal that says whose game it is, links
to it and says how it ends."""

from __future__ import annotations

import pytest

from bot.emulator import Channel, Message, User
from bot.service import ChannelId, GuildId
from bot.settings import Settings
from tests.bot.games.conftest import (
    Harness,
    board_state,
    component,
    game_board,
    game_thread,
    make_settings,
    play_ai,
    play_first_move,
    resign,
)
from tests.bot.games.test_challenge import to_move
from tests.support import eventually


async def accepted_challenge(harness: Harness, challenger: User, opponent: User) -> Message:
    """``challenger`` challenges ``opponent``, who accepts; returns the board."""
    offer = (await harness.command(challenger, "challenge", {"opponent": opponent})).message
    assert not offer.ephemeral, offer.content
    accept = component(offer, "km:c:accept:")
    assert accept is not None
    await harness.emulator.click(opponent, offer, accept["custom_id"])
    assert "accepted" in offer.content
    assert "the game is in <#" in offer.content, "the challenge links to the game's thread"
    return await game_board(harness, offer)


async def move_by_typing(harness: Harness, user: User, thread: Channel) -> str:
    """``/checkers move`` in the game's thread with the first legal move its autocomplete offers."""
    offered = await harness.emulator.autocomplete(user, ["checkers", "move"], {"move": ""}, "move", channel=thread)
    move = str(offered.choices[0]["value"])
    played = (await harness.command(user, "move", {"move": move}, channel=thread)).message
    assert played.ephemeral and move in played.content, played.content
    return move


@pytest.mark.parametrize("settings", [make_settings(exhibition_move_delay=0.3)])
async def test_a_game_against_the_ai_a_challenge_and_an_exhibition_side_by_side(
    harness: Harness, settings: Settings
) -> None:
    emulator, service = harness.emulator, harness.service
    assert service is not None
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    dave = emulator.add_user("dave")

    ai_board = await play_ai(harness, carol)
    duel_board = await accepted_challenge(harness, alice, bob)
    show_reply = await harness.command(dave, "watch", {"level_a": "easy", "level_b": "easy"})
    show_board = await game_board(harness, show_reply)

    boards = (ai_board, duel_board, show_board)
    threads = [game_thread(harness, board) for board in boards]
    assert len({t.id for t in threads}) == 3, "each game has a thread of its own"
    assert all(t.parent_id == emulator.channel.id for t in threads), "all in the one channel"
    assert all(emulator.messages(t)[0] is board for t, board in zip(threads, boards, strict=True))
    in_channel = emulator.messages()
    assert [m for m in in_channel if m.embeds] == [], "the channel holds short messages, no boards"
    for thread in threads:
        assert any(f"<#{thread.id}>" in m.content for m in in_channel), "a message in the channel links to each thread"
    for thread in threads:  # the three are played at once, each filed under its thread
        [view] = await service.channel_games(GuildId(str(emulator.guild.id)), ChannelId(str(thread.id)))
        assert view.game.is_active and view.game.channel_id == str(thread.id)

    # a move in each: by the select menus against the AI, typed in the challenge's thread, and the AIs on their own
    first = board_state(ai_board)
    await play_first_move(harness, carol, ai_board)
    await eventually(lambda: board_state(ai_board) not in (None, first), what="the AI's answer in its thread")

    black = to_move(harness, duel_board)
    white = bob if black is alice else alice
    await move_by_typing(harness, black, threads[1])
    await eventually(lambda: to_move(harness, duel_board) is white, what="the typed move on the board")
    await play_first_move(harness, white, duel_board)
    assert to_move(harness, duel_board) is black

    show = (await service.channel_games(GuildId(str(emulator.guild.id)), ChannelId(str(threads[2].id))))[0]
    await eventually(
        lambda: "Last move" in str(show_board.embeds[0]["fields"]), what="the exhibition's moves on its board"
    )
    assert show.game.kind.value == "exhibition"

    # a command in the channel finds the user's own game in its thread
    plain = (await harness.command(carol, "board", {"text": True})).message
    assert plain.ephemeral and "Legal moves" in plain.content


async def test_inside_a_games_thread_one_game_at_a_time_and_the_refusal_points_to_the_channel(
    harness: Harness,
) -> None:
    emulator = harness.emulator
    alice, bob = harness.user("alice"), harness.user("bob")
    board = await play_ai(harness, alice)
    thread = game_thread(harness, board)
    refused = (await harness.command(bob, "play", {"level": "easy"}, channel=thread)).message
    assert refused.ephemeral
    text = refused.content
    assert "This thread already has a game" in text and "alice" in text and "AI (easy)" in text, text
    assert f"/{thread.id}/{board.id})" in text, "it links to the game's board"
    assert "alice resigns with `/checkers resign`" in text, "it says how the game ends"
    assert f"<#{emulator.channel.id}>" in text, "it says where a game of one's own can start"


async def test_a_channel_that_forbids_threads_holds_one_game_and_says_whose(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob, carol = harness.user("alice"), harness.user("bob"), harness.user("carol")
    quiet = emulator.add_channel("no-threads", threads=False)

    board = await play_ai(harness, alice, channel=quiet)
    assert board.channel_id == quiet.id and board_state(board) is not None, "played in the channel itself"
    assert emulator.threads(quiet) == []
    link = f"https://discord.com/channels/{emulator.guild.id}/{quiet.id}/{board.id}"

    for user, name, options in (
        (bob, "play", {"level": "easy"}),
        (carol, "challenge", {"opponent": bob}),
        (carol, "watch", {"level_a": "easy", "level_b": "easy"}),
    ):
        refused = (await harness.command(user, name, options, channel=quiet)).message
        text = refused.ephemeral and refused.content
        assert text and "This channel already has a game: **alice** vs **AI (easy)**" in text, (name, text)
        assert f"([its board]({link}))" in text, "it links to the game's board"
        assert "alice resigns with `/checkers resign`" in text, "it says how the game ends"
        assert "this channel holds one game at a time" in text
    assert len([m for m in emulator.messages(quiet) if not m.ephemeral]) == 1, "nothing else was posted"

    mine = (await harness.command(alice, "play", {"level": "easy"}, channel=quiet)).message
    assert mine.ephemeral and "It is yours: finish it, or end it with `/checkers resign`" in mine.content

    await resign(harness, alice, channel=quiet)
    await eventually(lambda: board.content == "Game over.", what="the finished game")
    after = await play_ai(harness, bob, channel=quiet)
    assert after.channel_id == quiet.id and board_state(after) is not None, "the channel is free again"


async def test_two_games_of_the_same_players_get_threads_told_apart(harness: Harness) -> None:
    emulator = harness.emulator
    carol = harness.user("carol")
    for _ in range(2):
        board = await play_ai(harness, carol, {"level": "easy"})
        await resign(harness, carol, channel=game_thread(harness, board))  # one AI game at a time per person
    names = [thread.name for thread in emulator.threads()]
    assert len(names) == 2 and names[0] != names[1], names
    assert names[1] == f"{names[0]} · 2"
