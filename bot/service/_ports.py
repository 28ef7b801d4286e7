"""The small interfaces the game service depends on: where games are stored, who chooses AI moves, who hears events.

The Redis store (:mod:`bot.store._redis_store`), the AI process pool (:mod:`bot.pool`) and the Discord front end
implement these; the service never imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ai.api import GameInput, Limits, SearchResult
from ai.review import GameReview
from bot.service._events import Event
from bot.service._ids import ChallengeId, ChannelId, GameId, GuildId, RequestId, TournamentId, UserId
from bot.service._models import Challenge, GameState, GameView, MessageRef, Rating
from bot.service._puzzle_ports import PuzzleRecords
from bot.service._tournament_record import TournamentRecord


class CommitConflict(Exception):  # noqa: N818 - a refusal the caller expects, not an error
    """A guarded write found a precondition false and wrote nothing. ``tag`` names the failed check:

    ``version`` (the game or challenge changed), ``exists`` (the id is taken), ``channel`` (the channel has an active
    game), ``pair`` (the two players already have a game), ``rating`` (a rating changed meanwhile), ``pair-day`` (the
    pair's daily count changed meanwhile), ``finished`` (the game's result is already recorded; for a review: the game
    is not finished), ``missing`` (the game or challenge to annotate does not exist); a :class:`Quotas` bound reached:
    ``ai-games``, ``exhibitions``, ``sent`` (the challenger's pending challenges), ``received`` (the opponent's).
    """

    def __init__(self, tag: str, actual: str = "") -> None:
        super().__init__(f"commit refused: {tag} (found {actual!r})")
        self.tag = tag
        self.actual = actual


@dataclass(frozen=True)
class Quotas:
    """Bounds that a new game or challenge must stay under, checked in the same atomic write that creates it (None:
    no bound). The store counts from its own indexes, so every process sees the same counts."""

    ai_games_per_user: int | None = None
    """Active games against the AI of the game's player (refused as ``ai-games``)."""
    exhibitions_per_guild: int | None = None
    """Active exhibitions of the game's server (refused as ``exhibitions``)."""
    challenges_per_sender: int | None = None
    """Pending, unexpired challenges sent by the challenger (refused as ``sent``)."""
    challenges_per_target: int | None = None
    """Pending, unexpired challenges addressed to the opponent (refused as ``received``)."""


NO_QUOTAS = Quotas()


@dataclass(frozen=True)
class Bucket:
    """A token bucket of the rate limits: ``key`` names whose it is (``user:{id}``, ``guild:{id}``); it holds at most
    ``burst`` tokens and gains ``rate`` tokens a second; each command or click takes one."""

    key: str
    rate: float
    burst: int


@dataclass(frozen=True)
class RatingUpdate:
    """One rating record to replace, guarded by its games count as read (``before.games``)."""

    scope: str
    variant: str
    user_id: UserId
    before: Rating
    after: Rating


@dataclass(frozen=True)
class BotRecordUpdate:
    """One game of a person against an AI level, for the separate versus-the-bot record."""

    scope: str
    variant: str
    user_id: UserId
    level: str
    outcome: str
    """``wins``, ``losses`` or ``draws`` (from the person's side)."""


@dataclass(frozen=True)
class Request:
    """A commit made at most once: ``key`` is the request's idempotency key, ``outcome`` what the commit records
    under it (the record and its version after the write), recorded in the same atomic write."""

    key: RequestId
    outcome: str


@dataclass(frozen=True)
class Settlement:
    """Everything that changes with a game's end, written in the same atomic step as the final state."""

    ratings: tuple[RatingUpdate, ...] = ()
    bot_records: tuple[BotRecordUpdate, ...] = ()
    pair_day: tuple[str, str, str, int] | None = None
    """(user a, user b, ``yyyymmdd``, the count read) when the game counts towards the pair's rated games that day."""


