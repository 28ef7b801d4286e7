"""Challenges: a proposal of a game from one user to another (or to anyone in a channel), until it is accepted,
declined, cancelled or expires. The game an accepted challenge starts is created by the service's pipeline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Protocol

from bot.i18n import _
from bot.service import _options
from bot.service._errors import (
    AlreadyDoneError,
    AlreadyPlayingError,
    ChannelBusyError,
    NotAPlayerError,
    OtherGuildError,
    PositionChangedError,
    SelfChallengeError,
    ServiceError,
    UnknownChallengeError,
)
from bot.service._events import (
    ChallengeAccepted,
    ChallengeCancelled,
    ChallengeCreated,
    ChallengeDeclined,
    ChallengeEvent,
    ChallengeExpired,
    Result,
)
from bot.service._ids import ChallengeId, ChannelId, GameId, GuildId, RequestId, UserId
from bot.service._limits import limit_reached, quotas
from bot.service._models import (
    Challenge,
    ChallengeStatus,
    GameKind,
    MessageRef,
    PlayerRef,
    User,
    new_id,
)
from bot.service._places import Place
from bot.service._ports import ChallengeRecords, CommitConflict, GameRecords, RatingRecords
from bot.service._requests import once
from bot.service._transitions import Step, new_game
from bot.settings import Settings
from core import get_variant

_CLOSED_KINDS: dict[ChallengeStatus, type[ChallengeEvent]] = {
    ChallengeStatus.DECLINED: ChallengeDeclined,
    ChallengeStatus.CANCELLED: ChallengeCancelled,
    ChallengeStatus.EXPIRED: ChallengeExpired,
}


def challenge_event(
    kind: type[ChallengeEvent], text: str, challenge: Challenge, game_id: GameId | None = None
) -> ChallengeEvent:
    """An event about ``challenge``, with its guild and channel so a front end can show it anywhere, any time."""
    return kind(text, game_id, challenge_id=challenge.id, guild_id=challenge.guild_id, channel_id=challenge.channel_id)


def accepted_game(
    challenge: Challenge, user: User, side: str, channel_id: ChannelId, now: float
) -> tuple[Step, Challenge]:
    """The game that ``user`` starts by accepting ``challenge`` with the challenger on ``side`` (its first step, the
    acceptance event first), and the challenge as it is closed by it."""
    me = PlayerRef.human(user)
    black, white = (challenge.challenger, me) if side == "black" else (me, challenge.challenger)
    step = new_game(
        GameId(new_id()),
        GameKind.HUMAN,
        challenge.guild_id,
        channel_id,
        _options.position(challenge.variant, challenge.fen),
        black,
        white,
        challenge.turn_time,
        now,
        rated=challenge.fen is None,
        unrated_reason=_("from a set-up position") if challenge.fen else None,
        rematch_of=challenge.rematch_of,
        place=challenge.place,
    )
    accepted = challenge_event(ChallengeAccepted, f"{user.name} accepted", challenge, step.after.id)
    closed = replace(challenge, version=challenge.version + 1, status=ChallengeStatus.ACCEPTED, game_id=step.after.id)
    return Step(step.after, [accepted, *step.events]), closed


class ChallengeStore(GameRecords, ChallengeRecords, RatingRecords, Protocol):
    """The ports challenges use: games (a challenge's answer opens one), challenges, and the players' names."""


class Challenges:
    """The challenges of King Me, in the store; each change is one guarded write.

    Args:
        store: where challenges live.
        settings: the challenge TTL, turn times, the one-game-per-channel rule and the pending-challenge limits.
        clock: the time in epoch seconds.
    """

    def __init__(self, store: ChallengeStore, settings: Settings, clock: Callable[[], float]) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        self._quotas = quotas(settings)

    async def create(
        self,
        guild: GuildId,
        channel: ChannelId,
        challenger: User,
        opponent: User | None,
        variant: str,
        turn_time: float | None,
        color: str,
        fen: str | None,
        rematch_of: GameId | None,
        own_room: bool = False,
        request: RequestId | None = None,
        place: Place = Place.SERVER,
    ) -> Result:
        """See :meth:`bot.service.GameService.challenge`."""
        variant_name = _options.variant_name(variant)
        seconds = _options.turn_time_of(self._settings, turn_time)
        position = _options.position(variant_name, fen).initial_fen if fen else None
        _options.color_choice(color)
        if opponent is not None and opponent.id == challenger.id:
            raise SelfChallengeError(_("you cannot challenge yourself: pick another player or play the AI"))
        await self._check_free(guild, None if own_room else channel, challenger, opponent)
        now = self._clock()
        challenge = Challenge(
            id=ChallengeId(new_id()),
            guild_id=guild,
            channel_id=channel,
            challenger=PlayerRef.human(challenger),
            opponent=PlayerRef.human(opponent) if opponent is not None else None,
            variant=variant_name,
            turn_time=seconds,
            color=color,
            created_at=now,
            expires_at=now + self._settings.challenge_ttl,
            rematch_of=rematch_of,
            fen=position,
            place=place,
        )
        try:
            await once(
                self._store, request, challenge, partial(self._store.save_challenge, None, challenge, self._quotas)
            )
        except CommitConflict as exc:
            if exc.tag == "request":
                raise AlreadyDoneError() from None
            refusal = limit_reached(exc.tag, self._settings, opponent.name if opponent is not None else "they")
            if refusal is None:
                raise
            raise refusal from None
        await self._store.set_names({u.id: u.name for u in (challenger, opponent) if u is not None})
        whom = opponent.name if opponent is not None else "anyone"
        where = " from a set-up position" if position else ""
        text = f"{challenger.name} challenges {whom} to {get_variant(variant_name).title}{where}"
        return Result((challenge_event(ChallengeCreated, text, challenge),), challenge=challenge)

    async def get(self, challenge_id: ChallengeId, guild_id: GuildId | None = None) -> Challenge:
        """A challenge in any state, with where it is shown."""
        challenge = await self._store.load_challenge(challenge_id) if challenge_id else None
        if challenge is None:
            raise UnknownChallengeError(_("there is no such challenge"))
        if guild_id is not None and challenge.guild_id != guild_id:
            raise OtherGuildError(_("that challenge belongs to another server"))
        return challenge

    async def set_message(self, challenge_id: ChallengeId, where: MessageRef) -> None:
        try:
            await self._store.set_challenge_message(challenge_id, where)
        except CommitConflict:
            raise UnknownChallengeError(_("there is no such challenge")) from None

    async def check_accept(self, challenge_id: ChallengeId, guild_id: GuildId, user: User) -> Challenge:
        """The challenge if ``user`` may accept it now; raises the reason otherwise."""
        challenge = await self._open(challenge_id, guild_id)
        if user.id == challenge.challenger.id:
            raise SelfChallengeError(_("you cannot accept your own challenge"))
        if challenge.opponent is not None and challenge.opponent.id != user.id:
            raise NotAPlayerError(_("this challenge is for {name}", name=challenge.opponent.name))
        if self._clock() >= challenge.expires_at:
            raise UnknownChallengeError(_("that challenge has expired"))
        return challenge

    async def decline(
        self, challenge_id: ChallengeId, guild_id: GuildId, user: User, request: RequestId | None = None
    ) -> Result:
        challenge = await self._open(challenge_id, guild_id)
        if challenge.opponent is None or challenge.opponent.id != user.id:
            raise NotAPlayerError(_("only the challenged player can decline; the challenger can cancel"))
        return await self._close(
            challenge, ChallengeStatus.DECLINED, _("{name} declined the challenge", name=user.name), request
        )

    async def cancel(
        self, challenge_id: ChallengeId, guild_id: GuildId, user: User, request: RequestId | None = None
    ) -> Result:
        challenge = await self._open(challenge_id, guild_id)
        if challenge.challenger.id != user.id:
            raise NotAPlayerError(_("only the challenger can cancel this challenge"))
        return await self._close(
            challenge, ChallengeStatus.CANCELLED, _("{name} cancelled the challenge", name=user.name), request
        )

    async def of_user(self, user_id: UserId) -> list[Challenge]:
        """A user's pending challenges, sent or received."""
        found = [await self._store.load_challenge(cid) for cid in await self._store.user_challenges(user_id)]
        return [c for c in found if c is not None and c.is_pending]

    async def expire_due(self, now: float, limit: int) -> list[Result]:
        """Expire the pending challenges whose time is up (each once, whoever else expires them meanwhile)."""
        results: list[Result] = []
        for challenge_id in await self._store.due_challenges(now, limit):
            challenge = await self._store.load_challenge(challenge_id)
            if challenge is None or not challenge.is_pending or challenge.expires_at > now:
                continue
            try:
                results.append(await self._close(challenge, ChallengeStatus.EXPIRED, "the challenge expired"))
            except ServiceError:
                continue
        return results

    async def _open(self, challenge_id: ChallengeId, guild_id: GuildId) -> Challenge:
        challenge = await self.get(challenge_id, guild_id)
        if not challenge.is_pending:
            raise UnknownChallengeError(_("that challenge is no longer open ({status})", status=challenge.status.value))
        return challenge

    async def _close(
        self, challenge: Challenge, status: ChallengeStatus, text: str, request: RequestId | None = None
    ) -> Result:
        closed = replace(challenge, version=challenge.version + 1, status=status)
        try:
            await once(self._store, request, closed, lambda r: self._store.save_challenge(challenge, closed, request=r))
        except CommitConflict as exc:
            if exc.tag == "request":
                raise AlreadyDoneError() from None
            raise PositionChangedError(_("the challenge changed meanwhile: look again")) from None
        return Result((challenge_event(_CLOSED_KINDS[status], text, closed),), challenge=closed)

    async def _check_free(
        self, guild: GuildId, channel: ChannelId | None, challenger: User, opponent: User | None
    ) -> None:
        """Refuse early (the atomic check is at the game's creation) when the channel or the pair is busy; with no
        ``channel`` (the game will get a room of its own) only the pair is checked."""
        if (
            channel is not None
            and self._settings.one_game_per_channel
            and await self._store.channel_games(guild, channel)
        ):
            raise ChannelBusyError()
        if opponent is not None:
            theirs = set(await self._store.user_games(opponent.id))
            for game in await self._store.load_games(await self._store.user_games(challenger.id)):
                if game.id in theirs and game.kind is GameKind.HUMAN:
                    raise AlreadyPlayingError(_("you and {name} already have a game in progress", name=opponent.name))
