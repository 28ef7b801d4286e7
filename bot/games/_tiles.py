"""The board's tiles: small PNGs drawn here with Pillow, one per kind of cell, uploaded as application emojis.

One source for every tile: :data:`PALETTE` holds the colours and :func:`draw` draws a tile from its :class:`Tile`
description (no image file is kept in the project). A board is a grid of tiles:

- ``l``: a light square; ``d1``…``d32``: an empty dark square showing its number; ``s1``…: the same, marked as a
  square the last move's piece left or passed through; ``x1``…: the same, marked as taken by the last move;
- ``bm`` ``bk`` ``wm`` ``wk``: a Black or White man or king (crowned) on a dark square; ``bmh``…: the same on the last
  move's end square (marked like ``s``); ``s0`` and ``x0``: the marks alone, for the legend;
- ``r1``…``r8``, ``fa``…``fh`` and ``c``: the rank numbers, file letters and corner of the board's frame.

Every emoji name is ``km<version>_<code>`` (:data:`TILESET_VERSION`): a redesign bumps the version, so its tiles are
uploaded beside the old ones instead of being mistaken for them.

Drawing the 124 tiles takes a second or more of CPU, so each PNG is kept in the user's cache folder
(``kingme/tiles/<fingerprint of this file>/``, beside the search kernel's compiled code, see :mod:`ai.kernel.cache`):
a start that has to upload them (a new application, or the sandbox's fresh emulated Discord) reads them from there.

The colours are chosen by measured contrast (WCAG 2 relative luminance, :func:`contrast`): each piece's body against
every square it is drawn on and against the light square, the two sides against each other, a crown against its
piece's body and a square's number against its square are all at least :data:`MIN_CONTRAST`.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from PIL import Image, ImageDraw, ImageFont

from ai.kernel.cache import user_cache_home
from core import Color

TILESET_VERSION: Final = 1
"""Bump when the tiles' look changes: the emoji names carry it (``km1_bm``)."""
SIZE: Final = 128
"""Pixels a side: Discord's usual emoji size."""
MIN_CONTRAST: Final = 3.0
"""WCAG's minimum for graphics and large text (1.4.11): what a piece must have against its square."""
MAX_SQUARES: Final = 32
"""Numbered tiles are drawn for squares 1..32 and labels for 8 ranks and files: boards up to 8×8."""
MAX_SIZE: Final = 8
_SCALE: Final = 4
_PNG_SIGNATURE: Final = b"\x89PNG\r\n\x1a\n"
"""Drawn at 4× and scaled down: Pillow's shapes have no anti-aliasing of their own."""

Mark = Literal["", "s", "x"]
"""How an empty dark square is marked: not at all, left or passed by the last move (``s``), taken (``x``)."""


@dataclass(frozen=True)
class Palette:
    """The tiles' colours (``#rrggbb``)."""

    light: str = "#a88b62"
    """Light squares: a mid buff, dark enough that a white piece stands out from it too."""
    dark: str = "#3f7a4f"
    """Dark squares: a tournament-board green."""
    moved: str = "#b0702a"
    """A dark square the last move's piece left, passed or landed on."""
    taken: str = "#a8402f"
    """A dark square where the last move took a piece."""
    number: str = "#ffffff"
    number_outline: str = "#1b1b1b"
    white_body: str = "#fffdf6"
    white_rim: str = "#b8ae9c"
    black_body: str = "#161412"
    black_rim: str = "#5a534c"
    white_crown: str = "#7a4a00"
    """The crown on a White king: deep amber on ivory."""
    black_crown: str = "#f2c14e"
    """The crown on a Black king: gold on black."""
    frame: str = "#3a2a1c"
    label: str = "#efe2c8"

    def body(self, color: Color) -> str:
        return self.black_body if color is Color.BLACK else self.white_body

    def rim(self, color: Color) -> str:
        return self.black_rim if color is Color.BLACK else self.white_rim

    def crown(self, color: Color) -> str:
        return self.black_crown if color is Color.BLACK else self.white_crown

    def square(self, mark: Mark) -> str:
        return {"": self.dark, "s": self.moved, "x": self.taken}[mark]

    def piece_squares(self) -> tuple[str, ...]:
        """Every square colour a piece is drawn on."""
        return self.dark, self.moved


PALETTE: Final = Palette()


# -- contrast ------------------------------------------------------------------------------------------------------


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#rrggbb`` (0 black, 1 white)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# -- the tile set --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tile:
    """One tile: ``code`` names it (see the module's docstring); the other fields say what :func:`draw` draws."""

    code: str
    kind: Literal["light", "empty", "piece", "label"]
    square: int = 0
    mark: Mark = ""
    color: Color = Color.BLACK
    king: bool = False
    text: str = ""

    @property
    def name(self) -> str:
        """The emoji name: 2–32 characters of ``[A-Za-z0-9_]``."""
        return f"km{TILESET_VERSION}_{self.code}"


def light() -> Tile:
    return Tile("l", "light")


def empty(square: int, mark: Mark = "") -> Tile:
    return Tile(f"{mark or 'd'}{square}", "empty", square=square, mark=mark)


def piece(color: Color, king: bool, moved: bool = False) -> Tile:
    code = ("b" if color is Color.BLACK else "w") + ("k" if king else "m") + ("h" if moved else "")
    return Tile(code, "piece", mark="s" if moved else "", color=color, king=king)