class GameRecords(Protocol):
    """Games and their indexes: create, save, finish, load; the games of a user, of a channel, due, waiting for the
    AI; a room closed to new games."""

    async def load_game(self, game_id: GameId) -> GameState | None: ...

    async def load_games(self, game_ids: Sequence[GameId]) -> list[GameState]: ...

    async def create_game(
        self,
        game: GameState,
        *,
        one_per_channel: bool,
        challenge: tuple[Challenge, Challenge] | None = None,
        quotas: Quotas = NO_QUOTAS,
        request: Request | None = None,
    ) -> None:
        """Store a new game and index it; with ``challenge`` (before, after) also close that challenge. Raises
        :class:`CommitConflict` when the game would pass a bound of ``quotas``. Every write of the store that takes a
        ``request`` is made at most once for its key: sent again (a lost reply) it writes nothing and returns; raises
        :class:`CommitConflict` ``request`` when the key recorded another outcome."""
        ...

    async def bound_reached(self, game: GameState, quotas: Quotas) -> str | None:
        """The refusal tag of a bound of ``quotas`` that ``game`` would pass if created now, or None: a read to refuse
        early (before a room is opened for it); :meth:`create_game` checks the same bounds atomically."""
        ...

    async def close_room(self, guild_id: GuildId, channel_id: ChannelId) -> bool:
        """Close a channel to new games unless a game is filed in it, atomically with :meth:`create_game` (which is
        refused in a closed channel with the tag ``"closed"``); True if it was closed."""
        ...

    async def settle_request(self, key: RequestId) -> str:
        """The outcome recorded by the write of the request ``key``; if none was, records that none will be (a write of
        that request reaching the store later writes nothing) and returns ``"void"``."""
        ...

    async def save_game(self, before: GameState, after: GameState, request: Request | None = None) -> None:
        """Replace ``before`` by ``after`` (version ``before.version + 1``); raises :class:`CommitConflict`."""
        ...

    async def finish_game(
        self, before: GameState, after: GameState, settlement: Settlement, request: Request | None = None
    ) -> None:
        """Store the final state, result, history, ratings and leaderboards in one step."""
        ...

    async def set_board_message(self, game_id: GameId, where: MessageRef) -> None:
        """Record where the game's board is shown (unversioned); raises :class:`CommitConflict` ``missing``."""
        ...

    async def set_result_message(self, game_id: GameId, where: MessageRef) -> None:
        """Record where the game's result was announced (unversioned); raises :class:`CommitConflict` ``missing``."""
        ...

    async def result_message(self, game_id: GameId) -> MessageRef | None: ...

    async def claim_turn(self, game_id: GameId, version: int, holder: str, ttl: float) -> bool:
        """Take (or renew) the lease on the AI's turn in a game at ``version`` for ``holder`` (a process) for ``ttl``
        seconds; False while another holder has it. One process at a time works on a turn."""
        ...

    async def release_turn(self, game_id: GameId, version: int, holder: str) -> None:
        """Give the turn's lease up, if ``holder`` has it."""
        ...

    async def due_games(self, now: float, limit: int) -> list[GameId]: ...

    async def ai_turns(self, began_before: float, limit: int) -> list[GameId]:
        """Active games where an AI is to move and its turn began before ``began_before``, oldest first."""
        ...

    async def active_game_ids(self) -> list[GameId]: ...

    async def user_games(self, user_id: UserId) -> list[GameId]: ...

    async def channel_games(self, guild_id: GuildId, channel_id: ChannelId) -> list[GameId]: ...

    async def history(self, user_id: UserId, limit: int) -> list[GameId]: ...


class ChallengeRecords(Protocol):
    """Challenges and their indexes."""

    async def load_challenge(self, challenge_id: ChallengeId) -> Challenge | None: ...

    async def save_challenge(
        self,
        before: Challenge | None,
        after: Challenge,
        quotas: Quotas = NO_QUOTAS,
        request: Request | None = None,
    ) -> None:
        """Create (``before`` None) or replace a challenge; a new one must stay under the challenge bounds of
        ``quotas`` (counting the pending challenges unexpired at ``after.created_at``)."""
        ...

    async def set_challenge_message(self, challenge_id: ChallengeId, where: MessageRef) -> None:
        """Record where the challenge is shown (unversioned); raises :class:`CommitConflict` ``missing``."""
        ...

    async def due_challenges(self, now: float, limit: int) -> list[ChallengeId]: ...

    async def user_challenges(self, user_id: UserId) -> list[ChallengeId]: ...


