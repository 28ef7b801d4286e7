"""The components under a board or a challenge, as restart-proof :class:`discord.ui.DynamicItem` s.

Each ``custom_id`` carries everything a click needs (the game or challenge id and the version shown), so any bot
process handles a click on any message, also one sent before a restart: the formats below are a promise to every
message already sent, never change them. No game lives in a View: the Views built here are throw-away containers for
sending, and every callback names its handler and hands the click to :func:`bot.games._dispatch.dispatch` (rate limit,
handler, the one report of any error).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Self, cast

import discord

from bot.games._dispatch import dispatch, dispatch_tournament
from bot.i18n import ENGLISH, Language, _
from bot.service import Challenge, ChallengeId, GameId, GameView, TournamentId, UserId

PREFIX = "km"
GAME_ACTIONS = ("resign", "draw", "drawyes", "drawno", "tbyes", "tbno", "side", "moves")
CHALLENGE_ACTIONS = ("accept", "decline")
TOURNAMENT_ACTIONS = ("join", "leave")
_GAME = r"(?P<game_id>[0-9A-Za-z_-]{1,40})"
_CHALLENGE = r"(?P<challenge_id>[0-9A-Za-z_-]{1,40})"
_TOURNAMENT = r"(?P<tournament_id>[0-9A-Za-z_-]{1,40})"
_VERSION = r"(?P<version>[0-9]{1,9})"
_TYPES: dict[str, Callable[[str], object]] = {
    "version": int,
    "square": int,
    "page": int,
    "game_id": GameId,
    "challenge_id": ChallengeId,
    "tournament_id": TournamentId,
    "user_id": UserId,
}
"""The typed value of each template group (text otherwise): a custom id is where an id comes in from Discord. Every
group is named after the item's constructor argument."""


class _FromCustomId:
    """Rebuilds an item from the groups of its ``custom_id`` (after a restart, or in another process)."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        groups = {k: _TYPES.get(k, str)(v) for k, v in match.groupdict().items()}
        return cls(**groups)


def _chosen(interaction: discord.Interaction[Any], default: str) -> str:
    """The value chosen in a select menu."""
    values = cast(dict[str, Any], interaction.data or {}).get("values") or [default]
    return str(values[0])


class PieceSelect(
    _FromCustomId, discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"{PREFIX}:p:{_GAME}:{_VERSION}"
):
    """Choose one of the pieces that can move; the board then shows that piece's moves."""

    def __init__(
        self,
        game_id: GameId,
        version: int,
        options: list[discord.SelectOption] | None = None,
        lang: Language = ENGLISH,
    ) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{PREFIX}:p:{game_id}:{version}",
            placeholder=lang._("Choose a piece to move"),
            options=options or [discord.SelectOption(label="-", value="0")],
            row=0,
        )
        super().__init__(select)
        self.game_id, self.version = game_id, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        chosen = _chosen(interaction, "0")
        square = int(chosen) if chosen.isdecimal() else 0  # a value no board offers selects no piece
        await dispatch(interaction, lambda h: h.on_piece(interaction, self.game_id, self.version, square))


class MoveSelect(
    _FromCustomId,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"{PREFIX}:m:{_GAME}:{_VERSION}:(?P<square>[0-9]{{1,3}})",
):
    """Choose one of the chosen piece's moves (multi-jump paths in full)."""

    def __init__(
        self,
        game_id: GameId,
        version: int,
        square: int,
        options: list[discord.SelectOption] | None = None,
        lang: Language = ENGLISH,
    ) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{PREFIX}:m:{game_id}:{version}:{square}",
            placeholder=lang._("Move the piece on {square}", square=square),
            options=options or [discord.SelectOption(label="-", value="-")],
            row=1,
        )
        super().__init__(select)
        self.game_id, self.version, self.square = game_id, version, square

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        move = _chosen(interaction, "")
        await dispatch(interaction, lambda h: h.on_move(interaction, self.game_id, self.version, move))


_BUTTONS: dict[str, tuple[str, discord.ButtonStyle]] = {
    "resign": (_("Resign"), discord.ButtonStyle.danger),
    "side": (_("My side"), discord.ButtonStyle.secondary),  # the board from your side, for you alone
    "moves": (_("Moves"), discord.ButtonStyle.secondary),  # the whole move list so far, for you alone
    "draw": (_("Offer draw"), discord.ButtonStyle.secondary),
    "drawyes": (_("Accept draw"), discord.ButtonStyle.success),
    "drawno": (_("No draw"), discord.ButtonStyle.secondary),  # declines the offer, or withdraws your own
    "tbyes": (_("Allow takeback"), discord.ButtonStyle.success),
    "tbno": (_("No takeback"), discord.ButtonStyle.secondary),  # refuses the request, or withdraws your own
    "accept": (_("Accept"), discord.ButtonStyle.success),
    "decline": (_("Decline or withdraw"), discord.ButtonStyle.danger),  # the challenger withdraws with it
    "join": (_("Join"), discord.ButtonStyle.success),
    "leave": (_("Leave"), discord.ButtonStyle.secondary),
    "confirm": (_("Really resign?"), discord.ButtonStyle.danger),
    "cancel": (_("Cancel"), discord.ButtonStyle.secondary),
}


def _button(action: str, custom_id: str, row: int | None = None, lang: Language = ENGLISH) -> discord.ui.Button[Any]:
    label, style = _BUTTONS[action]
    return discord.ui.Button(label=lang.say(label), style=style, custom_id=custom_id, row=row)


