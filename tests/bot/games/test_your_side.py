"""The board from your side: a game against the AI is drawn with its player's side at the bottom, a copy shown to a
player elsewhere too; the piece chosen in the menu is marked on the board; a piece with one move plays it at once."""

from __future__ import annotations

import re

from bot.games._board import board_grid
from bot.games._theme import UNICODE
from core import Board
from tests.bot.games.conftest import Harness, board_state, component, description, play_ai
from tests.bot.games.test_tiles import TILE, tile_theme
from tests.support import eventually

RANK = re.compile(r"km\d+_r(\d+)")


def ranks(grid: str) -> list[int]:
    """The rank numbers down the left edge of a tile grid, top to bottom."""
    return [int(m[1]) for line in grid.split("\n") if (m := RANK.search(line))]


def test_a_flipped_grid_is_the_board_turned_half_a_turn() -> None:
    board = Board("B:W6,30,19,K2:B1,22,25,K3")
    plain = [line.split(UNICODE.separator) for line in board_grid(board, None, UNICODE).split("\n")]
    flipped = [line.split(UNICODE.separator) for line in board_grid(board, None, UNICODE, flipped=True).split("\n")]
    rows, files = plain[:-1], plain[-1]
    turned = [[row[0], *reversed(row[1:])] for row in reversed(rows)]
    assert [row[1:] for row in flipped[:-1]] == [row[1:] for row in turned], "every square turned half a turn"
    assert [row[0] for row in flipped[:-1]] == [row[0] for row in reversed(rows)], "the ranks count up from the top"
    assert flipped[-1] == [files[0], *reversed(files[1:])], "the files run h to a"


def test_the_piece_chosen_is_marked_where_a_theme_can_mark_a_piece() -> None:
    board = Board()
    names = [name for name, _ in TILE.findall(board_grid(board, None, tile_theme(), selected=9))]
    assert names.count("km1_bmh") == 1, "one Black man marked: the one on square 9"
    plain = [name for name, _ in TILE.findall(board_grid(board, None, tile_theme()))]
    assert "km1_bmh" not in plain


async def test_playing_black_against_the_ai_you_play_up_the_board(harness: Harness) -> None:
    alice = harness.user("alice")
    as_black = await play_ai(harness, alice, {"level": "easy", "colour": "black"})
    grid = description(as_black).split("\n\n")[0]
    assert ranks(grid) == list(range(1, 9)), "turned: Black's back rank (rank 8) at the bottom"
    assert "right to left from the bottom" in str(as_black.embeds[0]["fields"]), "the numbering says which way"

    bob = harness.user("bob")
    as_white = await play_ai(harness, bob, {"level": "easy", "colour": "white"})
    await eventually(lambda: board_state(as_white) is not None, what="the AI's first move")
    assert ranks(description(as_white).split("\n\n")[0]) == list(range(8, 0, -1)), "White at the bottom, as usual"


async def test_choosing_a_piece_marks_it_and_a_piece_with_one_move_plays_it(harness: Harness) -> None:
    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy", "colour": "black"})
    piece = component(board, "km:p:")
    assert piece is not None
    options = {o["value"]: o["description"] for o in piece["options"]}
    two = next(v for v, moves in options.items() if "," in moves)
    await emulator.select(alice, board, piece["custom_id"], [two])
    assert component(board, "km:m:") is not None, "a piece with two moves: its moves to choose from"
    assert [n for n, _ in TILE.findall(description(board))].count("km1_bmh") == 1, "the chosen piece is marked"

    before = board_state(board)
    assert before is not None
    one = next(v for v, moves in options.items() if "," not in moves)
    piece = component(board, "km:p:")
    assert piece is not None
    await emulator.select(alice, board, piece["custom_id"], [one])
    await eventually(lambda: board_state(board) != before, what="the only move played at once")
    assert options[one] in str(board.embeds[0]["fields"]), "the last move is that piece's one move"


async def test_in_a_game_between_people_each_sees_the_board_from_their_side_privately(harness: Harness) -> None:
    from tests.bot.games.test_challenge import start_game

    emulator = harness.emulator
    board, black, white = await start_game(harness)
    side = component(board, "km:b:side:")
    assert side is not None
    assert ranks(description(board).split("\n\n")[0]) == list(range(8, 0, -1)), "the shared board: White at the bottom"
    for player, expected in ((black, list(range(1, 9))), (white, list(range(8, 0, -1)))):
        seen = await emulator.click(player, board, side["custom_id"])
        assert seen.message.ephemeral and seen.message.components == [], "a private copy, without controls"
        assert ranks(description(seen.message).split("\n\n")[0]) == expected, f"{player.name}'s side at the bottom"


async def test_the_board_shows_the_last_moves_and_the_moves_button_all_of_them(harness: Harness) -> None:
    from tests.bot.games.conftest import play_first_move

    emulator = harness.emulator
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy", "colour": "black"})
    played = []
    for _ in range(5):
        state = board_state(board)
        assert state is not None
        played.append(await play_first_move(harness, alice, board))
        await eventually(lambda before=state: board_state(board) not in (None, before), what="the AI's answer")
    fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
    recent = fields["Moves"]
    assert recent.startswith("… ") and played[-1] in recent and "5. " in recent, "the last moves, numbered"
    assert played[0] not in recent.split("… ")[1].split(" ")[:1], "not the whole game"

    button = component(board, "km:b:moves:")
    assert button is not None
    listed = await emulator.click(alice, board, button["custom_id"])
    assert listed.message.ephemeral
    lines = listed.message.embeds[0]["description"].split("\n")
    assert len(lines) == 5 and lines[0].startswith(f"1. {played[0]} (")
    assert all(line.startswith(f"{i + 1}. ") and line.count("(") == 2 for i, line in enumerate(lines)), "both notations"
