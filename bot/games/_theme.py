"""How King Me looks on Discord: the board's cells as emoji (:class:`Theme`), and the embeds' colours.

Two themes draw a board. :class:`TileTheme` is the real one: the tiles of :mod:`bot.games._tiles`, uploaded as the
application's own emojis (``<:km1_bm:123…>``), with numbered empty squares, crowned kings and the last move marked on
its start, path, end and captures. :data:`UNICODE` is the fallback for when the tiles cannot be uploaded: Unicode
emoji chosen for contrast in the colours Discord draws them with (Twemoji, on every Discord client). A Unicode emoji
cannot be drawn on a square, so that theme marks the last move's end square by pointing at its row and column.

:class:`BoardThemes` holds the theme boards are drawn with now: :data:`UNICODE` until the tiles are in place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bot.games import _tiles
from bot.i18n import ENGLISH, Language
from core import Color

ACTIVE_COLOUR = 0xC8A165
FINISHED_COLOUR = 0x5A8F5A
_KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
_LETTERS = tuple(chr(0x1F1E6 + i) for i in range(10))  # regional indicators A..J

TWEMOJI: Final[Mapping[str, str]] = {
    "⚪": "#e6e7e8",
    "⚫": "#31373d",
    "🟫": "#c1694f",
    "🟨": "#fdcb58",
    "🟩": "#78b159",
    "🔲": "#31373d",  # a dark frame around a light square (#e6e7e8)
    "🔳": "#e6e7e8",  # a light frame around a dark square (#31373d)
}
"""The fill colours Twemoji draws these emoji with (the frame's for 🔲 and 🔳), as the contrast test needs them."""


class Theme(ABC):
    """The text of a board's cells. Subclasses say how each kind of cell looks."""

    separator: str = ""
    """Between two cells of a row."""
    marks_end_square: bool = True
    """Whether a piece's cell can show that the last move ended there; if not, :attr:`row_marker` and
    :attr:`column_marker` point at the square."""
    row_marker: str = "◀️"
    column_marker: str = "🔼"
    shows_numbers: bool = True
    """Whether empty dark squares show their numbers (else the legend says where square 1 is)."""

    def fits(self, size: int, squares: int) -> bool:
        """Whether this theme can draw a board of ``size``×``size`` with ``squares`` dark squares."""
        return size <= 10

    @abstractmethod
    def light(self) -> str:
        raise NotImplementedError

    @abstractmethod
    def empty(self, square: int, mark: _tiles.Mark) -> str:
        """An empty dark square: unmarked, left or passed by the last move (``s``), or taken by it (``x``)."""
        raise NotImplementedError

    @abstractmethod
    def piece(self, color: Color, king: bool, moved: bool = False) -> str:
        """A piece; ``moved``: the last move ended here."""
        raise NotImplementedError

    @abstractmethod
    def rank(self, number: int) -> str:
        raise NotImplementedError

    @abstractmethod
    def file(self, index: int) -> str:
        raise NotImplementedError

    @abstractmethod
    def corner(self) -> str:
        raise NotImplementedError

    def side(self, color: Color) -> str:
        """A side's mark in running text (the status line, the last move)."""
        return self.piece(color, False)

    @abstractmethod
    def legend(self, lang: Language = ENGLISH, *, kings: bool = True) -> str:
        """What each mark means; without kings for a variant that has none (mini)."""
        raise NotImplementedError


@dataclass(frozen=True)
class UnicodeTheme(Theme):
    """The board in Unicode emoji. ⚪ and ⚫ men stand out from the 🟫 dark squares (3.1:1 each in Twemoji's
    colours) and from each other; the light squares are 🟨, not the ⬜ that White's men melted into; kings are framed
    squares (🔲 White, 🔳 Black), visible on dark and light themes alike, unlike the 🖤 that vanished."""

    light_square: str = "🟨"
    dark: str = "🟫"
    black_man: str = "⚫"
    black_king: str = "🔳"
    white_man: str = "⚪"
    white_king: str = "🔲"
    trail: str = "🟩"
    """Squares the last move's piece left or passed through."""
    taken: str = "💥"
    """Squares where the last move took a piece."""
    corner_cell: str = "⬛"
    ranks: tuple[str, ...] = _KEYCAPS
    files: tuple[str, ...] = _LETTERS
    separator: str = "\u200b"
    """Between every two cells: keeps regional-indicator letters from merging into flags (🇧🇪 is Belgium)."""
    marks_end_square: bool = False
    shows_numbers: bool = False

    def light(self) -> str:
        return self.light_square

    def empty(self, square: int, mark: _tiles.Mark) -> str:
        return {"": self.dark, "s": self.trail, "x": self.taken}[mark]

    def piece(self, color: Color, king: bool, moved: bool = False) -> str:
        if color is Color.BLACK:
            return self.black_king if king else self.black_man
        return self.white_king if king else self.white_man

    def rank(self, number: int) -> str:
        return self.ranks[number - 1]

    def file(self, index: int) -> str:
        return self.files[index]

    def corner(self) -> str:
        return self.corner_cell

    def legend(self, lang: Language = ENGLISH, *, kings: bool = True) -> str:
        marks = {"trail": self.trail, "end": self.row_marker + self.column_marker, "taken": self.taken}
        if not kings:
            return lang._(
                "{black_man} Black man · {white_man} White man · "
                "{trail} the last move's start and path · {end} its end · {taken} taken",
                black_man=self.black_man,
                white_man=self.white_man,
                **marks,
            )
        return lang._(
            "{black_man} Black man · {black_king} Black king · {white_man} White man · {white_king} White king · "
            "{trail} the last move's start and path · {end} its end · {taken} taken",
            black_man=self.black_man,
            black_king=self.black_king,
            white_man=self.white_man,
            white_king=self.white_king,
            **marks,
        )


UNICODE: Final = UnicodeTheme()


class TileTheme(Theme):
    """The board in the tiles of :mod:`bot.games._tiles`, uploaded as application emojis.

    ``emojis`` maps each tile's emoji name to its id. A tile is written ``<:km1_bm:1234567890123456789>``: at most
    31 characters with today's 19-digit ids, so an 8×8 board with its rank and file labels is 81 tiles, about 2,500
    characters. That is more than a message's 2,000 but well within an embed description's 4,096, which is why the
    board is an embed's description (with the status line below it).
    """

    def __init__(self, emojis: Mapping[str, int]) -> None:
        self._emojis = dict(emojis)

    def _text(self, tile: _tiles.Tile) -> str:
        return f"<:{tile.name}:{self._emojis[tile.name]}>"

    def fits(self, size: int, squares: int) -> bool:
        return size <= _tiles.MAX_SIZE and squares <= _tiles.MAX_SQUARES

    def light(self) -> str:
        return self._text(_tiles.light())

    def empty(self, square: int, mark: _tiles.Mark) -> str:
        return self._text(_tiles.empty(square, mark))

    def piece(self, color: Color, king: bool, moved: bool = False) -> str:
        return self._text(_tiles.piece(color, king, moved))

    def rank(self, number: int) -> str:
        return self._text(_tiles.rank(number))

    def file(self, index: int) -> str:
        return self._text(_tiles.file(index))

    def corner(self) -> str:
        return self._text(_tiles.corner())

    def legend(self, lang: Language = ENGLISH, *, kings: bool = True) -> str:
        black, white = Color.BLACK, Color.WHITE
        if not kings:
            return lang._(
                "{black_man} Black man · {white_man} White man · {trail} the last move's start and end · {taken} taken",
                black_man=self.piece(black, False),
                white_man=self.piece(white, False),
                trail=self.empty(0, "s"),
                taken=self.empty(0, "x"),
            )
        return lang._(
            "{black_man} Black man · {black_king} Black king · {white_man} White man · {white_king} White king · "
            "{trail} the last move's start and end · {taken} taken",
            black_man=self.piece(black, False),
            black_king=self.piece(black, True),
            white_man=self.piece(white, False),
            white_king=self.piece(white, True),
            trail=self.empty(0, "s"),
            taken=self.empty(0, "x"),
        )


class BoardThemes:
    """The theme boards are drawn with now: :data:`UNICODE` until :meth:`use_tiles` is given the uploaded tiles."""

    def __init__(self) -> None:
        self.current: Theme = UNICODE

    def use_tiles(self, emojis: Mapping[str, int]) -> None:
        self.current = TileTheme(emojis)