class RatingRecords(Protocol):
    """Ratings, ladders, records against the AI, the pairs' daily counts and the players' names."""

    async def read_ratings(self, keys: Sequence[tuple[str, str, str]]) -> list[Rating]:
        """Ratings for (scope, variant, user id) keys; a new player gets the default rating."""
        ...

    async def pair_day_count(self, a: str, b: str, day: str) -> int: ...

    async def leaderboard(self, scope: str, variant: str, limit: int) -> list[tuple[UserId, float]]: ...

    async def rank(self, scope: str, variant: str, user_id: UserId) -> int | None: ...

    async def bot_record(self, scope: str, variant: str, user_id: UserId) -> dict[str, tuple[int, int, int]]: ...

    async def set_names(self, names: dict[str, str]) -> None: ...

    async def names(self, user_ids: Sequence[str]) -> dict[str, str]: ...

    async def set_guild_names(self, names: dict[GuildId, str]) -> None:
        """Record the servers' names, for the pages that show their ladders."""
        ...

    async def guild_name(self, guild_id: GuildId) -> str | None: ...

    async def current_season(self, guild_id: GuildId) -> int:
        """The number of the server's season being played (from 1), or 0 before its first."""
        ...

    async def start_season(self, guild_id: GuildId, record: str) -> int:
        """Start the server's next season (``record``: its JSON), closing the current one; returns its number."""
        ...

    async def seasons(self, guild_id: GuildId) -> dict[int, str]:
        """Every season of the server: number -> its JSON record."""
        ...


class ReviewRecords(Protocol):
    """The reviews of finished games."""

    async def save_review(self, game_id: GameId, review: str) -> None:
        """Keep a finished game's review (JSON text), once; raises :class:`CommitConflict` ``finished`` when the game
        is not finished or is gone, ``exists`` when it has a review already."""
        ...

    async def load_review(self, game_id: GameId) -> str | None:
        """The stored review of a game (JSON text), or None."""
        ...


class ErasureRecords(Protocol):
    """Retention and a person's erasure: what a user left behind, and its removal."""

    async def user_guilds(self, user_id: UserId) -> list[GuildId]:
        """The guilds where the user finished games (so where they may have ratings and records)."""
        ...

    async def finished_before(self, ended_before: float, limit: int) -> list[GameId]:
        """Finished games that ended before ``ended_before``, oldest first (for the retention sweep)."""
        ...

    async def delete_finished_game(self, game: GameState) -> None:
        """Delete a finished game and its index entries; raises :class:`CommitConflict` ``version`` if it changed."""
        ...

    async def rewrite_finished_game(self, before: GameState, after: GameState) -> None:
        """Replace a finished game's state (an erased player's name); guarded like :meth:`save_game`."""
        ...

    async def erase_user(
        self,
        user_id: UserId,
        scopes: Sequence[str],
        variants: Sequence[str],
        pair_days: Sequence[tuple[str, str]],
        *,
        finished: int,
    ) -> None:
        """Delete what is kept under a user's id: their name, closed challenges, game and challenge indexes, history,
        ratings, leaderboard places and versus-the-bot records (in each of ``scopes`` × ``variants``) and the daily
        counts of their pairs (``(other user, yyyymmdd)``). Guarded, since the caller checked and anonymised first:
        :class:`CommitConflict` ``games`` or ``challenges`` when the user has an active game or a pending challenge
        now, ``history`` when their history holds more than the ``finished`` games the caller anonymised."""
        ...

    async def save_tidying(self, user_id: UserId, record: str) -> None:
        """Keep (or replace) the record of the posts still to edit after ``user_id``'s erasure."""
        ...

    async def tidying_records(self) -> dict[UserId, str]:
        """Every erasure's record of posts still to edit, by user id."""
        ...

    async def drop_tidying(self, user_id: UserId) -> None: ...

    async def claim_tidying(self, user_id: UserId, holder: str, ttl: float) -> bool:
        """Take (or renew) the lease on ``user_id``'s edits for ``ttl`` seconds; False while another holds it."""
        ...

    async def release_tidying(self, user_id: UserId, holder: str) -> None: ...


class RateBuckets(Protocol):
    """The token buckets of the rate limits."""

    async def take_token(self, buckets: Sequence[Bucket], now: float) -> tuple[int, float] | None:
        """Take one token from every bucket at time ``now``, atomically for every process; if one is empty take none
        and return (its index, seconds until it has a token again). Returns None when the tokens were taken."""
        ...


