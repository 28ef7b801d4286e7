"""What may be done to a tournament, and the refusals: entries while it is open, the creator's (or a manager's)
commands, the bounds on its players, and the store's refusals said to the person who asked."""

from __future__ import annotations

import dataclasses

from bot.i18n import _
from bot.service._errors import (
    AlreadyPlayingError,
    InvalidRequestError,
    LimitReachedError,
    NotAPlayerError,
    ServiceError,
)
from bot.service._ids import UserId
from bot.service._models import User
from bot.service._tournament_model import Entrant
from bot.service._tournament_record import TournamentRecord, TournamentStatus
from bot.settings import Settings


def entered(record: TournamentRecord, entrant: Entrant, name: str) -> TournamentRecord:
    if len(record.entrants) >= record.max_players:
        raise LimitReachedError(_("the tournament is full ({count} players)", count=record.max_players))
    model = dataclasses.replace(record.model, players=(*record.model.players, entrant))
    return dataclasses.replace(record, model=model, names={**record.names, entrant.id: name})


def check_open(record: TournamentRecord) -> None:
    if record.status is not TournamentStatus.OPEN:
        over = _("the tournament has started already") if record.status.live else _("the tournament is over")
        raise InvalidRequestError(over)


def check_creator(record: TournamentRecord, user: User, manager: bool = False) -> None:
    if UserId(user.id) != record.creator and not manager:
        raise NotAPlayerError(_("only the tournament's creator or a server manager can do that"))


def refusal(tag: str, settings: Settings) -> ServiceError:
    if tag == "channel":
        return AlreadyPlayingError(_("this channel has a tournament already"))
    if tag == "guild":
        return LimitReachedError(
            _("this server has {count} tournaments already", count=settings.tournaments_per_guild)
        )
    if tag == "player":
        return AlreadyPlayingError(_("you are entered in another tournament"))
    return busy()


def busy() -> ServiceError:
    return InvalidRequestError(_("the tournament kept changing; try again"))
