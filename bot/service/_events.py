"""What the service tells its front ends and observers: one frozen dataclass per kind of event.

A sink matches events by type (``isinstance(event, MovePlayed)`` or a ``match`` on the class) and reads their typed
fields; none of them parses :attr:`Event.text`, which is only the sentence shown to people.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.service._ids import ChallengeId, ChannelId, GameId, GuildId, TournamentId, UserId
from bot.service._models import Challenge, GameView, RatingChange


@dataclass(frozen=True)
class Event:
    """Something for the front end to show: a sentence for people, and the game it is about (if any)."""

    text: str
    game_id: GameId | None = None


# -- challenges ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChallengeEvent(Event):
    """An event about a challenge, with where it is shown, so a front end can show it after a restart."""

    challenge_id: ChallengeId
    guild_id: GuildId | None = None
    channel_id: ChannelId | None = None


@dataclass(frozen=True, kw_only=True)
class ChallengeCreated(ChallengeEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class ChallengeAccepted(ChallengeEvent):
    """The challenge was accepted: :attr:`game_id` is the game it started."""


@dataclass(frozen=True, kw_only=True)
class ChallengeDeclined(ChallengeEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class ChallengeCancelled(ChallengeEvent):
    pass


@dataclass(frozen=True, kw_only=True)
class ChallengeExpired(ChallengeEvent):
    pass


# -- games ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameStarted(Event):
    pass


@dataclass(frozen=True, kw_only=True)
class MovePlayed(Event):
    move: str
    """The move's text."""
    color: str
    """The mover's colour ("black" or "white")."""
    ai: bool
    """Whether the mover is an AI."""


@dataclass(frozen=True)
class Passed(Event):
    """A blocked side passed (in the variants where a side passes)."""


@dataclass(frozen=True)
class AiThinking(Event):
    pass


@dataclass(frozen=True)
class AiFailed(Event):
    """The AI could not choose a move, for good or for now (:attr:`text` says which)."""


@dataclass(frozen=True)
class DrawOffered(Event):
    pass


@dataclass(frozen=True, kw_only=True)
class DrawDeclined(Event):
    to: UserId
    """Who offered the draw (the one the answer is for)."""


@dataclass(frozen=True)
class DrawWithdrawn(Event):
    """The player who offered a draw took the offer back."""


@dataclass(frozen=True)
class TakebackRequested(Event):
    pass


@dataclass(frozen=True, kw_only=True)
class TakebackDeclined(Event):
    to: UserId
    """Who asked for the takeback."""


@dataclass(frozen=True)
class TakebackWithdrawn(Event):
    """The player who asked for a takeback took the request back."""


@dataclass(frozen=True, kw_only=True)
class TakebackDone(Event):
    plies: int
    """How many plies were taken back."""
    to: UserId | None = None
    """Who asked for it, when an opponent agreed to it (None against the AI, where it is done at once)."""


@dataclass(frozen=True, kw_only=True)
class GameOver(Event):
    result: str | None
    """The PDN result ("1-0", "0-1", "1/2-1/2")."""
    termination: str | None
    """Why it ended (a :class:`core.Termination` value)."""
    winner: str | None
    """The winner's colour, or None for a draw."""


@dataclass(frozen=True, kw_only=True)
class RatingChanged(Event):
    change: RatingChange


# -- tournaments ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TournamentEvent(Event):
    """An event of a tournament, with where it is played, so a front end can show it after a restart."""

    tournament_id: TournamentId
    guild_id: GuildId
    channel_id: ChannelId


@dataclass(frozen=True, kw_only=True)
class RoundStarted(TournamentEvent):
    """A round is paired and its games are open (round 1 at the start)."""

    round: int
    games: tuple[GameId, ...]


@dataclass(frozen=True, kw_only=True)
class TournamentFinished(TournamentEvent):
    """The last round ended (or the tournament was cancelled): the standings are final."""

    cancelled: bool = False


@dataclass(frozen=True)
class Result:
    """What a service call returns: the game (or challenge) after the call and the events to show."""

    events: tuple[Event, ...] = ()
    game: GameView | None = None
    challenge: Challenge | None = None
