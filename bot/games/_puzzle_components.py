"""The components of a puzzle's board (an ephemeral message of one person's), as restart-proof ``DynamicItem`` s.

Each ``custom_id`` names whose puzzle it is and the version of the puzzle shown, so a click on a board that is no
longer current is refused as stale. The clicks take the one path of every click (:func:`bot.games._dispatch.dispatch`:
the rate limits, the one report of an error), handled by the :class:`PuzzleClicks` attached to the bot. The formats
below are a promise to every message already sent: never change them.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, Self

import discord

from bot.games._components import PREFIX, _chosen
from bot.games._dispatch import Clicks, dispatch
from bot.i18n import ENGLISH, Language, _
from bot.service import GuildId, UserId

Interaction = discord.Interaction[Any]
PUZZLE_ACTIONS = ("hint", "giveup", "retry", "next", "up", "down")
_USER = r"(?P<user_id>[0-9]{1,20})"
_VERSION = r"(?P<version>[0-9]{1,9})"
_LABELS: dict[str, tuple[str, str | None, discord.ButtonStyle]] = {
    "hint": (_("Hint"), "💡", discord.ButtonStyle.secondary),
    "giveup": (_("Give up"), None, discord.ButtonStyle.danger),
    "retry": (_("Retry"), "🔁", discord.ButtonStyle.secondary),
    "next": (_("Next puzzle"), "🧩", discord.ButtonStyle.primary),
    "up": (_("Good puzzle"), "👍", discord.ButtonStyle.secondary),
    "down": (_("Bad puzzle"), "👎", discord.ButtonStyle.secondary),
}


class PuzzleClicks(Protocol):
    """What a click on a puzzle's component does (:class:`bot.games._puzzles.PuzzleHandlers`)."""

    async def on_puzzle_piece(self, interaction: Interaction, owner: UserId, version: int, square: int) -> None: ...

    async def on_puzzle_move(self, interaction: Interaction, owner: UserId, version: int, move: str) -> None: ...

    async def on_puzzle_button(self, interaction: Interaction, action: str, owner: UserId, version: int) -> None: ...

    async def on_daily(self, interaction: Interaction, guild_id: GuildId, day: str) -> None: ...


_CLICKS: weakref.WeakKeyDictionary[discord.Client, PuzzleClicks] = weakref.WeakKeyDictionary()


def attach_puzzles(client: discord.Client, clicks: PuzzleClicks) -> None:
    """From now on the puzzle clicks that ``client`` receives go to ``clicks``."""
    _CLICKS[client] = clicks


async def _dispatch(interaction: Interaction, call: Callable[[PuzzleClicks], Awaitable[None]]) -> None:
    async def run(_: Clicks) -> None:
        clicks = _CLICKS.get(interaction.client)
        if clicks is None:  # pragma: no cover - the cog attaches them before the bot receives anything
            raise RuntimeError("no puzzle handlers are attached to this client")
        await call(clicks)

    await dispatch(interaction, run)


class PuzzlePieceSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"{PREFIX}:zp:{_USER}:{_VERSION}"):
    """Choose one of the pieces that can move; the board then shows that piece's moves."""

    def __init__(
        self, user_id: UserId, version: int, options: list[discord.SelectOption] | None = None, lang: Language = ENGLISH
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"{PREFIX}:zp:{user_id}:{version}",
                placeholder=lang._("Choose a piece to move"),
                options=options or [discord.SelectOption(label="-", value="0")],
                row=0,
            )
        )
        self.user_id, self.version = user_id, version

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(UserId(match["user_id"]), int(match["version"]))

    async def callback(self, interaction: Interaction) -> None:
        chosen = _chosen(interaction, "0")
        square = int(chosen) if chosen.isdecimal() else 0
        await _dispatch(interaction, lambda h: h.on_puzzle_piece(interaction, self.user_id, self.version, square))


class PuzzleMoveSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"{PREFIX}:zm:{_USER}:{_VERSION}:(?P<square>[0-9]{{1,3}})",
):
    """Choose one of the chosen piece's moves."""

    def __init__(
        self,
        user_id: UserId,
        version: int,
        square: int,
        options: list[discord.SelectOption] | None = None,
        lang: Language = ENGLISH,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"{PREFIX}:zm:{user_id}:{version}:{square}",
                placeholder=lang._("Move the piece on {square}", square=square),
                options=options or [discord.SelectOption(label="-", value="-")],
                row=1,
            )
        )
        self.user_id, self.version, self.square = user_id, version, square

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(UserId(match["user_id"]), int(match["version"]), int(match["square"]))

    async def callback(self, interaction: Interaction) -> None:
        move = _chosen(interaction, "")
        await _dispatch(interaction, lambda h: h.on_puzzle_move(interaction, self.user_id, self.version, move))


class PuzzleButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:zb:(?P<action>{'|'.join(PUZZLE_ACTIONS)}):{_USER}:{_VERSION}",
):
    """Hint and Give up under a puzzle being solved; Retry, Next puzzle and the votes under one that is over."""

    def __init__(self, action: str, user_id: UserId, version: int, lang: Language = ENGLISH) -> None:
        label, emoji, style = _LABELS[action]
        super().__init__(
            discord.ui.Button(
                label=lang.say(label), emoji=emoji, style=style, custom_id=f"{PREFIX}:zb:{action}:{user_id}:{version}"
            )
        )
        self.action, self.user_id, self.version = action, user_id, version

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["action"], UserId(match["user_id"]), int(match["version"]))

    async def callback(self, interaction: Interaction) -> None:
        args = (interaction, self.action, self.user_id, self.version)
        await _dispatch(interaction, lambda h: h.on_puzzle_button(*args))


class DailyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:zd:(?P<guild_id>[0-9]{{1,20}}):(?P<day>[0-9]{{8}})",
):
    """Under a server's daily puzzle: solve it, on a board only the clicker sees."""

    def __init__(self, guild_id: GuildId, day: str, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Solve it"),
                emoji="🧩",
                style=discord.ButtonStyle.primary,
                custom_id=f"{PREFIX}:zd:{guild_id}:{day}",
            )
        )
        self.guild_id, self.day = guild_id, day

    @classmethod
    async def from_custom_id(cls, interaction: Interaction, item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(GuildId(match["guild_id"]), match["day"])

    async def callback(self, interaction: Interaction) -> None:
        await _dispatch(interaction, lambda h: h.on_daily(interaction, self.guild_id, self.day))


PUZZLE_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    PuzzlePieceSelect,
    PuzzleMoveSelect,
    PuzzleButton,
    DailyButton,
)
