"""What King Me keeps about a person, and its erasure on their request (``/checkers privacy``).

Kept under a user's id: their display name, the indexes of their games and challenges, their finished games (with
their name in them), ratings, leaderboard places and versus-the-bot records per server and variant, and the daily
counts of rated games with each opponent. Erasure deletes every record that is theirs alone and anonymises the games
they played: their side becomes :data:`DELETED_NAME` (id :data:`DELETED_ID`) in the state, the rating changes and
the PDN, so each game stays whole for the other player (their history, the replay page and the PDN still read). A
person with a game in progress or a pending challenge is asked to end those first: a game cannot lose a player midway.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Protocol

from bot.i18n import _
from bot.service._errors import InvalidRequestError, PositionChangedError, ServiceError
from bot.service._ids import GameId, GuildId, UserId
from bot.service._models import GameState, PlayerRef, Rating
from bot.service._pdn import game_pdn
from bot.service._ports import ChallengeRecords, CommitConflict, ErasureRecords, GameRecords, RatingRecords
from bot.service._standings import GLOBAL_SCOPE, guild_scope, season_scope
from core import VARIANTS

log = logging.getLogger(__name__)

DELETED_NAME = "Deleted player"
DELETED_ID = UserId("deleted")
"""The id of an erased player in their former games: no Discord id looks like it, so it names nobody."""
_BATCH = 100
_ATTEMPTS = 3
_PAIR_DAY_WINDOW = 3 * 86400.0
"""Games that ended this recently may still have a pair's daily count (they expire after two days)."""
_CHANGED = _("your games kept changing while they were being anonymised; try again")


@dataclass(frozen=True)
class PersonalData:
    """A summary of what King Me stores about one user."""

    user_id: UserId
    name: str | None
    """The display name kept for leaderboards, or None."""
    active_games: int
    pending_challenges: int
    finished_games: int
    ratings: tuple[tuple[str, str, Rating], ...]
    """(scope, variant, rating) of every ladder the user has a rating on."""
    bot_records: int
    """Ladders (scope and variant) with a record against the AI."""
    puzzles: int = 0
    """Puzzles given to the user (with their puzzle rating, votes, own puzzles and daily results)."""

    @property
    def empty(self) -> bool:
        shown = (self.name, self.active_games, self.pending_challenges, self.finished_games, self.ratings)
        return not any(shown) and not self.bot_records and not self.puzzles


@dataclass(frozen=True)
class Erasure:
    """What an erasure did."""

    games_anonymised: int
    ratings_removed: int
    games: tuple[GameId, ...] = ()
    """The games anonymised, for a front end to tidy what it showed of them (their boards, threads, results)."""
    name: str | None = None
    """The name the person had (as the store knew it), which the front end's old messages may still show."""


def anonymised(game: GameState, user_id: UserId) -> GameState:
    """``game`` with ``user_id``'s side renamed :data:`DELETED_NAME` everywhere it is written, one version later."""
    gone = PlayerRef(DELETED_ID, DELETED_NAME)

    def side(player: PlayerRef) -> PlayerRef:
        return gone if player.id == user_id and not player.is_ai else player

    changes = tuple(replace(c, user_id=DELETED_ID) if c.user_id == user_id else c for c in game.rating_changes)
    black, white = side(game.black), side(game.white)
    after = replace(game, version=game.version + 1, black=black, white=white, rating_changes=changes)
    return replace(after, pdn=game_pdn(after)) if game.pdn is not None else after


def _erase_refused(why: str) -> ServiceError:
    """The refusal of an erasure: the user has a game in progress (``games``) or a pending challenge
    (``challenges``), or a game of theirs ended while the others were anonymised."""
    if why == "games":
        return InvalidRequestError(_("you have a game in progress: finish or resign it first, then delete your data"))
    if why == "challenges":
        return InvalidRequestError(_("you have a pending challenge: cancel it or let it expire, then delete your data"))
    return PositionChangedError(_CHANGED)


class PrivacyStore(GameRecords, ChallengeRecords, RatingRecords, ErasureRecords, Protocol):
    """The ports a person's data is read and erased through."""


