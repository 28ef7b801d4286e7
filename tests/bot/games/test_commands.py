"""The command set, help, export, board text, stats and history, exhibitions, and bad input in every option."""

from __future__ import annotations

from typing import Any

from bot.emulator import Message
from bot.games import command_list
from tests.bot.games.conftest import (
    Harness,
    board_state,
    description,
    first_looks,
    game_board,
    play_ai,
    play_first_move,
    resign,
)
from tests.bot.service.conftest import snapshot
from tests.support import eventually

# The README's command list is generated from the registered commands; this is what they must be.
COMMANDS: dict[str, list[str]] = {
    "play": ["level", "colour", "variant", "position", "think"],
    "endgame": ["ending", "difficulty"],
    "challenge": ["opponent", "variant", "turn_time", "position"],
    "move": ["move"],
    "puzzle": ["source"],
    "daily": ["channel", "hour", "stop"],
    "board": ["text"],
    "resign": [],
    "draw": [],
    "takeback": [],
    "rematch": [],
    "leaderboard": ["scope", "variant", "season"],
    "season": ["start", "list"],  # a subgroup: its subcommands
    "stats": ["user", "variant"],
    "history": ["user"],
    "export": ["game"],
    "analyse": ["game"],
    "watch": ["level_a", "level_b", "variant"],
    "privacy": [],
    "help": [],
}


def short_ephemeral(message: Message) -> str:
    assert message.ephemeral, f"not ephemeral: {message.content!r}"
    assert 0 < len(message.content) <= 300 and not message.embeds, message.content
    return message.content


async def test_registered_commands_match_the_list(harness: Harness) -> None:
    groups = {c.name: c for c in harness.emulator.registered_commands()}
    assert sorted(groups) == ["checkers", "tournament"], "the games' commands and the tournaments', a cog each"
    group = groups["checkers"]
    assert group.guild_id is None
    registered = {sub["name"]: [o["name"] for o in sub.get("options") or []] for sub in group.options}
    assert registered == COMMANDS
    usages = [usage for usage, _ in command_list()]
    assert list(dict.fromkeys(u.split()[1] for u in usages)) == list(registered)


async def test_help_lists_every_command_and_level(harness: Harness) -> None:
    reply = await harness.command(harness.user("carol"), "help")
    assert reply.message.ephemeral
    text = description(reply.message) + str(reply.message.embeds[0].get("fields"))
    for name in COMMANDS:
        assert f"/checkers {name}" in text
    for level in ("easy", "medium", "hard", "master"):
        assert f"**{level}**" in text


async def test_board_text_export_stats_history_and_rematch(harness: Harness) -> None:
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    game_id = board_state(board)[0]  # type: ignore[index]

    plain = (await harness.command(alice, "board", {"text": True})).message
    assert plain.ephemeral and "Legal moves: 9-13 (b6-a5), 10-14 (d6-c5)" in plain.content
    assert "Black men: 1, 2" in plain.content

    exported = (await harness.command(alice, "export")).message
    assert exported.ephemeral
    [attachment] = exported.attachments
    assert attachment.filename == f"kingme-{game_id}.pdn"
    pdn = attachment.data.decode()
    assert '[Black "alice"]' in pdn and '[White "AI (easy)"]' in pdn and "B:W21" in exported.content

    await play_first_move(harness, alice, board)
    await eventually(lambda: "thinking" not in board.content and board_state(board) is not None)
    assert "Last move" in str(board.embeds[0]["fields"])
    took_back = (await harness.command(alice, "takeback")).message
    assert took_back.ephemeral and "took back" in took_back.content
    await eventually(lambda: "Last move" not in str(board.embeds[0]["fields"]), what="the board after a takeback")
    await resign(harness, alice)
    await eventually(lambda: board.content == "Game over.")

    history = (await harness.command(alice, "history")).message
    assert "lost" in history.embeds[0]["description"] and game_id in history.embeds[0]["description"]
    stats = (await harness.command(alice, "stats")).message
    assert "easy: 0 won, 1 lost, 0 drawn" in str(stats.embeds[0]["fields"])
    mini = (await harness.command(alice, "stats", {"variant": "mini"})).message
    assert "Mini checkers" in mini.embeds[0]["title"] and "easy" not in str(mini.embeds[0]["fields"])

    with first_looks(harness) as looks:
        again = await game_board(harness, await harness.command(alice, "rematch"))
    content, state = looks[again.id]
    assert state is None and "thinking" in content, "colours swapped: the AI opens"
    await eventually(lambda: board_state(again) is not None, what="the AI's opening move")


