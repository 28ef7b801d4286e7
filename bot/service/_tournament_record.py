"""A tournament as the service keeps it: the pure :class:`~bot.service._tournament_model.Tournament` (entrants, rounds,
results) with what running it needs: where it is played, who made it, its settings, its state, the names of its
players and the game of each board of each round.

Stored as one JSON document with a version (:class:`~bot.service._ports.TournamentRecords`): every change is a
compare-and-set on that version, so two processes never pair a round twice.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.service._ids import ChannelId, GameId, GuildId, TournamentId, UserId
from bot.service._models import MessageRef
from bot.service._tournament_model import (
    MatchKind,
    Tournament,
    TournamentError,
    TournamentFormat,
    TournamentRecordError,
)

MIN_PLAYERS, MAX_PLAYERS = 2, 256
MAX_ROUNDS = 20
"""Most rounds a Swiss may have (a round robin has one fewer than its players)."""
MAX_WAIT = 30 * 86400.0
"""The furthest ahead a tournament may be set to start."""
ARENA_MINUTES = (5, 240)
"""The shortest and the longest arena, in minutes."""


class TournamentStatus(enum.Enum):
    OPEN = "open"
    """Taking entries; not started."""
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def live(self) -> bool:
        """Open or running: it holds its channel and its players."""
        return self in (TournamentStatus.OPEN, TournamentStatus.RUNNING)


@dataclass(frozen=True)
class BoardGame:
    """The game of one board of one round: ``game`` (0 or 1: the second game of a ballot match) of ``board``."""

    round: int
    board: int
    game: int
    game_id: GameId


@dataclass(frozen=True)
class TournamentRecord:
    """Everything kept about one tournament (see the module)."""

    id: TournamentId
    guild_id: GuildId
    channel_id: ChannelId
    creator: UserId
    name: str
    variant: str
    turn_time: float
    rated: bool
    rounds_planned: int
    """The Swiss's rounds; a round robin's (one fewer than its players, fixed at the start)."""
    max_players: int
    ai_allowed: bool
    created_at: float
    model: Tournament
    status: TournamentStatus = TournamentStatus.OPEN
    version: int = 0
    """The stored version this record was read at (0: not stored yet)."""
    names: Mapping[UserId, str] = field(default_factory=dict)
    """Each entrant's name as shown (a person's display name when they joined, ``AI (hard)`` for a level)."""
    games: tuple[BoardGame, ...] = ()
    started_at: float | None = None
    ended_at: float | None = None
    duration: float = 0.0
    """An arena's length in seconds (0 for the other formats)."""
    starts_at: float | None = None
    """When the sweeper starts it (None: when its creator does)."""
    message: MessageRef | None = None
    """The announcement (with its Join button), as the front end recorded it."""

    # -- derived --------------------------------------------------------------------------------------------------

    @property
    def format(self) -> TournamentFormat:
        return self.model.format

    @property
    def match(self) -> MatchKind:
        return self.model.match

    @property
    def entrants(self) -> tuple[UserId, ...]:
        return tuple(e.id for e in self.model.players)

    @property
    def round(self) -> int:
        """The round being played (0 before the start)."""
        return len(self.model.rounds)

    @property
    def ends_at(self) -> float:
        """When an arena stops pairing (its start plus its duration)."""
        return (self.started_at or self.created_at) + self.duration

    def name_of(self, player: UserId) -> str:
        return self.names.get(player, str(player))

    def games_of_round(self, number: int) -> tuple[BoardGame, ...]:
        return tuple(g for g in self.games if g.round == number)

    def board_of(self, game_id: GameId) -> BoardGame | None:
        return next((g for g in self.games if g.game_id == game_id), None)

    # -- JSON -----------------------------------------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(
            {
                "id": self.id,
                "guild": self.guild_id,
                "channel": self.channel_id,
                "creator": self.creator,
                "name": self.name,
                "variant": self.variant,
                "turn_time": self.turn_time,
                "rated": self.rated,
                "rounds": self.rounds_planned,
                "max_players": self.max_players,
                "ai": self.ai_allowed,
                "created_at": self.created_at,
                "status": self.status.value,
                "names": dict(self.names),
                "games": [[g.round, g.board, g.game, g.game_id] for g in self.games],
                "started_at": self.started_at,
                "ended_at": self.ended_at,
                "duration": self.duration,
                "starts_at": self.starts_at,
                "message": self.message.to_json() if self.message else None,
                "model": json.loads(self.model.to_json()),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes, version: int = 0) -> TournamentRecord:
        """Raises :class:`TournamentRecordError` when ``text`` is no tournament record."""
        try:
            data = json.loads(text)
            message = data["message"]
            return cls(
                id=TournamentId(str(data["id"])),
                guild_id=GuildId(str(data["guild"])),
                channel_id=ChannelId(str(data["channel"])),
                creator=UserId(str(data["creator"])),
                name=str(data["name"]),
                variant=str(data["variant"]),
                turn_time=float(data["turn_time"]),
                rated=bool(data["rated"]),
                rounds_planned=int(data["rounds"]),
                max_players=int(data["max_players"]),
                ai_allowed=bool(data["ai"]),
                created_at=float(data["created_at"]),
                model=Tournament.from_json(json.dumps(data["model"])),
                status=TournamentStatus(data["status"]),
                version=version,
                names={UserId(str(k)): str(v) for k, v in dict(data["names"]).items()},
                games=tuple(BoardGame(int(r), int(b), int(g), GameId(str(i))) for r, b, g, i in data["games"]),
                started_at=None if data["started_at"] is None else float(data["started_at"]),
                ended_at=None if data["ended_at"] is None else float(data["ended_at"]),
                duration=float(data.get("duration", 0.0)),
                starts_at=None if data.get("starts_at") is None else float(data["starts_at"]),
                message=MessageRef.from_json(message) if message else None,
            )
        except TournamentError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise TournamentRecordError(f"not a tournament record: {exc!r}") from None
