"""The board that reads at a glance: the tiles' and the Unicode theme's measured contrast, the tiles as drawn, the last
move marked on the board, and the tiles uploaded as application emojis when the bot starts (or the Unicode theme
when they cannot be)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.emulator import Message
from bot.games import _tiles
from bot.games._board import board_grid
from bot.games._theme import TWEMOJI, UNICODE, TileTheme
from bot.games._tiles import MIN_CONTRAST, PALETTE, contrast, luminance
from core import Board, Color
from tests.bot.games.conftest import Harness, description, play_ai, play_first_move
from tests.support import eventually

TILE = re.compile(r"<:(km\d+_\w+):(\d+)>")
SIDES = (Color.BLACK, Color.WHITE)
LONGEST_ID = 2**63 - 1
"""A snowflake is a 64-bit number: at most 19 digits."""


def tile_theme() -> TileTheme:
    return TileTheme({tile.name: LONGEST_ID for tile in _tiles.tiles()})


# -- contrast ------------------------------------------------------------------------------------------------------


def test_luminance_and_contrast_are_wcag_s() -> None:
    assert luminance("#000000") == 0 and luminance("#ffffff") == pytest.approx(1)
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WCAG's classic borderline grey


def test_every_piece_contrasts_with_every_square_and_the_other_side_in_the_tiles() -> None:
    for color in SIDES:
        body = PALETTE.body(color)
        for square in (*PALETTE.piece_squares(), PALETTE.light):
            assert contrast(body, square) >= MIN_CONTRAST, (color, square)
        assert contrast(PALETTE.crown(color), body) >= MIN_CONTRAST, f"the crown of a {color.label} king"
    assert contrast(PALETTE.white_body, PALETTE.black_body) >= MIN_CONTRAST
    for mark in ("", "s", "x"):
        assert contrast(PALETTE.number, PALETTE.square(mark)) >= MIN_CONTRAST, f"the numbers on {mark or 'd'} squares"
    assert contrast(PALETTE.label, PALETTE.frame) >= MIN_CONTRAST


def test_every_piece_contrasts_with_its_square_and_the_other_side_in_the_unicode_theme() -> None:
    square = TWEMOJI[UNICODE.dark]
    for color in SIDES:
        for king in (False, True):
            emoji = UNICODE.piece(color, king)
            colours = {TWEMOJI[emoji]}
            if emoji in ("🔲", "🔳"):  # a framed square: the frame and what it frames
                colours.add(TWEMOJI["🔳" if emoji == "🔲" else "🔲"])
            for colour in colours:
                assert contrast(colour, square) >= MIN_CONTRAST, (emoji, colour)
    assert contrast(TWEMOJI[UNICODE.white_man], TWEMOJI[UNICODE.black_man]) >= MIN_CONTRAST
    assert UNICODE.light() != "⬜", "White's ⚪ men melt into ⬜ light squares (both #e6e7e8 in Twemoji)"
    assert len({UNICODE.light(), UNICODE.dark, UNICODE.trail, UNICODE.taken, UNICODE.corner()}) == 5
    assert {UNICODE.corner(), UNICODE.light()}.isdisjoint(UNICODE.piece(c, k) for c in SIDES for k in (False, True))


# -- the tiles as drawn --------------------------------------------------------------------------------------------


def test_the_tile_set_has_a_valid_unique_name_and_a_small_png_for_each_tile() -> None:
    tiles = list(_tiles.tiles())
    names = [tile.name for tile in tiles]
    assert len(set(names)) == len(names) == 124
    assert all(re.fullmatch(r"[A-Za-z0-9_]{2,32}", name) for name in names)
    assert all(name.startswith(f"km{_tiles.TILESET_VERSION}_") for name in names)
    for tile in tiles:
        data = _tiles.png(tile)
        assert data.startswith(b"\x89PNG") and len(data) <= 256 * 1024
        assert Image.open(io.BytesIO(data)).size == (_tiles.SIZE, _tiles.SIZE)


def pixel(tile: _tiles.Tile, x: float, y: float) -> str:
    image = Image.open(io.BytesIO(_tiles.png(tile))).convert("RGB")
    r, g, b = image.getpixel((round(x * (_tiles.SIZE - 1)), round(y * (_tiles.SIZE - 1))))  # type: ignore[misc]
    return f"#{r:02x}{g:02x}{b:02x}"


@pytest.mark.parametrize("color", SIDES, ids=lambda c: c.label)
@pytest.mark.parametrize("moved", [False, True])
def test_a_piece_tile_is_drawn_in_the_palette_s_colours(color: Color, moved: bool) -> None:
    square = PALETTE.moved if moved else PALETTE.dark
    man, king = _tiles.piece(color, False, moved), _tiles.piece(color, True, moved)
    assert pixel(man, 0.06, 0.06) == square and pixel(king, 0.94, 0.94) == square
    assert pixel(man, 0.5, 0.5) == PALETTE.body(color)
    assert pixel(king, 0.5, 0.83) == PALETTE.body(color)
    assert pixel(king, 0.5, 0.55) == PALETTE.crown(color), "a king wears a crown"
    assert pixel(man, 0.5, 0.55) == PALETTE.body(color)


def light_pixels(tile: _tiles.Tile) -> int:
    """How many of the tile's pixels are as light as its numbers."""
    colours = Image.open(io.BytesIO(_tiles.png(tile))).convert("RGB").getcolors(1 << 16) or []
    return sum(count for count, (r, g, b) in colours if luminance(f"#{r:02x}{g:02x}{b:02x}") > 0.8)