class GameButton(
    _FromCustomId,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:b:(?P<action>{'|'.join(GAME_ACTIONS)}):{_GAME}:{_VERSION}",
):
    """Resign, offer a draw, or answer a draw or takeback offer."""

    def __init__(self, action: str, game_id: GameId, version: int, lang: Language = ENGLISH) -> None:
        super().__init__(_button(action, f"{PREFIX}:b:{action}:{game_id}:{version}", row=2, lang=lang))
        self.action, self.game_id, self.version = action, game_id, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_game_button(interaction, self.action, self.game_id, self.version))


class ChallengeButton(
    _FromCustomId,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:c:(?P<action>{'|'.join(CHALLENGE_ACTIONS)}):{_CHALLENGE}:{_VERSION}",
):
    """Accept or decline a challenge (the challenger's Decline withdraws it)."""

    def __init__(self, action: str, challenge_id: ChallengeId, version: int, lang: Language = ENGLISH) -> None:
        super().__init__(_button(action, f"{PREFIX}:c:{action}:{challenge_id}:{version}", lang=lang))
        self.action, self.challenge_id, self.version = action, challenge_id, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        args = (interaction, self.action, self.challenge_id, self.version)
        await dispatch(interaction, lambda h: h.on_challenge_button(*args))


class TournamentButton(
    _FromCustomId,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:t:(?P<action>{'|'.join(TOURNAMENT_ACTIONS)}):{_TOURNAMENT}",
):
    """Under a tournament's announcement: enter it, or leave it, while it is open."""

    def __init__(self, action: str, tournament_id: TournamentId, lang: Language = ENGLISH) -> None:
        super().__init__(_button(action, f"{PREFIX}:t:{action}:{tournament_id}", lang=lang))
        self.action, self.tournament_id = action, tournament_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch_tournament(interaction, self.action, self.tournament_id)


class ResignConfirm(
    _FromCustomId, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:r:{_GAME}:{_VERSION}"
):
    """The second step of resigning, on an ephemeral message only the player sees: "Really resign?"."""

    def __init__(self, game_id: GameId, version: int, lang: Language = ENGLISH) -> None:
        super().__init__(_button("confirm", f"{PREFIX}:r:{game_id}:{version}", lang=lang))
        self.game_id, self.version = game_id, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_resign_confirmed(interaction, self.game_id, self.version))


class ResignCancel(_FromCustomId, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:rc:{_GAME}"):
    """Beside "Really resign?": changed my mind, the game goes on."""

    def __init__(self, game_id: GameId, lang: Language = ENGLISH) -> None:
        super().__init__(_button("cancel", f"{PREFIX}:rc:{game_id}", lang=lang))
        self.game_id = game_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_resign_cancelled(interaction))


class AnalyseButton(_FromCustomId, discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:a:{_GAME}"):
    """Under a game's result: review the game (``/checkers analyse``), answered privately."""

    def __init__(self, game_id: GameId, lang: Language = ENGLISH) -> None:
        super().__init__(
            discord.ui.Button(
                label=lang._("Analyse"),
                emoji="🔎",
                style=discord.ButtonStyle.primary,
                custom_id=f"{PREFIX}:a:{game_id}",
            )
        )
        self.game_id = game_id

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_analyse(interaction, self.game_id))


class ReviewPage(
    _FromCustomId,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"{PREFIX}:rv:{_GAME}:(?P<page>[0-9]{{1,4}})",
):
    """Previous or Next under a review: shows page ``page`` (from 0) of its key moments."""

    def __init__(
        self, game_id: GameId, page: int, direction: str = "next", *, disabled: bool = False, lang: Language = ENGLISH
    ) -> None:
        label = lang._("◀ Previous") if direction == "previous" else lang._("Next ▶")
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label,
            style=discord.ButtonStyle.secondary,
            custom_id=f"{PREFIX}:rv:{game_id}:{page}",
            disabled=disabled,
        )
        super().__init__(button)
        self.game_id, self.page = game_id, page

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_review_page(interaction, self.game_id, self.page))


class DeleteMyData(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"{PREFIX}:privacy:(?P<user_id>[0-9]{{1,20}})"
):
    """``/checkers privacy``'s confirmation: delete the data of the user named in the ``custom_id`` (only they may
    click it)."""

    def __init__(self, user_id: UserId, lang: Language = ENGLISH) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=lang._("Delete my data"), style=discord.ButtonStyle.danger, custom_id=f"{PREFIX}:privacy:{user_id}"
        )
        super().__init__(button)
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(UserId(match["user_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, lambda h: h.on_delete_data(interaction, self.user_id))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    PieceSelect,
    MoveSelect,
    GameButton,
    ChallengeButton,
    TournamentButton,
    ResignConfirm,
    ResignCancel,
    AnalyseButton,
    ReviewPage,
    DeleteMyData,
)


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A throw-away View holding ``items``, for sending them."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def resign_controls(view: GameView, lang: Language = ENGLISH) -> discord.ui.View:
    return view_of(ResignConfirm(view.id, view.version, lang), ResignCancel(view.id, lang))


def result_controls(game_id: GameId, lang: Language = ENGLISH) -> discord.ui.View:
    """Under a game's result message."""
    return view_of(AnalyseButton(game_id, lang))


def challenge_controls(challenge: Challenge, lang: Language = ENGLISH) -> discord.ui.View:
    return view_of(*(ChallengeButton(action, challenge.id, challenge.version, lang) for action in CHALLENGE_ACTIONS))


def tournament_controls(tournament_id: TournamentId, lang: Language = ENGLISH) -> discord.ui.View:
    """Join and Leave, under an open tournament's announcement."""
    return view_of(*(TournamentButton(action, tournament_id, lang) for action in TOURNAMENT_ACTIONS))