class Marks(Protocol):
    """Small notes the front ends share across their processes (say, the digest of the commands last synced)."""

    async def swap_mark(self, name: str, value: str) -> str | None:
        """Record ``value`` under ``name`` (a front end's note shared by its processes); returns the value it
        replaced, in one atomic step."""
        ...

    async def drop_mark(self, name: str) -> None: ...


class TournamentRecords(Protocol):
    """Tournaments: one JSON record each with a version, and the indexes that keep one live tournament per channel
    and per person (:mod:`bot.service._tournament_record`)."""

    async def create_tournament(self, record: TournamentRecord, *, per_guild: int) -> TournamentRecord:
        """Store a new tournament (returned at version 1), holding its channel and its entrants. :class:`CommitConflict`
        ``channel`` when the channel holds a live tournament, ``guild`` when the server holds ``per_guild`` of them,
        ``player`` when an entrant is in another live one."""
        ...

    async def load_tournament(self, tournament_id: TournamentId) -> TournamentRecord | None:
        """The tournament (None when there is none, or its record is unreadable: logged)."""
        ...

    async def save_tournament(self, before: TournamentRecord, after: TournamentRecord) -> TournamentRecord:
        """Replace ``before`` by ``after`` (returned at the next version) if it is still stored at ``before``'s
        version, keeping the indexes (entrants who joined or left, the games of new rounds; a tournament that ends
        frees its channel and its players). :class:`CommitConflict` ``version`` when it changed meanwhile, ``player``
        when an entrant who joined is in another live tournament."""
        ...

    async def tournament_of_game(self, game_id: GameId) -> TournamentId | None: ...

    async def tournament_of_player(self, user_id: UserId) -> TournamentId | None:
        """The live tournament a person is entered in."""
        ...

    async def tournament_in_channel(self, guild_id: GuildId, channel_id: ChannelId) -> TournamentId | None:
        """The live tournament of a channel."""
        ...

    async def live_tournaments(self) -> list[TournamentId]:
        """Every open or running tournament (for the sweeper)."""
        ...

    async def claim_tournament(self, tournament_id: TournamentId, holder: str, ttl: float) -> bool:
        """Take (or renew) the lease on pairing the tournament's next round; False while another process holds it."""
        ...

    async def release_tournament(self, tournament_id: TournamentId, holder: str) -> None: ...


class GameStore(
    GameRecords,
    ChallengeRecords,
    RatingRecords,
    ReviewRecords,
    ErasureRecords,
    RateBuckets,
    Marks,
    TournamentRecords,
    PuzzleRecords,
    Protocol,
):
    """Durable games, challenges, indexes and ratings: every port above, in one store (the Redis store implements
    them all; each part of the service is given only the ports it uses). Every write is one atomic, guarded step.
    Every method raises :class:`~bot.service.StoreUnavailableError` when the store cannot be reached."""


class MoveChooser(Protocol):
    """Chooses AI moves (the process pool); raises on failure. An error with a ``retry_after`` attribute (seconds,
    see :class:`Busy`) says it is too busy for now: the turn waits that long and asks again."""

    @property
    def capacity(self) -> int:
        """Moves it can run at once: the service never asks for more at a time."""
        ...

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult: ...


@runtime_checkable
class Busy(Protocol):
    """An error of a :class:`MoveChooser` that means "too busy now": ask again after ``retry_after`` seconds (the pool's
    ``PoolBusyError`` is one). The service recognises it by this shape, without importing the pool."""

    retry_after: float


@runtime_checkable
class Offline(Protocol):
    """A :class:`Busy` error that means no process can search at all now (the job queue's ``AiOfflineError``: no live
    worker): the turn waits as for any "busy", and the players are told that the AI is offline."""

    retry_after: float
    offline: bool


class GameReviewer(Protocol):
    """Reviews finished games (the AI pool, at low priority); raises on failure."""

    async def review(self, game: GameInput) -> GameReview: ...


class EventSink(Protocol):
    """Hears events that happen outside a caller's request: AI moves, timeouts, expiries."""

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None: ...


class NullSink:
    """An :class:`EventSink` that drops events (for callers that only use return values)."""

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        return None


EventObserver = Callable[[Sequence[Event]], None]
"""Hears the events of every step the service committed, once, whether a request or the background made it (the
metrics count moves and endings with it). It must be quick and must not publish: the front end gets the events from
the call's result or from the :class:`EventSink`."""