class Privacy:
    """Reads and erases a user's data in the store."""

    def __init__(self, store: PrivacyStore, clock: Callable[[], float]) -> None:
        self._store = store
        self._clock = clock

    async def report(self, user_id: UserId) -> PersonalData:
        """What is stored about ``user_id``."""
        history = await self._store.history(user_id, 1 << 30)
        keys = [(scope, variant, user_id) for scope in await self._scopes(user_id) for variant in VARIANTS]
        rated = [(s, v, r) for (s, v, _), r in zip(keys, await self._store.read_ratings(keys), strict=True) if r.games]
        records = [await self._store.bot_record(scope, variant, user_id) for scope, variant, _ in keys]
        return PersonalData(
            user_id=user_id,
            name=(await self._store.names([user_id])).get(user_id),
            active_games=len(await self._store.user_games(user_id)),
            pending_challenges=len(await self._store.user_challenges(user_id)),
            finished_games=len(history),
            ratings=tuple(rated),
            bot_records=sum(1 for record in records if record),
        )

    async def erase(self, user_id: UserId) -> Erasure:
        """Anonymise the user's finished games and delete everything else kept under their id."""
        data = await self.report(user_id)
        if data.active_games:
            raise _erase_refused("games")
        if data.pending_challenges:
            raise _erase_refused("challenges")
        history = await self._store.history(user_id, 1 << 30)
        recent = self._clock() - _PAIR_DAY_WINDOW
        pair_days: list[tuple[str, str]] = []
        guilds: set[GuildId] = set()  # where their ratings are, also for games finished before the guild index existed
        count, anonymised_ids = 0, []
        for start in range(0, len(history), _BATCH):
            for game in await self._store.load_games(history[start : start + _BATCH]):
                guilds.add(game.guild_id)
                others = [p.id for p in game.humans() if p.id != user_id]
                if others and game.ended_at is not None and game.ended_at >= recent:
                    pair_days.append((others[0], time.strftime("%Y%m%d", time.gmtime(game.ended_at))))
                if await self._anonymise(game, user_id):
                    count += 1
                    anonymised_ids.append(game.id)
        scopes = await self._scopes(user_id, guilds)
        try:
            await self._store.erase_user(user_id, scopes, tuple(VARIANTS), pair_days, finished=len(history))
        except CommitConflict as exc:  # a game or challenge began, or a game ended, since the checks above
            raise _erase_refused(exc.tag) from None
        return Erasure(count, len(data.ratings), tuple(anonymised_ids), data.name)

    async def delete_finished(self, ended_before: float, limit: int) -> int:
        """Delete up to ``limit`` finished games that ended before ``ended_before`` (``GAME_RETENTION_DAYS``); a game
        that changed meanwhile (an erasure renamed a player) waits for the next sweep. Returns how many went."""
        deleted = 0
        for game in await self._store.load_games(await self._store.finished_before(ended_before, limit)):
            try:
                await self._store.delete_finished_game(game)
            except CommitConflict:
                continue
            deleted += 1
        return deleted

    async def _anonymise(self, game: GameState, user_id: UserId) -> int:
        """Rename the user in one finished game (read again if it changed meanwhile); 1 if it was theirs."""
        for _attempt in range(_ATTEMPTS):
            if game.color_of(user_id) is None:
                return 0
            try:
                await self._store.rewrite_finished_game(game, anonymised(game, user_id))
                return 1
            except CommitConflict:
                fresh = await self._store.load_game(game.id)
                if fresh is None:
                    return 0
                game = fresh
        raise PositionChangedError(_CHANGED)

    async def _scopes(self, user_id: UserId, more_guilds: Iterable[GuildId] = ()) -> list[str]:
        """The ladders the user may be on: everyone's and those of the servers they finished games in."""
        guilds = sorted(set(await self._store.user_guilds(user_id)) | set(more_guilds))
        seasons = [season_scope(g, n) for g in guilds for n in range(1, await self._store.current_season(g) + 1)]
        return [GLOBAL_SCOPE, *(guild_scope(g) for g in guilds), *seasons]


@dataclass(frozen=True)
class Tidying:
    """After an erasure, the games whose posts (boards, results, pings, thread names) a front end still has to edit,
    and the names to take out of them. Kept in the store until done, so a restart resumes it; the names are the
    person's only trace left, and go with the record."""

    user_id: UserId
    games: tuple[GameId, ...]
    names: tuple[str, ...]

    def dumps(self) -> str:
        return json.dumps({"games": list(self.games), "names": list(self.names)})

    @classmethod
    def loads(cls, user_id: UserId, text: str) -> Tidying:
        """Raises ValueError when ``text`` is no such record."""
        try:
            data = json.loads(text)
            games, names = data["games"], data["names"]
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"not a tidying record: {exc}") from None
        if not isinstance(games, list) or not isinstance(names, list):
            raise ValueError("not a tidying record: games and names are lists")
        return cls(user_id, tuple(GameId(str(g)) for g in games), tuple(str(n) for n in names))


class Tidyings:
    """The erasures whose posts are still being edited, resumable by any process of the bot (one at a time: a lease
    per person)."""

    def __init__(self, store: ErasureRecords) -> None:
        self._store = store

    async def start(self, user_id: UserId, games: Iterable[GameId], names: Iterable[str]) -> Tidying:
        tidying = Tidying(user_id, tuple(games), tuple(sorted({n for n in names if n and n != DELETED_NAME})))
        await self._store.save_tidying(user_id, tidying.dumps())
        return tidying

    async def pending(self) -> list[Tidying]:
        """Every erasure with posts left to edit; an unreadable record is logged and dropped (it cannot be resumed)."""
        found = []
        for user_id, text in (await self._store.tidying_records()).items():
            try:
                found.append(Tidying.loads(user_id, text))
            except ValueError as exc:
                log.warning("dropped the unreadable tidying record of user %s: %s", user_id, exc)
                await self._store.drop_tidying(user_id)
        return found

    async def done_with(self, tidying: Tidying, game_id: GameId) -> Tidying:
        """``game_id``'s posts are edited: the record without it (dropped when nothing is left)."""
        left = Tidying(tidying.user_id, tuple(g for g in tidying.games if g != game_id), tidying.names)
        if left.games:
            await self._store.save_tidying(left.user_id, left.dumps())
        else:
            await self._store.drop_tidying(left.user_id)
        return left

    async def claim(self, user_id: UserId, holder: str, ttl: float) -> bool:
        return await self._store.claim_tidying(user_id, holder, ttl)

    async def release(self, user_id: UserId, holder: str) -> None:
        await self._store.release_tidying(user_id, holder)