def rank(number: int) -> Tile:
    return Tile(f"r{number}", "label", text=str(number))


def file(index: int) -> Tile:
    letter = "abcdefgh"[index]
    return Tile(f"f{letter}", "label", text=letter)


def corner() -> Tile:
    return Tile("c", "label")


def tiles() -> Iterator[Tile]:
    """Every tile of the set, each once."""
    yield light()
    for mark in ("", "s", "x"):
        for square in range(1, MAX_SQUARES + 1):
            yield empty(square, mark)
    yield empty(0, "s")  # unnumbered, for the legend
    yield empty(0, "x")
    for color in (Color.BLACK, Color.WHITE):
        for king in (False, True):
            for moved in (False, True):
                yield piece(color, king, moved)
    for index in range(MAX_SIZE):
        yield rank(index + 1)
        yield file(index)
    yield corner()


# -- drawing -------------------------------------------------------------------------------------------------------


@functools.cache
def png(tile: Tile) -> bytes:
    """The tile as a PNG of :data:`SIZE` pixels a side: read from the cache folder, else drawn and kept there."""
    path = cache_dir() / f"{tile.name}.png"
    with contextlib.suppress(OSError):
        kept = path.read_bytes()
        if kept.startswith(_PNG_SIGNATURE):
            return kept
    image = draw(tile)
    with contextlib.suppress(OSError):  # a read-only or full cache only costs the next start the drawing
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as out:
            out.write(image)
        os.replace(out.name, path)  # whole or not at all, even with two processes drawing at once
    return image


def cache_dir() -> Path:
    """Where the drawn tiles are kept: a folder per version of this file, so a change of the drawing draws anew."""
    return user_cache_home() / "kingme" / "tiles" / _fingerprint()


@functools.cache
def _fingerprint() -> str:
    """This file's digest, read once (not once a tile)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def draw(tile: Tile) -> bytes:
    """Draw the tile as a PNG of :data:`SIZE` pixels a side."""
    big = SIZE * _SCALE
    image = Image.new("RGB", (big, big), _background(tile))
    canvas = ImageDraw.Draw(image)
    if tile.kind == "empty":
        _number(canvas, tile)
    elif tile.kind == "piece":
        _piece(canvas, tile.color, tile.king)
    elif tile.kind == "label" and tile.text:
        _text(canvas, tile.text, PALETTE.label, size=0.5, outline=None)
    out = io.BytesIO()
    image.resize((SIZE, SIZE), Image.Resampling.LANCZOS).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _background(tile: Tile) -> str:
    if tile.kind == "light":
        return PALETTE.light
    if tile.kind == "label":
        return PALETTE.frame
    return PALETTE.square(tile.mark)


def _number(canvas: ImageDraw.ImageDraw, tile: Tile) -> None:
    if tile.mark == "x":  # a cross behind the number: taken
        big, inset, width = SIZE * _SCALE, SIZE * _SCALE // 5, SIZE * _SCALE // 14
        cross = "#7a2a20"
        canvas.line([(inset, inset), (big - inset, big - inset)], fill=cross, width=width)
        canvas.line([(inset, big - inset), (big - inset, inset)], fill=cross, width=width)
    if tile.square:
        _text(canvas, str(tile.square), PALETTE.number, size=0.42, outline=PALETTE.number_outline)


def _text(canvas: ImageDraw.ImageDraw, text: str, fill: str, *, size: float, outline: str | None) -> None:
    big = SIZE * _SCALE
    font = ImageFont.load_default(size=round(big * size))
    stroke = big // 40 if outline else 0
    canvas.text((big / 2, big / 2), text, fill=fill, font=font, anchor="mm", stroke_width=stroke, stroke_fill=outline)


def _piece(canvas: ImageDraw.ImageDraw, color: Color, king: bool) -> None:
    """A draughtsman seen from above: rim, body, a groove; a king wears a crown."""
    big = SIZE * _SCALE
    middle = big / 2

    def disc(radius: float, fill: str | None, outline: str | None = None, width: int = 0) -> None:
        box = (middle - radius, middle - radius, middle + radius, middle + radius)
        canvas.ellipse(box, fill=fill, outline=outline, width=width)

    disc(big * 0.42, PALETTE.rim(color))
    disc(big * 0.38, PALETTE.body(color))
    disc(big * 0.28, None, PALETTE.rim(color), width=big // 64)
    if king:
        _crown(canvas, PALETTE.crown(color))


def _crown(canvas: ImageDraw.ImageDraw, fill: str) -> None:
    """A three-pointed crown on a band, centred on the piece."""
    u = SIZE * _SCALE / 100  # one unit: 1% of the tile
    points = [(30, 64), (30, 38), (40, 50), (50, 32), (60, 50), (70, 38), (70, 64)]
    canvas.polygon([(x * u, y * u) for x, y in points], fill=fill)
    canvas.rectangle((30 * u, 66 * u, 70 * u, 72 * u), fill=fill)
    for x, y in ((30, 36), (50, 30), (70, 36)):
        canvas.ellipse(((x - 4) * u, (y - 4) * u, (x + 4) * u, (y + 4) * u), fill=fill)