async def test_watch_plays_an_exhibition_out_in_its_thread(harness: Harness) -> None:
    reply = await harness.command(
        harness.user("bob"), "watch", {"level_a": "easy", "level_b": "easy", "variant": "mini"}
    )
    board = await game_board(harness, reply)
    assert "AI (easy)" in board.embeds[0]["title"] and board_state(board) is None
    await eventually(lambda: board.content == "Game over.", within=20, what="the end of the exhibition")
    assert "🏁" in description(board)
    await eventually(
        lambda: any(m.content.startswith("🏁") for m in harness.emulator.messages(board.channel_id)), what="the result"
    )
    [result] = [m.content for m in harness.emulator.messages(board.channel_id) if m.content.startswith("🏁")]
    assert "/checkers export" in result and "rematch" not in result, "nobody can ask for an exhibition again"
    assert "\nAI strength: easy (Elo 1000). Elo from games between the levels themselves, easy = 1000.\n" in result


async def test_bad_input_gets_a_short_ephemeral_answer_and_changes_nothing(harness: Harness) -> None:
    emulator = harness.emulator
    alice, bob = harness.user("alice"), harness.user("bob")
    robot = emulator.add_user("robot", bot=True)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("play", {"level": "godlike"}, "unknown ai level"),
        ("play", {"variant": "chess"}, "chess"),
        ("play", {"position": "W:not a fen"}, "not a fen"),
        ("watch", {"level_a": "easy", "level_b": "nobody"}, "unknown ai level"),
        ("challenge", {"opponent": robot}, "bot"),
        ("challenge", {"opponent": emulator.bot_user}, "bot"),
        ("challenge", {"opponent": alice}, "yourself"),
        ("challenge", {"opponent": bob, "variant": "chess"}, "chess"),
        ("move", {"move": "11-15"}, "no game"),
        ("export", {"game": "nosuchgame"}, "no game"),
        ("resign", {}, "no game"),
    ]
    before = await snapshot(harness.redis)
    for name, options, expected in cases:
        reply = await harness.command(alice, name, options)
        assert expected in short_ephemeral(reply.message).lower(), (name, options, reply.message.content)
    assert await snapshot(harness.redis) == before
    assert emulator.messages() == [], "nothing public was posted"

    board = await play_ai(harness, alice)
    state = board_state(board)
    for move in ("11-99", "hello", "9-14x"):
        reply = await harness.command(alice, "move", {"move": move})
        short_ephemeral(reply.message)
    reply = await harness.command(bob, "move", {"move": "9-13"})
    assert "no game" in short_ephemeral(reply.message).lower()
    assert board_state(board) == state


async def test_ids_from_users_are_checked_by_shape(harness: Harness) -> None:
    """A game's own Redis keys named as its id (its move list, say) find nothing: "no such game", not an error."""
    alice = harness.user("alice")
    board = await play_ai(harness, alice)
    await play_first_move(harness, alice, board)
    await eventually(lambda: (s := board_state(board)) is not None and s[1] >= 2, what="the AI's answer")
    state = board_state(board)
    assert state is not None
    game_id = state[0]
    for bad in (f"{game_id}:moves", f"{game_id}:result", f"{game_id}*", "../" + game_id, game_id.upper()):
        reply = await harness.command(alice, "export", {"game": bad})
        assert "no game" in short_ephemeral(reply.message).lower(), (bad, reply.message.content)
    exported = await harness.command(alice, "export", {"game": game_id})
    assert game_id in exported.message.content
