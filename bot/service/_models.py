"""The game service's values: players, games, challenges, events, and their JSON form.

Games and challenges are frozen dataclasses; the service derives a new value for every change and stores it with a
version one higher. The JSON form keeps only plain types (colours as ``"black"``/``"white"``), so a stored game reads
back the same after a restart or in another process.
"""

from __future__ import annotations

import enum
import json
import secrets
from dataclasses import asdict, dataclass
from typing import Any

from bot.bounded import BoundedDict
from bot.service._ids import ChallengeId, ChannelId, GameId, GuildId, MessageId, UserId
from bot.service._places import Place
from core import Board, Color

AI_ID_PREFIX = "ai:"


def color_name(color: Color) -> str:
    return "black" if color is Color.BLACK else "white"


def parse_color(name: str) -> Color:
    return Color.BLACK if name == "black" else Color.WHITE


ID_LENGTH = 12


def new_id() -> str:
    """A fresh id for a game or a challenge (12 hex digits)."""
    return secrets.token_hex(ID_LENGTH // 2)


BOARDS_KEPT = 2048
"""Positions kept by :func:`replayed` (the most recently used)."""
_BOARDS: BoundedDict[tuple[str, str, tuple[str, ...]], Board] = BoundedDict(BOARDS_KEPT)


def replayed(initial_fen: str, variant: str, moves: tuple[str, ...]) -> Board:
    """The board after ``moves`` from ``initial_fen``, kept (never to be changed: callers copy it). A game's board is
    asked for at every click and render; replaying every move each time (each one parsed against the legal moves)
    was a sixth of the bot's CPU under load, so the board of the game a move before is reused when it is kept."""
    key = (initial_fen, variant, moves)
    board = _BOARDS.get(key)
    if board is None:
        before = _BOARDS.get((initial_fen, variant, moves[:-1])) if moves else None
        if before is not None:
            board = before.copy()
            board.push(board.parse_move(moves[-1]))
        else:
            board = Board(initial_fen, variant)
            for text in moves:
                board.push(board.parse_move(text))
        _BOARDS[key] = board
    return board


def is_ai_id(user_id: str) -> bool:
    """Whether ``user_id`` names an AI level (``ai:hard``), not a person."""
    return user_id.startswith(AI_ID_PREFIX)


def is_id(text: object) -> bool:
    """True for text shaped like an id of :func:`new_id`: a store builds keys only from such text, so an id a user
    typed can never name another key (``<id>:moves`` is no game)."""
    return isinstance(text, str) and len(text) == ID_LENGTH and all(c in "0123456789abcdef" for c in text)


@dataclass(frozen=True)
class User:
    """A person as the front end knows them: an id (Discord snowflake or any string) and a display name."""

    id: UserId
    name: str

    def __init__(self, id: str | int, name: str) -> None:
        object.__setattr__(self, "id", UserId(str(id)))
        object.__setattr__(self, "name", str(name))


@dataclass(frozen=True)
class PlayerRef:
    """One side of a game: a user, or an AI level (``level`` set, id ``ai:<level>``)."""

    id: UserId
    name: str
    level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.level is not None

    @classmethod
    def human(cls, user: User) -> PlayerRef:
        return cls(user.id, user.name)

    @classmethod
    def ai(cls, level: str) -> PlayerRef:
        return cls(UserId(AI_ID_PREFIX + level), f"AI ({level})", level)


class GameKind(enum.Enum):
    HUMAN = "human"
    """Two people."""
    AI = "ai"
    """A person against an AI level."""
    EXHIBITION = "exhibition"
    """Two AI levels, for watching."""


class Status(enum.Enum):
    ACTIVE = "active"
    FINISHED = "finished"


@dataclass(frozen=True)
class MessageRef:
    """Where a front end shows something (a game's board, a challenge): a channel (or thread) and a message id.

    It is presentation, stored beside the game or challenge (not in its versioned state), so recording it never makes
    a board's buttons outdated."""

    channel_id: ChannelId
    message_id: MessageId

    @classmethod
    def of(cls, channel_id: str | int, message_id: str | int) -> MessageRef:
        return cls(ChannelId(str(channel_id)), MessageId(str(message_id)))

    def to_json(self) -> str:
        return json.dumps({"channel_id": self.channel_id, "message_id": self.message_id}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes | None) -> MessageRef | None:
        if not text:
            return None
        data: dict[str, Any] = json.loads(text)
        return cls.of(data["channel_id"], data["message_id"])


@dataclass(frozen=True)
class RatingChange:
    """How one player's rating moved in one scope (``global`` or ``guild:<id>``) after a game."""

    user_id: UserId
    scope: str
    variant: str
    before: float
    after: float
    rd: float
    provisional: bool

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass(frozen=True)
class GameState:
    """Everything stored about one game. ``moves`` are PDN move texts (``pass`` where a blocked side passed)."""

    id: GameId
    guild_id: GuildId
    channel_id: ChannelId
    kind: GameKind
    variant: str
    initial_fen: str
    black: PlayerRef
    white: PlayerRef
    turn_time: float
    """Seconds each side has for one move."""
    created_at: float
    deadline: float
    """When the side to move loses on time (epoch seconds)."""
    version: int = 1
    moves: tuple[str, ...] = ()
    status: Status = Status.ACTIVE
    rated: bool = False
    unrated_reason: str | None = None
    ai_think_time: float | None = None
    draw_offer: str | None = None
    """``black``/``white``: the side that offered a draw that is still open."""
    takeback_offer: str | None = None
    """``black``/``white``: the side that asked to take its last move back."""
    takebacks: int = 0
    rematch_of: GameId | None = None
    updated_at: float = 0.0
    ended_at: float | None = None
    result: str | None = None
    """PDN result (``1-0`` Black won, ``0-1`` White won, ``1/2-1/2``)."""
    termination: str | None = None
    """A :class:`core.Termination` value."""
    winner: str | None = None
    end_text: str | None = None
    rating_changes: tuple[RatingChange, ...] = ()
    pdn: str | None = None
    board_message: MessageRef | None = None
    """The message showing the game's board, as the front end last recorded it (stored outside the state)."""
    place: Place = Place.SERVER
    """Where the game is played (records from before places were kept read as a server's)."""

    # -- derived --------------------------------------------------------------------------------------------------

    @property
    def is_active(self) -> bool:
        return self.status is Status.ACTIVE

    @property
    def turn(self) -> Color:
        """The side to move, without replaying the game: every stored move (a pass too) hands the turn over."""
        first = Color.BLACK if self.initial_fen[:1].upper() == "B" else Color.WHITE
        return first if len(self.moves) % 2 == 0 else first.opponent

    @property
    def awaiting_ai(self) -> bool:
        """True while the game is being played and an AI is to move."""
        return self.is_active and self.player(self.turn).is_ai

    def board(self) -> Board:
        """The board with every move played (the stored moves are trusted: they were legal when stored): a copy of
        the one kept for these moves, or of the one a move before with that move played (:data:`_BOARDS`)."""
        return replayed(self.initial_fen, self.variant, self.moves).copy()

    def player(self, color: Color) -> PlayerRef:
        return self.black if color is Color.BLACK else self.white

    def color_of(self, user_id: UserId) -> Color | None:
        """The side a user plays, or None for a spectator (a user playing both sides gets the side to move)."""
        if self.black.id == user_id and not self.black.is_ai:
            return Color.BLACK
        if self.white.id == user_id and not self.white.is_ai:
            return Color.WHITE
        return None

    def humans(self) -> tuple[PlayerRef, ...]:
        return tuple(p for p in (self.black, self.white) if not p.is_ai)

    # -- JSON -----------------------------------------------------------------------------------------------------

    def to_json(self) -> str:
        data = asdict(self)
        data["kind"] = self.kind.value
        data["status"] = self.status.value
        data["place"] = self.place.value
        data.pop("moves")  # stored as the game's move list
        data.pop("version")  # stored beside the state
        data.pop("board_message")  # stored beside the state
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(
        cls, text: str | bytes, moves: tuple[str, ...], version: int, board_message: MessageRef | None = None
    ) -> GameState:
        data: dict[str, Any] = json.loads(text)
        data.pop("board_message", None)
        data["kind"] = GameKind(data["kind"])
        data["status"] = Status(data["status"])
        data["place"] = Place(data.get("place", Place.SERVER.value))
        data["black"] = PlayerRef(**data["black"])
        data["white"] = PlayerRef(**data["white"])
        data["rating_changes"] = tuple(RatingChange(**r) for r in data["rating_changes"])
        return cls(**data, moves=moves, version=version, board_message=board_message)


class ChallengeStatus(enum.Enum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


@dataclass(frozen=True)
class Challenge:
    """A proposal of a game from one user to another (or to anyone in the channel when ``opponent`` is None)."""

    id: ChallengeId
    guild_id: GuildId
    channel_id: ChannelId
    challenger: PlayerRef
    opponent: PlayerRef | None
    variant: str
    turn_time: float
    color: str
    """The challenger's side: ``black``, ``white`` or ``random``."""
    created_at: float
    expires_at: float
    version: int = 1
    status: ChallengeStatus = ChallengeStatus.PENDING
    game_id: GameId | None = None
    rematch_of: GameId | None = None
    fen: str | None = None
    """The position to start from (a normalised FEN), or None for the variant's start; such a game is unrated."""
    message: MessageRef | None = None
    """The message showing the challenge, as the front end recorded it (stored outside the state)."""
    place: Place = Place.SERVER
    """Where the challenge was made (its game is played there)."""

    @property
    def is_pending(self) -> bool:
        return self.status is ChallengeStatus.PENDING

    def to_json(self) -> str:
        data = asdict(self)
        data["status"] = self.status.value
        data["place"] = self.place.value
        data.pop("version")
        data.pop("message")
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes, version: int, message: MessageRef | None = None) -> Challenge:
        data: dict[str, Any] = json.loads(text)
        data.pop("message", None)
        data["status"] = ChallengeStatus(data["status"])
        data["place"] = Place(data.get("place", Place.SERVER.value))
        data["challenger"] = PlayerRef(**data["challenger"])
        data["opponent"] = PlayerRef(**data["opponent"]) if data["opponent"] else None
        return cls(**data, version=version, message=message)


@dataclass(frozen=True)
class GameView:
    """A game as the front end shows it: the stored state plus what the board says about it now."""

    game: GameState
    fen: str
    turn: Color
    to_move: PlayerRef
    legal_moves: tuple[str, ...]
    """Legal move texts in a stable order; a front end may send an index into this tuple with the ``version``."""
    seconds_left: float
    """Seconds until the side to move loses on time (0 for a finished game)."""
    ascii: str

    @property
    def id(self) -> GameId:
        return self.game.id

    @property
    def version(self) -> int:
        return self.game.version

    @classmethod
    def of(cls, game: GameState, now: float, board: Board | None = None) -> GameView:
        board = board if board is not None else game.board()
        active = game.is_active
        return cls(
            game=game,
            fen=board.fen(),
            turn=board.turn,
            to_move=game.player(board.turn),
            legal_moves=tuple(m.text() for m in board.legal_moves) if active else (),
            seconds_left=max(0.0, game.deadline - now) if active else 0.0,
            ascii=board.ascii(),
        )


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating with the player's record in one scope and variant."""

    rating: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0


@dataclass(frozen=True)
class LeaderboardEntry:
    rank: int
    user_id: str
    name: str
    rating: float
    rd: float
    provisional: bool
    games: int


@dataclass(frozen=True)
class PlayerStats:
    user_id: str
    name: str
    variant: str
    scope: str
    rating: Rating
    provisional: bool
    rank: int | None
    """1-based place on the scope's leaderboard, or None when not on it."""
    versus_bot: dict[str, tuple[int, int, int]]
    """Per AI level: (wins, losses, draws) of the player against it."""
