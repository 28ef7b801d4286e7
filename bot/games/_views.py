"""The components under a board or a challenge, as restart-proof :class:`discord.ui.DynamicItem` s.

Each ``custom_id`` carries everything a click needs (the game or challenge id and the version shown), so any bot
process handles a click on any message, also one sent before a restart. No game lives in a View: the Views built here
are throw-away containers for sending, and every callback hands the click to the cog, which calls the game service.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

import discord
from discord.ext import commands

from bot.games._render import THEME, movable_squares, moves_from, square_name
from bot.service import Challenge, GameKind, GameView

if TYPE_CHECKING:
    from bot.games._cog import GamesCog

PREFIX = "km"
GAME_ACTIONS = ("resign", "draw", "drawyes", "drawno", "tbyes", "tbno")
CHALLENGE_ACTIONS = ("accept", "decline")
_ID = r"(?P<id>[0-9A-Za-z_-]{1,40})"
_VERSION = r"(?P<version>[0-9]{1,9})"


def _cog(interaction: discord.Interaction[Any]) -> GamesCog:
    client = interaction.client
    cog = client.get_cog("Games") if isinstance(client, commands.Bot) else None
    if cog is None:  # pragma: no cover - the bot always registers the cog with the items
        raise RuntimeError("the Games cog is not loaded")
    return cast("GamesCog", cog)


class PieceSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"{PREFIX}:p:{_ID}:{_VERSION}"):
    """Choose one of the pieces that can move; the board then shows that piece's moves."""

    def __init__(self, game_id: str, version: int, options: list[discord.SelectOption] | None = None) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{PREFIX}:p:{game_id}:{version}",
            placeholder="Choose a piece to move",
            options=options or [discord.SelectOption(label="-", value="0")],
            row=0,
        )
        super().__init__(select)
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PieceSelect:
        return cls(match["id"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = cast(dict[str, Any], interaction.data or {}).get("values") or ["0"]
        await _cog(interaction).on_piece(interaction, self.game_id, self.version, int(values[0]))


class MoveSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"{PREFIX}:m:{_ID}:{_VERSION}:(?P<square>[0-9]{{1,3}})"
):
    """Choose one of the chosen piece's moves (multi-jump paths in full)."""

    def __init__(
        self, game_id: str, version: int, square: int, options: list[discord.SelectOption] | None = None
    ) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{PREFIX}:m:{game_id}:{version}:{square}",
            placeholder=f"Move the piece on {square}",
            options=options or [discord.SelectOption(label="-", value="-")],
            row=1,
        )
        super().__init__(select)
        self.game_id, self.version, self.square = game_id, version, square

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MoveSelect:
        return cls(match["id"], int(match["version"]), int(match["square"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = cast(dict[str, Any], interaction.data or {}).get("values") or [""]
        await _cog(interaction).on_move(interaction, self.game_id, self.version, str(values[0]))


_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "resign": ("Resign", discord.ButtonStyle.danger),
    "draw": ("Offer draw", discord.ButtonStyle.secondary),
    "drawyes": ("Accept draw", discord.ButtonStyle.success),
    "drawno": ("Decline draw", discord.ButtonStyle.secondary),
    "tbyes": ("Allow takeback", discord.ButtonStyle.success),
    "tbno": ("Refuse takeback", discord.ButtonStyle.secondary),
}


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:b:(?P<action>{'|'.join(GAME_ACTIONS)}):{_ID}:{_VERSION}",
):
    """Resign, offer a draw, or answer a draw or takeback offer."""

    def __init__(self, action: str, game_id: str, version: int) -> None:
        label, style = _BUTTONS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"{PREFIX}:b:{action}:{game_id}:{version}", row=2)
        )
        self.action, self.game_id, self.version = action, game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        return cls(match["action"], match["id"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_game_button(interaction, self.action, self.game_id, self.version)


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:c:(?P<action>{'|'.join(CHALLENGE_ACTIONS)}):{_ID}:{_VERSION}",
):
    """Accept or decline a challenge (the challenger's Decline withdraws it)."""

    def __init__(self, action: str, challenge_id: str, version: int) -> None:
        accept = action == "accept"
        label = "Accept" if accept else "Decline"
        style = discord.ButtonStyle.success if accept else discord.ButtonStyle.danger
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"{PREFIX}:c:{action}:{challenge_id}:{version}")
        )
        self.action, self.challenge_id, self.version = action, challenge_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        return cls(match["action"], match["id"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_challenge_button(interaction, self.action, self.challenge_id, self.version)


class ResignConfirm(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:r:{_ID}:{_VERSION}"):
    """The second step of resigning, on an ephemeral message only the player sees: "Really resign?"."""

    def __init__(self, game_id: str, version: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Really resign?", style=discord.ButtonStyle.danger, custom_id=f"{PREFIX}:r:{game_id}:{version}"
            )
        )
        self.game_id, self.version = game_id, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResignConfirm:
        return cls(match["id"], int(match["version"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _cog(interaction).on_resign_confirmed(interaction, self.game_id, self.version)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    PieceSelect,
    MoveSelect,
    GameButton,
    ChallengeButton,
    ResignConfirm,
)


# -- building the components ------------------------------------------------------------------------------------------


def board_controls(view: GameView, selected: int | None = None) -> discord.ui.View | None:
    """The components under a board: piece select, the chosen piece's moves, and the game buttons."""
    game = view.game
    if not game.is_active:
        return None
    controls = discord.ui.View(timeout=None)
    humans_turn = not view.to_move.is_ai
    squares = movable_squares(view) if humans_turn else []
    if squares:
        piece = THEME.side(view.turn)
        options = [
            discord.SelectOption(
                label=f"{s} ({square_name(game.variant, s)})",
                value=str(s),
                emoji=piece,
                description=", ".join(moves_from(view, s))[:100],
                default=s == selected,
            )
            for s in squares[:25]
        ]
        controls.add_item(PieceSelect(game.id, game.version, options))
    if selected is not None and selected in squares:
        moves = moves_from(view, selected)[:25]
        options = [
            discord.SelectOption(label=m[:100], value=m[:100], description=_move_description(game.variant, m))
            for m in moves
        ]
        controls.add_item(MoveSelect(game.id, game.version, selected, options))
    if game.draw_offer:
        controls.add_item(GameButton("drawyes", game.id, game.version))
        controls.add_item(GameButton("drawno", game.id, game.version))
    if game.takeback_offer:
        controls.add_item(GameButton("tbyes", game.id, game.version))
        controls.add_item(GameButton("tbno", game.id, game.version))
    if game.kind is not GameKind.EXHIBITION:
        if game.kind is GameKind.HUMAN and not game.draw_offer:
            controls.add_item(GameButton("draw", game.id, game.version))
        controls.add_item(GameButton("resign", game.id, game.version))
    return controls


def _move_description(variant: str, move: str) -> str:
    squares = [int(s) for s in move.replace("x", "-").split("-") if s.isdigit()]
    path = " → ".join(square_name(variant, s) for s in squares)
    takes = move.count("x")
    return (f"{path} · takes {takes}" if takes else path)[:100]


def resign_controls(view: GameView) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    controls.add_item(ResignConfirm(view.id, view.version))
    return controls


def challenge_controls(challenge: Challenge) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    for action in CHALLENGE_ACTIONS:
        controls.add_item(ChallengeButton(action, challenge.id, challenge.version))
    return controls