def test_an_empty_dark_square_shows_its_number() -> None:
    for mark in ("", "s", "x"):
        assert light_pixels(_tiles.empty(0, mark)) == 0
        for square in (1, 18, 32):
            assert light_pixels(_tiles.empty(square, mark)) > 100, f"square {square} shows no number"


# -- the last move on the board ------------------------------------------------------------------------------------


def capture_position() -> tuple[Board, str]:
    """White's 30x21 has just taken Black's man on 25; Black has a man and a king, White too."""
    board = Board("B:W6,30,19,K2:B1,22,25,K3")
    board.push_text("1x10")
    board.push_text("30x21")
    return board, "30x21"


def test_the_tiles_mark_the_last_move_s_start_end_and_captures() -> None:
    board, _ = capture_position()
    grid = board_grid(board, board.move_stack[-1], tile_theme())
    rows = [TILE.findall(line) for line in grid.split("\n")]
    assert [len(row) for row in rows] == [9] * 9
    names = [name for row in rows for name, _ in row]
    assert "km1_s30" in names, "the start square is marked and keeps its number"
    assert "km1_wmh" in names, "the end square is marked under the piece that landed there"
    assert "km1_x25" in names, "the captured square is marked"
    assert {"km1_bm", "km1_bk", "km1_wk", "km1_d14"} <= set(names)
    assert rows[0][0][0] == "km1_r8" and [n for n, _ in rows[8]] == ["km1_c", *(f"km1_f{f}" for f in "abcdefgh")]


def test_the_unicode_theme_points_at_the_last_move_s_end() -> None:
    board, _ = capture_position()
    lines = board_grid(board, board.move_stack[-1], UNICODE).split("\n")
    cells = [line.split(UNICODE.separator) for line in lines]
    assert all(len(row) <= 10 for row in cells), "rows of at most 10 emoji"
    marked = [i for i, row in enumerate(cells) if row[-1] == UNICODE.row_marker]
    assert marked == [5], "the row of square 21 (rank 3)"
    assert cells[-1].index(UNICODE.column_marker) == 1 + 0, "the column of square 21 (a3)"
    assert cells[7][1 + 2] == UNICODE.trail, "square 30 (c1), where the move started"
    assert cells[6][1 + 1] == UNICODE.taken, "square 25 (b2), taken"


def test_a_board_of_tiles_fits_an_embed_description_but_not_a_message() -> None:
    longest = max(len(tile.name) for tile in _tiles.tiles())
    worst = 81 * len(f"<:{'n' * longest}:{LONGEST_ID}>") + 8  # 9 rows of 9 tiles
    assert worst + len("\n\n") + 400 <= 4096, "with the status line below it"
    board, _ = capture_position()
    assert 2000 < len(board_grid(board, board.move_stack[-1], tile_theme())) <= worst


# -- uploaded as application emojis --------------------------------------------------------------------------------


def tiles_of(message: Message) -> list[tuple[str, str]]:
    return TILE.findall(description(message).split("\n\n")[0])


async def test_the_bot_uploads_its_tiles_once_and_draws_the_board_with_them(harness: Harness) -> None:
    emojis = harness.emulator.emojis
    uploaded = {e.name: e.id for e in emojis.emojis.values()}
    assert set(uploaded) == {tile.name for tile in _tiles.tiles()}
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy", "think": 0.05})
    assert all(uploaded[name] == int(id_) for name, id_ in tiles_of(board)) and len(tiles_of(board)) == 81
    assert "km1_d14" in {name for name, _ in tiles_of(board)}, "empty dark squares show their numbers"

    await harness.restart()
    assert {e.name: e.id for e in emojis.emojis.values()} == uploaded, "a restart uploads nothing again"


async def test_without_its_tiles_the_bot_draws_unicode_and_marks_the_last_move(harness: Harness) -> None:
    emojis = harness.emulator.emojis
    emojis.emojis.clear()
    emojis.limit = 5  # the application's emoji limit is reached after five tiles
    await harness.restart()
    alice = harness.user("alice")
    board = await play_ai(harness, alice, {"level": "easy", "think": 0.05})
    assert tiles_of(board) == [] and UNICODE.dark in description(board)
    await play_first_move(harness, alice, board)
    await eventually(
        lambda: description(board).count(UNICODE.row_marker) == 1 and UNICODE.column_marker in description(board),
        what="the last move's end marked on the Unicode board",
    )
    assert UNICODE.trail in description(board)


def test_the_tiles_are_drawn_once_per_machine_and_kept_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tile is drawn once and kept in the user's cache folder (never under the data folder); the next process
    reads it from there, and a damaged file is drawn again."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    king, man = _tiles.piece(Color.WHITE, True), _tiles.piece(Color.BLACK, False)
    _tiles.png.cache_clear()
    try:
        drawn = _tiles.png(king)
        kept = _tiles.cache_dir() / f"{king.name}.png"
        assert kept.is_relative_to(tmp_path / "kingme" / "tiles") and kept.read_bytes() == drawn == _tiles.draw(king)
        kept.write_bytes(_tiles.draw(man))  # what the next process finds there is what it uploads
        _tiles.png.cache_clear()
        assert _tiles.png(king) == _tiles.draw(man), "read from the cache, not drawn"
        kept.write_bytes(b"not a png")
        _tiles.png.cache_clear()
        assert _tiles.png(king) == drawn and kept.read_bytes() == drawn, "a damaged file is drawn again"
    finally:
        _tiles.png.cache_clear()
