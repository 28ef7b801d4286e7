r"""Typed errors of the game service.

Each error's message is written for the player who caused it and is short enough for an ephemeral reply. It is a
message of the catalogue (:func:`bot.i18n._`): the English ``str``, with its message id and parameters, so a front end
says it in the player's language. Every error is raised before anything is stored, so a failed call changes nothing.

A move the rules refuse is the rules' own error, re-exported here: :class:`core.IllegalMoveError` (also for text that
is not a move or names a square off the board) and its subclass :class:`core.AmbiguousMoveError`, whose
``candidates`` list the full texts. They are :class:`core.RulesError`\ s, not :class:`ServiceError`\ s: a front end
shows ``str(error)`` of both kinds.
"""

from __future__ import annotations

from bot.i18n import Text, _
from core import AmbiguousMoveError, IllegalMoveError, RulesError

__all__ = [
    "AlreadyDoneError",
    "AlreadyPlayingError",
    "AmbiguousMoveError",
    "ChannelBusyError",
    "GameNotOverError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidRequestError",
    "LimitReachedError",
    "NoOfferError",
    "NotAPlayerError",
    "NotYourTurnError",
    "NothingToTakeBackError",
    "OtherGuildError",
    "PositionChangedError",
    "RateLimitedError",
    "RoomClosedError",
    "SelfChallengeError",
    "ServiceError",
    "StoreUnavailableError",
    "UnknownChallengeError",
    "UnknownGameError",
    "UnknownTournamentError",
    "creation_refused",
    "rules_text",
]


class ServiceError(Exception):
    """Base class of every error the game service raises on a request it refuses."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        """For the player, in English; a :class:`bot.i18n.Text` (from the catalogue) that a front end translates."""


class UnknownGameError(ServiceError):
    """No game has that id."""


class UnknownChallengeError(ServiceError):
    """No pending challenge has that id."""


class UnknownTournamentError(ServiceError):
    """No tournament has that id."""


class OtherGuildError(ServiceError):
    """The game or challenge belongs to another server."""


class NotAPlayerError(ServiceError):
    """A spectator (or an unrelated user) tried to act in a game or on a challenge."""


class NotYourTurnError(ServiceError):
    """A player tried to move while it is the other side's turn."""


class PositionChangedError(ServiceError):
    """The game changed between reading and writing (another move, a resignation, a timeout): look again."""

    def __init__(
        self, message: str = _("the position changed before your move arrived: look at the board again")
    ) -> None:
        super().__init__(message)


class GameOverError(ServiceError):
    """The game has already ended."""


class GameNotOverError(ServiceError):
    """A request that needs a finished game (a rematch) on a game still being played."""


class SelfChallengeError(ServiceError):
    """A user challenged themselves."""


class AlreadyPlayingError(ServiceError):
    """The channel already has an active game, or the two players already play each other."""


class ChannelBusyError(AlreadyPlayingError):
    """The channel already has an active game and holds one at a time (``ONE_GAME_PER_CHANNEL``): a front end may
    look the game up (:meth:`GameService.channel_games`) to say whose it is."""

    def __init__(self, message: str = _("this channel already has a game in progress")) -> None:
        super().__init__(message)


class RoomClosedError(ServiceError):
    """The channel is a game's room that was closed because its game did not start (see
    :meth:`GameService.close_room`): no game is started there any more."""

    def __init__(self, message: str = _("this thread is closed: start your game in the channel")) -> None:
        super().__init__(message)


class AlreadyDoneError(ServiceError):
    """The request (its idempotency key) was already handled, with another outcome: nothing more is done."""

    def __init__(self, message: str = _("that was already done: look at the board")) -> None:
        super().__init__(message)


class InvalidRequestError(ServiceError):
    """A bad option: unknown variant or level, bad FEN, turn time or thinking time out of range."""


class NoOfferError(ServiceError):
    """Accepting or declining a draw or takeback that nobody offered (or that you offered yourself)."""


class NothingToTakeBackError(ServiceError):
    """A takeback with no move of the requester's to undo."""


class LimitReachedError(ServiceError):
    """A new game or challenge would pass a limit (AI games per person, exhibitions per server, pending challenges
    per sender or per target); the message names the limit and what to do."""


class RateLimitedError(ServiceError):
    """Too many commands or clicks in a short time. ``retry_at`` (epoch seconds) is when the next one is taken;
    ``server`` is True when the server's shared limit, not the person's own, was reached."""

    def __init__(self, message: str, retry_at: float, *, server: bool = False) -> None:
        super().__init__(message)
        self.retry_at = retry_at
        self.server = server


class StoreUnavailableError(ServiceError):
    """The store could not be reached (Redis down, restarting or still loading its data) or kept failing. The request
    may be retried: a write whose reply was lost with the connection may have been applied, and a retry then finds the
    game changed (every write is guarded by a version), so nothing is applied twice."""

    def __init__(self, message: str = _("King Me cannot reach its storage; try again in a moment.")) -> None:
        super().__init__(message)


NOTHING_CHANGED = _("King Me could not reach its storage, so nothing was changed: try again.")
"""Said when a request's write is known not to have been made (see :mod:`bot.service._requests`)."""


def creation_refused(tag: str) -> ServiceError:
    """The refusal of a new game whose guarded write failed on ``tag`` (see :class:`bot.service.CommitConflict`)."""
    if tag == "channel":
        return ChannelBusyError()
    if tag == "pair":
        return AlreadyPlayingError(_("you two already have a game in progress"))
    if tag == "closed":
        return RoomClosedError()
    if tag == "request":
        return AlreadyDoneError()
    return PositionChangedError(_("the challenge changed meanwhile: look again"))


def rules_text(error: RulesError) -> Text:
    """A rules error as a message of the catalogue: its template is the message id (every template of
    :data:`core.MESSAGES` is in the catalogue) and its parameters fill it, a parameter that is itself a rules error said
    first. An error the bot raised with a message of its own (already a :class:`Text`) is that message."""
    if isinstance(error.template, Text) and not error.params:
        return error.template
    params = {k: rules_text(v) if isinstance(v, RulesError) else v for k, v in error.params.items()}
    return Text(error.template, params)
