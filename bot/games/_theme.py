"""How King Me looks on Discord: the board's emoji (:class:`Theme`, defined once; :data:`THEME` is the one the bot
uses) and the embeds' colours."""

from __future__ import annotations

from dataclasses import dataclass

from core import Color

ACTIVE_COLOUR = 0xC8A165
FINISHED_COLOUR = 0x5A8F5A
_KEYCAPS = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
_LETTERS = tuple(chr(0x1F1E6 + i) for i in range(10))  # regional indicators A..J


@dataclass(frozen=True)
class Theme:
    """The board's emoji, in one place. Men and kings of each side share a colour and differ in shape."""

    light: str = "⬜"
    dark: str = "🟫"
    black_man: str = "⚫"
    black_king: str = "🖤"
    white_man: str = "⚪"
    white_king: str = "🤍"
    trail: str = "🟨"
    """Squares the last move's piece left or jumped through."""
    taken: str = "💥"
    """Squares where the last move took a piece."""
    corner: str = "🔳"
    ranks: tuple[str, ...] = _KEYCAPS
    files: tuple[str, ...] = _LETTERS
    separator: str = "\u200b"
    """Between every two cells: keeps regional-indicator letters from merging into flags (🇧🇪 is Belgium)."""

    def piece(self, color: Color, king: bool) -> str:
        if color is Color.BLACK:
            return self.black_king if king else self.black_man
        return self.white_king if king else self.white_man

    def side(self, color: Color) -> str:
        return self.piece(color, False)

    def legend(self) -> str:
        return (
            f"{self.black_man} Black man · {self.black_king} Black king · {self.white_man} White man · "
            f"{self.white_king} White king · {self.trail} last move · {self.taken} taken"
        )


THEME = Theme()
