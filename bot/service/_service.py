"""The game service: every command of King Me, independent of Discord.

Each command on a game runs the lichess-style pipeline: read the game, check the request, apply it to a copy (pure),
save it with one guarded write (compare-and-set on the game's version), then return (or publish) the events. Commands
on one game in this process take turns on a per-game lock; across processes the version check decides, and the loser
gets :class:`PositionChangedError`. AI moves are chosen with no lock held and applied through the same pipeline with
the version they were asked for; a result for an outdated version is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ai.api import GameInput, Limits, UnknownLevelError, get_level
from bot.locks import KeyedLocks
from bot.service import _ratings
from bot.service._errors import (
    AlreadyPlayingError,
    AmbiguousMoveError,
    GameNotOverError,
    GameOverError,
    IllegalMoveError,
    InvalidRequestError,
    NoOfferError,
    NotAPlayerError,
    NothingToTakeBackError,
    NotYourTurnError,
    OtherGuildError,
    PositionChangedError,
    SelfChallengeError,
    ServiceError,
    StoreUnavailableError,
    UnknownChallengeError,
    UnknownGameError,
)
from bot.service._models import (
    Challenge,
    ChallengeStatus,
    Event,
    EventKind,
    GameKind,
    GameState,
    GameView,
    LeaderboardEntry,
    MessageRef,
    PlayerRef,
    PlayerStats,
    RatingChange,
    Result,
    Status,
    User,
    color_name,
    parse_color,
)
from bot.service._pdn import game_pdn
from bot.service._ports import (
    BotRecordUpdate,
    CommitConflict,
    EventSink,
    GameStore,
    MoveChooser,
    RatingUpdate,
    Settlement,
)
from bot.settings import Settings
from core import PASS, Board, Color, Move, Outcome, RulesError, Termination, get_variant
from core import AmbiguousMoveError as CoreAmbiguousMoveError

log = logging.getLogger(__name__)

Clock = Callable[[], float]
GLOBAL_SCOPE = "global"
_SETTLE_ATTEMPTS = 8
_AI_ATTEMPTS = 3
_SHORT_GAME_PLIES = 2
_COLOR_CHOICES = ("black", "white", "random")


def guild_scope(guild_id: str) -> str:
    return f"guild:{guild_id}"


def _new_id() -> str:
    return secrets.token_hex(6)


@dataclass
class _Step:
    """The outcome of applying a command to a game: the new state and what to tell people."""

    after: GameState
    events: list[Event] = field(default_factory=list)


class _Skip(Exception):  # noqa: N818 - control flow, not an error
    """A background step (timeout) that no longer applies."""


class NullSink:
    """An :class:`EventSink` that drops events (for callers that only use return values)."""

    async def publish(self, game: GameView | None, events: Sequence[Event]) -> None:
        return None


class GameService:
    """King Me's games: challenges, moves, AI turns, draws, takebacks, timeouts, ratings and queries.

    Args:
        store: where games live (:class:`bot.store.RedisGameStore`).
        chooser: picks AI moves (the AI process pool).
        settings: limits and defaults (challenge TTL, turn times, AI thinking time, per-channel and per-pair rules).
        clock: the time in epoch seconds; tests pass their own to move time without sleeping.
        sink: receives events that happen outside a request (AI moves, timeouts, expired challenges).
    """

    def __init__(
        self,
        store: GameStore,
        chooser: MoveChooser,
        settings: Settings | None = None,
        *,
        clock: Clock = time.time,
        sink: EventSink | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._store = store
        self._chooser = chooser
        self._settings = settings if settings is not None else Settings()
        self._clock = clock
        self._sink: EventSink = sink if sink is not None else NullSink()
        self._rng = rng if rng is not None else random.Random()
        self._locks = KeyedLocks()
        self._cache: dict[str, GameState] = {}
        self._ai_tasks: set[asyncio.Task[None]] = set()
        self._ai_pending: dict[str, int] = {}
        self._ai_failed: dict[str, int] = {}
        """Game id -> the version whose AI failure was announced (announced once, retried by the sweeper)."""
        self._closed = False

    @property
    def settings(self) -> Settings:
        return self._settings

    # -- lifecycle ------------------------------------------------------------------------------------------------

    async def start(self) -> int:
        """Resume every stored game where an AI is to move (after a restart); returns how many were resumed."""
        resumed = 0
        for game in await self._store.load_games(await self._store.active_game_ids()):
            if game.is_active and self._schedule_ai(game):
                resumed += 1
        return resumed

    async def drain(self) -> None:
        """Wait until no AI turn is pending (AI turns may schedule further AI turns, as in an exhibition)."""
        while self._ai_tasks:
            await asyncio.gather(*list(self._ai_tasks), return_exceptions=True)

    async def close(self) -> None:
        """Stop scheduling AI turns and cancel the pending ones (their games resume on the next start)."""
        self._closed = True
        tasks = list(self._ai_tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- challenges -----------------------------------------------------------------------------------------------

    async def challenge(
        self,
        guild_id: str | int,
        channel_id: str | int,
        challenger: User,
        opponent: User | None,
        *,
        variant: str = "american",
        turn_time: float | None = None,
        color: str = "random",
        fen: str | None = None,
        rematch_of: str | None = None,
    ) -> Result:
        """Propose a game to ``opponent`` (or to anyone in the channel when None). It expires unanswered. The game is
        rated, unless it starts from the position ``fen`` (checked now, so a bad FEN is refused at once)."""
        guild, channel = str(guild_id), str(channel_id)
        variant_name = self._variant(variant)
        seconds = self._turn_time(turn_time)
        position = self._position(variant_name, fen).initial_fen if fen else None
        if color not in _COLOR_CHOICES:
            raise InvalidRequestError(f"choose a colour: {', '.join(_COLOR_CHOICES)}")
        if opponent is not None and opponent.id == challenger.id:
            raise SelfChallengeError("you cannot challenge yourself: pick another player or play the AI")
        await self._check_free(guild, channel, challenger, opponent)
        now = self._clock()
        challenge = Challenge(
            id=_new_id(),
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
        )
        await self._store.save_challenge(None, challenge)
        await self._remember(challenger, opponent)
        whom = opponent.name if opponent is not None else "anyone"
        where = " from a set-up position" if position else ""
        text = f"{challenger.name} challenges {whom} to {get_variant(variant_name).title}{where}"
        return Result((_challenge_event(EventKind.CHALLENGE_CREATED, text, challenge),), challenge=challenge)

    async def get_challenge(self, challenge_id: str, guild_id: str | int | None = None) -> Challenge:
        """A challenge in any state (pending, accepted, declined, cancelled, expired), with where it is shown."""
        challenge = await self._store.load_challenge(challenge_id) if challenge_id else None
        if challenge is None:
            raise UnknownChallengeError("there is no such challenge")
        if guild_id is not None and challenge.guild_id != str(guild_id):
            raise OtherGuildError("that challenge belongs to another server")
        return challenge

    async def set_challenge_message(self, challenge_id: str, channel_id: str | int, message_id: str | int) -> None:
        """Record the message that shows a challenge, so its end is shown there (also after a restart)."""
        try:
            await self._store.set_challenge_message(challenge_id, MessageRef.of(channel_id, message_id))
        except CommitConflict:
            raise UnknownChallengeError("there is no such challenge") from None

    async def accept(
        self, challenge_id: str, guild_id: str | int, user: User, *, channel_id: str | int | None = None
    ) -> Result:
        """Accept a challenge: the game starts (colours as the challenger chose, or at random). With ``channel_id``
        (a thread opened for the game) the game is played and filed there, not in the challenge's channel: the
        one-game-per-channel rule then applies to that channel."""
        challenge = await self.check_accept(challenge_id, guild_id, user)
        now = self._clock()
        me = PlayerRef.human(user)
        side = challenge.color if challenge.color != "random" else self._rng.choice(("black", "white"))
        black, white = (challenge.challenger, me) if side == "black" else (me, challenge.challenger)
        board = self._position(challenge.variant, challenge.fen)
        game = GameState(
            id=_new_id(),
            guild_id=challenge.guild_id,
            channel_id=str(channel_id) if channel_id is not None else challenge.channel_id,
            kind=GameKind.HUMAN,
            variant=challenge.variant,
            initial_fen=board.initial_fen,
            black=black,
            white=white,
            turn_time=challenge.turn_time,
            created_at=now,
            updated_at=now,
            deadline=now + challenge.turn_time,
            rated=challenge.fen is None,
            unrated_reason="from a set-up position" if challenge.fen else None,
            rematch_of=challenge.rematch_of,
        )
        started = Event(EventKind.GAME_STARTED, f"{black.name} (Black) vs {white.name} (White)", game.id)
        events = [_challenge_event(EventKind.CHALLENGE_ACCEPTED, f"{user.name} accepted", challenge, game.id), started]
        game = game.evolve(moves=tuple(self._auto_pass(game, board, events)))
        closed = challenge.evolve(version=challenge.version + 1, status=ChallengeStatus.ACCEPTED, game_id=game.id)
        try:
            await self._store.create_game(
                game, one_per_channel=self._settings.one_game_per_channel, challenge=(challenge, closed)
            )
        except CommitConflict as exc:
            raise self._create_error(exc) from None
        self._cache[game.id] = game
        await self._remember(user, None)
        return Result(tuple(events), GameView.of(game, now, board), closed)

    async def check_accept(self, challenge_id: str, guild_id: str | int, user: User) -> Challenge:
        """The challenge if ``user`` may accept it now (raises what :meth:`accept` would), writing nothing: a front end
        asks before it prepares a place for the game (a thread)."""
        challenge = await self._open_challenge(challenge_id, str(guild_id))
        if user.id == challenge.challenger.id:
            raise SelfChallengeError("you cannot accept your own challenge")
        if challenge.opponent is not None and challenge.opponent.id != user.id:
            raise NotAPlayerError(f"this challenge is for {challenge.opponent.name}")
        if self._clock() >= challenge.expires_at:
            raise UnknownChallengeError("that challenge has expired")
        return challenge

    async def decline(self, challenge_id: str, guild_id: str | int, user: User) -> Result:
        """The challenged user turns a challenge down."""
        challenge = await self._open_challenge(challenge_id, str(guild_id))
        if challenge.opponent is None or challenge.opponent.id != user.id:
            raise NotAPlayerError("only the challenged player can decline; the challenger can cancel")
        return await self._close_challenge(challenge, ChallengeStatus.DECLINED, f"{user.name} declined the challenge")

    async def cancel(self, challenge_id: str, guild_id: str | int, user: User) -> Result:
        """The challenger withdraws a challenge."""
        challenge = await self._open_challenge(challenge_id, str(guild_id))
        if challenge.challenger.id != user.id:
            raise NotAPlayerError("only the challenger can cancel this challenge")
        return await self._close_challenge(challenge, ChallengeStatus.CANCELLED, f"{user.name} cancelled the challenge")

    async def challenges_of(self, user_id: str | int) -> list[Challenge]:
        """A user's pending challenges, sent or received."""
        found = [await self._store.load_challenge(cid) for cid in await self._store.user_challenges(str(user_id))]
        return [c for c in found if c is not None and c.is_pending]

    # -- games against the AI -------------------------------------------------------------------------------------

    async def play_ai(
        self,
        guild_id: str | int,
        channel_id: str | int,
        user: User,
        level: str,
        *,
        color: str = "black",
        variant: str = "american",
        fen: str | None = None,
        think_time: float | None = None,
        turn_time: float | None = None,
        rematch_of: str | None = None,
    ) -> Result:
        """Start a game against an AI level. Such games are unrated and count in the versus-the-bot record."""
        if color not in _COLOR_CHOICES:
            raise InvalidRequestError(f"choose a colour: {', '.join(_COLOR_CHOICES)}")
        side = color if color != "random" else self._rng.choice(("black", "white"))
        me, ai = PlayerRef.human(user), PlayerRef.ai(self._level(level))
        black, white = (me, ai) if side == "black" else (ai, me)
        reason = "against the AI" + (" from a set-up position" if fen else "")
        result = await self._create(
            GameKind.AI,
            str(guild_id),
            str(channel_id),
            black,
            white,
            variant,
            fen,
            think_time,
            turn_time,
            reason,
            rematch_of,
        )
        await self._remember(user, None)
        return result

    async def exhibition(
        self,
        guild_id: str | int,
        channel_id: str | int,
        black_level: str,
        white_level: str,
        *,
        variant: str = "american",
        fen: str | None = None,
        think_time: float | None = None,
    ) -> Result:
        """Start an AI-versus-AI game to watch; its moves arrive through the event sink."""
        black, white = PlayerRef.ai(self._level(black_level)), PlayerRef.ai(self._level(white_level))
        return await self._create(
            GameKind.EXHIBITION,
            str(guild_id),
            str(channel_id),
            black,
            white,
            variant,
            fen,
            think_time,
            None,
            "an exhibition",
            None,
        )

    async def _create(
        self,
        kind: GameKind,
        guild: str,
        channel: str,
        black: PlayerRef,
        white: PlayerRef,
        variant: str,
        fen: str | None,
        think_time: float | None,
        turn_time: float | None,
        unrated_reason: str,
        rematch_of: str | None,
    ) -> Result:
        variant_name = self._variant(variant)
        seconds = self._turn_time(turn_time)
        think = self._think_time(think_time)
        board = self._position(variant_name, fen)
        now = self._clock()
        events: list[Event] = []
        game = GameState(
            id=_new_id(),
            guild_id=guild,
            channel_id=channel,
            kind=kind,
            variant=variant_name,
            initial_fen=board.initial_fen,
            black=black,
            white=white,
            turn_time=seconds,
            created_at=now,
            updated_at=now,
            deadline=now + seconds,
            rated=False,
            unrated_reason=unrated_reason,
            ai_think_time=think,
            rematch_of=rematch_of,
        )
        events.append(Event(EventKind.GAME_STARTED, f"{black.name} (Black) vs {white.name} (White)", game.id))
        passes = self._auto_pass(game, board, events)
        game = game.evolve(moves=tuple(passes))
        if self._ai_to_move(game, board):
            events.append(self._thinking(game, board))
        try:
            await self._store.create_game(game, one_per_channel=self._settings.one_game_per_channel)
        except CommitConflict as exc:
            raise self._create_error(exc) from None
        self._cache[game.id] = game
        self._schedule_ai(game)
        return Result(tuple(events), GameView.of(game, now, board))

    # -- moves and other commands on a game -----------------------------------------------------------------------

    async def move(
        self, game_id: str, guild_id: str | int | None, user: User, move: str | int, *, version: int | None = None
    ) -> Result:
        """Play a move, given as PDN text (``11-15``, ``15x24``, ``1x10x19``) or as an index into the view's
        ``legal_moves``. With ``version`` (the version the front end showed) a changed game is refused; an index
        should always come with its version."""

        def plan(game: GameState, now: float) -> _Step:
            board = self._turn_of(game, user)
            return self._play(game, board, self._resolve(board, move), now)

        return await self._transact(game_id, guild_id, plan, expected_version=version)

    async def resign(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        def plan(game: GameState, now: float) -> _Step:
            color = self._player(game, user)
            after = self._touch(game, now)
            return self._end(after, Outcome(Termination.RESIGNATION, color.opponent), now, [])

        return await self._transact(game_id, guild_id, plan)

    async def offer_draw(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        """Offer a draw; if the opponent had already offered one, the game is drawn."""

        def plan(game: GameState, now: float) -> _Step:
            color = self._player(game, user)
            if game.kind is GameKind.AI:
                raise InvalidRequestError("the AI plays on: it does not accept draw offers")
            if game.draw_offer == color_name(color.opponent):
                return self._end(self._touch(game, now), Outcome(Termination.AGREEMENT, None), now, [])
            if game.draw_offer == color_name(color):
                raise InvalidRequestError("you have already offered a draw")
            after = self._touch(game, now, draw_offer=color_name(color))
            return _Step(after, [Event(EventKind.DRAW_OFFERED, f"{user.name} offers a draw", game.id)])

        return await self._transact(game_id, guild_id, plan)

    async def accept_draw(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        def plan(game: GameState, now: float) -> _Step:
            self._answering(game, user, game.draw_offer, "your opponent has not offered a draw")
            return self._end(self._touch(game, now), Outcome(Termination.AGREEMENT, None), now, [])

        return await self._transact(game_id, guild_id, plan)

    async def decline_draw(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        def plan(game: GameState, now: float) -> _Step:
            self._answering(game, user, game.draw_offer, "your opponent has not offered a draw")
            after = self._touch(game, now, draw_offer=None)
            return _Step(after, [Event(EventKind.DRAW_DECLINED, f"{user.name} declines the draw", game.id)])

        return await self._transact(game_id, guild_id, plan)

    async def takeback(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        """Ask to take your last move back. Against the AI it is done at once; a person must agree
        (:meth:`accept_takeback`)."""

        def plan(game: GameState, now: float) -> _Step:
            color = self._player(game, user)
            moves = self._undo(game, color)  # raises when there is nothing to take back
            if game.kind is GameKind.AI:
                return self._take_back(game, moves, now, f"{user.name} took back a move")
            if game.takeback_offer == color_name(color):
                raise InvalidRequestError("you have already asked to take your move back")
            after = self._touch(game, now, takeback_offer=color_name(color))
            text = f"{user.name} asks to take their last move back"
            return _Step(after, [Event(EventKind.TAKEBACK_REQUESTED, text, game.id)])

        return await self._transact(game_id, guild_id, plan)

    async def accept_takeback(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        def plan(game: GameState, now: float) -> _Step:
            color = self._answering(game, user, game.takeback_offer, "your opponent has not asked for a takeback")
            moves = self._undo(game, color.opponent)
            return self._take_back(game, moves, now, f"{user.name} agreed to a takeback")

        return await self._transact(game_id, guild_id, plan)

    async def decline_takeback(self, game_id: str, guild_id: str | int | None, user: User) -> Result:
        def plan(game: GameState, now: float) -> _Step:
            self._answering(game, user, game.takeback_offer, "your opponent has not asked for a takeback")
            after = self._touch(game, now, takeback_offer=None)
            return _Step(after, [Event(EventKind.TAKEBACK_DECLINED, f"{user.name} declines the takeback", game.id)])

        return await self._transact(game_id, guild_id, plan)

    async def rematch(
        self, game_id: str, guild_id: str | int | None, user: User, *, channel_id: str | int | None = None
    ) -> Result:
        """Offer the same game again (same variant, start position and clock) with colours swapped: a new challenge,
        or at once against the AI; in ``channel_id`` (where it was asked for) or else in the game's channel."""
        game = await self._load(game_id, guild_id)
        if game.is_active:
            raise GameNotOverError("the game is still being played")
        color = game.color_of(user.id)
        if color is None:
            raise NotAPlayerError("only the players can ask for a rematch")
        other = game.player(color.opponent)
        channel = str(channel_id) if channel_id is not None else game.channel_id
        if other.is_ai:
            assert other.level is not None
            return await self.play_ai(
                game.guild_id,
                channel,
                user,
                other.level,
                color=color_name(color.opponent),
                variant=game.variant,
                fen=game.initial_fen,
                think_time=game.ai_think_time,
                turn_time=game.turn_time,
                rematch_of=game.id,
            )
        set_up = game.initial_fen != Board(None, game.variant).initial_fen
        return await self.challenge(
            game.guild_id,
            channel,
            user,
            User(other.id, other.name),
            variant=game.variant,
            turn_time=game.turn_time,
            color=color_name(color.opponent),
            fen=game.initial_fen if set_up else None,
            rematch_of=game.id,
        )

    async def set_board_message(self, game_id: str, channel_id: str | int, message_id: str | int) -> None:
        """Record the message that shows the game's board, so a change that happens outside an interaction (an AI
        move, a timeout) edits it, also after a restart. It does not change the game's version."""
        where = MessageRef.of(channel_id, message_id)
        try:
            await self._store.set_board_message(game_id, where)
        except CommitConflict:
            raise UnknownGameError(f"there is no game {str(game_id)[:40]!r}") from None
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache[game_id] = cached.evolve(board_message=where)

    # -- queries --------------------------------------------------------------------------------------------------

    async def state(self, game_id: str, guild_id: str | int | None = None) -> GameView:
        """The game as it is stored now (position, legal moves, clock, whose turn)."""
        return GameView.of(await self._load(game_id, guild_id), self._clock())

    async def user_games(self, user_id: str | int) -> list[GameView]:
        """A user's active games."""
        now = self._clock()
        return [GameView.of(g, now) for g in await self._store.load_games(await self._store.user_games(str(user_id)))]

    async def channel_games(self, guild_id: str | int, channel_id: str | int) -> list[GameView]:
        """A channel's active games."""
        ids = await self._store.channel_games(str(guild_id), str(channel_id))
        now = self._clock()
        return [GameView.of(g, now) for g in await self._store.load_games(ids)]

    async def history(self, user_id: str | int, limit: int = 10) -> list[GameState]:
        """A user's finished games, newest first."""
        return await self._store.load_games(await self._store.history(str(user_id), max(1, min(limit, 100))))

    async def pdn(self, game_id: str, guild_id: str | int | None = None) -> str:
        """The game as PDN (with result ``*`` while it is being played)."""
        game = await self._load(game_id, guild_id)
        return game.pdn if game.pdn is not None else game_pdn(game)

    async def leaderboard(
        self, variant: str = "american", guild_id: str | int | None = None, limit: int = 10
    ) -> list[LeaderboardEntry]:
        """The human ladder of a guild (or the global one), best first."""
        scope = guild_scope(str(guild_id)) if guild_id is not None else GLOBAL_SCOPE
        variant_name = self._variant(variant)
        rows = await self._store.leaderboard(scope, variant_name, max(1, min(limit, 100)))
        ids = [uid for uid, _ in rows]
        ratings = await self._store.read_ratings([(scope, variant_name, uid) for uid in ids])
        names = await self._store.names(ids)
        return [
            LeaderboardEntry(i + 1, uid, names.get(uid, uid), r.rating, r.rd, _ratings.is_provisional(r), r.games)
            for i, (uid, r) in enumerate(zip(ids, ratings, strict=True))
        ]

    async def stats(
        self, user_id: str | int, variant: str = "american", guild_id: str | int | None = None
    ) -> PlayerStats:
        """A player's rating, record, rank and versus-the-bot record in a guild (or globally)."""
        uid = str(user_id)
        scope = guild_scope(str(guild_id)) if guild_id is not None else GLOBAL_SCOPE
        variant_name = self._variant(variant)
        (rating,) = await self._store.read_ratings([(scope, variant_name, uid)])
        rank = await self._store.rank(scope, variant_name, uid)
        name = (await self._store.names([uid])).get(uid, uid)
        bot = await self._store.bot_record(scope, variant_name, uid)
        return PlayerStats(uid, name, variant_name, scope, rating, _ratings.is_provisional(rating), rank, bot)

    # -- background work ------------------------------------------------------------------------------------------

    async def sweep(self, limit: int = 200) -> list[Result]:
        """End overdue games (a loss on time for the side to move) and expire old challenges; publishes and returns
        what happened. It also starts again every AI turn that has waited longer than ``ai_retry_after`` with no
        search of this process on it (the AI failed, or the process searching it stopped), so no game stays stuck;
        a second search of the same version elsewhere is harmless (the first answer applies, the other is dropped).
        The :class:`Sweeper` calls this on a timer."""
        now = self._clock()
        results: list[Result] = []
        waiting = await self._store.ai_turns(now - self._settings.ai_retry_after, limit)
        for game in await self._store.load_games(waiting):
            if game.awaiting_ai and game.id not in self._ai_pending and self._schedule_ai(game):
                log.info("sweeper restarted the AI turn of game %s (version %d)", game.id, game.version)
        for game_id in await self._store.due_games(now, limit):
            try:
                result = await self._transact(game_id, None, self._timeout_plan)
            except (_Skip, ServiceError) as exc:
                log.debug("sweeper skipped game %s: %s", game_id, exc)
                continue
            results.append(result)
            await self._sink.publish(result.game, result.events)
        for challenge_id in await self._store.due_challenges(now, limit):
            challenge = await self._store.load_challenge(challenge_id)
            if challenge is None or not challenge.is_pending or challenge.expires_at > now:
                continue
            try:
                result = await self._close_challenge(challenge, ChallengeStatus.EXPIRED, "the challenge expired")
            except ServiceError:
                continue
            results.append(result)
            await self._sink.publish(None, result.events)
        return results

    def _timeout_plan(self, game: GameState, now: float) -> _Step:
        if not game.is_active or game.deadline > now:
            raise _Skip("not overdue")
        board = game.board()
        after = self._touch(game, now)
        return self._end(after, Outcome(Termination.TIME, board.turn.opponent), now, [])

    # -- the pipeline ---------------------------------------------------------------------------------------------

    def _lock(self, game_id: str) -> contextlib.AbstractAsyncContextManager[None]:
        return self._locks.hold(game_id)

    async def _transact(
        self,
        game_id: str,
        guild_id: str | int | None,
        plan: Callable[[GameState, float], _Step],
        *,
        expected_version: int | None = None,
    ) -> Result:
        """Check, apply (``plan``, pure), save (one guarded write), then schedule the AI; returns the events."""
        async with self._lock(game_id):
            for attempt in range(2):
                cached = attempt == 0 and game_id in self._cache
                game = self._cache[game_id] if cached else await self._load(game_id, None)
                self._check_guild(game, guild_id)
                if expected_version is not None and game.version != expected_version:
                    if cached:
                        self._cache.pop(game_id, None)
                        continue
                    raise PositionChangedError()
                if not game.is_active:
                    raise GameOverError(f"the game is over: {game.end_text}")
                now = self._clock()
                step = plan(game, now)
                try:
                    after, extra = await self._save(game, step.after)
                except CommitConflict as exc:
                    self._cache.pop(game_id, None)
                    if cached and exc.tag == "version":
                        continue  # another process moved this game since we cached it: look again
                    raise PositionChangedError() from None
                break
            else:  # pragma: no cover - the second attempt always reads fresh and raises or breaks
                raise PositionChangedError()
            if after.is_active:
                self._cache[game_id] = after
            else:
                self._cache.pop(game_id, None)
                self._ai_failed.pop(game_id, None)
        self._schedule_ai(after)
        return Result(tuple(step.events + extra), GameView.of(after, now))

    async def _save(self, before: GameState, after: GameState) -> tuple[GameState, list[Event]]:
        """Store a transition; a game's end also settles result, history and ratings in the same write."""
        if after.is_active:
            await self._store.save_game(before, after)
            return after, []
        for _ in range(_SETTLE_ATTEMPTS):
            settled, settlement, events = await self._settle(after)
            try:
                await self._store.finish_game(before, settled, settlement)
            except CommitConflict as exc:
                if exc.tag in ("rating", "pair-day"):
                    continue  # a rating moved meanwhile (another game of a player ended): recompute
                raise
            return settled, events
        raise StoreUnavailableError("ratings kept changing while this game ended; try again")

    async def _settle(self, game: GameState) -> tuple[GameState, Settlement, list[Event]]:
        """The game's final state with PDN and rating changes, and the writes that go with it."""
        game = game.evolve(pdn=game_pdn(game))
        scopes = (GLOBAL_SCOPE, guild_scope(game.guild_id))
        if game.kind is GameKind.AI:
            human = game.humans()[0]
            ai = game.white if human is game.black else game.black
            assert ai.level is not None
            score = self._score(game, human)
            outcome = {1.0: "wins", 0.0: "losses", 0.5: "draws"}[score]
            records = tuple(BotRecordUpdate(s, game.variant, human.id, ai.level, outcome) for s in scopes)
            return game, Settlement(bot_records=records), []
        if game.kind is not GameKind.HUMAN or not game.rated:
            return game, Settlement(), []
        if len(game.moves) < _SHORT_GAME_PLIES and game.termination in (
            Termination.RESIGNATION.value,
            Termination.TIME.value,
            Termination.AGREEMENT.value,
        ):
            return game.evolve(rated=False, unrated_reason="too short to rate"), Settlement(), []
        day = time.strftime("%Y%m%d", time.gmtime(game.ended_at))
        a, b = game.black.id, game.white.id
        count = await self._store.pair_day_count(a, b, day)
        if count >= self._settings.rated_games_per_pair_per_day:
            reason = "these two players have had their rated games for today"
            return game.evolve(rated=False, unrated_reason=reason), Settlement(), []
        keys = [(scope, game.variant, p.id) for scope in scopes for p in (game.black, game.white)]
        before = await self._store.read_ratings(keys)
        updates: list[RatingUpdate] = []
        changes: list[RatingChange] = []
        events: list[Event] = []
        for i in range(0, len(keys), 2):
            pair = ((game.black, before[i], before[i + 1]), (game.white, before[i + 1], before[i]))
            for player, mine, theirs in pair:
                new = _ratings.after_game(mine, theirs, self._score(game, player))
                scope = keys[i][0]
                updates.append(RatingUpdate(scope, game.variant, player.id, mine, new))
                change = RatingChange(
                    player.id, scope, game.variant, mine.rating, new.rating, new.rd, _ratings.is_provisional(new)
                )
                changes.append(change)
                if scope == GLOBAL_SCOPE:
                    text = f"{player.name}: {round(mine.rating)} → {round(new.rating)} ({change.delta:+.0f})"
                    events.append(Event(EventKind.RATING_CHANGED, text, game.id, data={"change": change}))
        settled = game.evolve(rating_changes=tuple(changes))
        return settled, Settlement(ratings=tuple(updates), pair_day=(a, b, day, count)), events

    @staticmethod
    def _score(game: GameState, player: PlayerRef) -> float:
        if game.winner is None:
            return 0.5
        return 1.0 if game.player(parse_color(game.winner)) is player else 0.0

    # -- pure steps -----------------------------------------------------------------------------------------------

    def _play(self, game: GameState, board: Board, move: Move, now: float) -> _Step:
        """Play ``move`` (legal in ``board``) and any passes that follow; the new state and its events."""
        mover = board.turn
        player = game.player(mover)
        board.push(move)
        events = [
            Event(
                EventKind.MOVE_PLAYED,
                f"{player.name} played {move.text()}",
                game.id,
                data={"move": move.text(), "color": color_name(mover)},
            )
        ]
        played = [move.text(), *self._auto_pass(game, board, events)]
        offer = game.draw_offer if game.draw_offer == color_name(mover) else None  # a reply declines an offer
        after = game.evolve(
            moves=game.moves + tuple(played),
            version=game.version + 1,
            updated_at=now,
            deadline=now + game.turn_time,
            draw_offer=offer,
            takeback_offer=None,
        )
        outcome = board.outcome()
        if outcome is not None:
            return self._end(after, outcome, now, events)
        if self._ai_to_move(after, board):
            events.append(self._thinking(after, board))
        return _Step(after, events)

    def _auto_pass(self, game: GameState, board: Board, events: list[Event]) -> list[str]:
        """Play the pass of every blocked side (in the variants where a side passes)."""
        passes: list[str] = []
        while board.outcome() is None and board.legal_moves == [PASS]:
            events.append(Event(EventKind.PASSED, f"{game.player(board.turn).name} cannot move and passes", game.id))
            board.push(PASS)
            passes.append(PASS.text())
        return passes

    @staticmethod
    def _end(game: GameState, outcome: Outcome, now: float, events: list[Event]) -> _Step:
        """``game`` (already at its next version) ended with ``outcome``."""
        after = game.evolve(
            status=Status.FINISHED,
            ended_at=now,
            updated_at=now,
            result=outcome.result(),
            termination=outcome.termination.value,
            winner=color_name(outcome.winner) if outcome.winner is not None else None,
            end_text=outcome.describe(),
            draw_offer=None,
            takeback_offer=None,
        )
        data = {"result": after.result, "termination": after.termination, "winner": after.winner}
        events = [*events, Event(EventKind.GAME_OVER, outcome.describe(), game.id, data=data)]
        return _Step(after, events)

    @staticmethod
    def _touch(game: GameState, now: float, **changes: object) -> GameState:
        """The next version of ``game`` with ``changes`` (the clock is not reset)."""
        return game.evolve(version=game.version + 1, updated_at=now, **changes)

    def _undo(self, game: GameState, color: Color) -> tuple[str, ...]:
        """The move list with ``color``'s last move (and everything after it) taken back."""
        board = game.board()
        while board.move_stack:
            move = board.pop()
            if board.turn is color and not move.is_pass:
                return tuple(m.text() for m in board.move_stack)
        raise NothingToTakeBackError("there is no move of yours to take back")

    def _take_back(self, game: GameState, moves: tuple[str, ...], now: float, text: str) -> _Step:
        after = game.evolve(
            moves=moves,
            version=game.version + 1,
            updated_at=now,
            deadline=now + game.turn_time,
            draw_offer=None,
            takeback_offer=None,
            takebacks=game.takebacks + 1,
            rated=False if game.kind is GameKind.AI else game.rated,
        )
        data = {"plies": len(game.moves) - len(moves)}
        return _Step(after, [Event(EventKind.TAKEBACK_DONE, text, game.id, data=data)])

    # -- AI turns -------------------------------------------------------------------------------------------------

    @staticmethod
    def _ai_to_move(game: GameState, board: Board) -> bool:
        return game.is_active and game.player(board.turn).is_ai

    def _thinking(self, game: GameState, board: Board) -> Event:
        return Event(EventKind.AI_THINKING, f"{game.player(board.turn).name} is thinking…", game.id)

    def _schedule_ai(self, game: GameState) -> bool:
        """Start the AI's turn in ``game`` if an AI is to move and none is already thinking about this version."""
        if self._closed or not game.is_active:
            return False
        board = game.board()
        if not self._ai_to_move(game, board) or self._ai_pending.get(game.id) == game.version:
            return False
        self._ai_pending[game.id] = game.version
        delay = self._settings.exhibition_move_delay if game.kind is GameKind.EXHIBITION and game.moves else 0.0
        task = asyncio.create_task(self._ai_turn(game, board.turn, delay), name=f"ai-turn-{game.id}-{game.version}")
        self._ai_tasks.add(task)
        task.add_done_callback(self._ai_tasks.discard)
        return True

    async def _ai_turn(self, game: GameState, color: Color, delay: float) -> None:
        """Ask the chooser (no lock held), then apply the answer to the version it was asked for."""
        player = game.player(color)
        assert player.level is not None
        try:
            if delay:
                await asyncio.sleep(delay)
            request = GameInput(game.variant, game.initial_fen, game.moves)
            limits = Limits(time=game.ai_think_time)
            seed = int.from_bytes(hashlib.blake2b(f"{game.id}:{game.version}".encode(), digest_size=6).digest())
            for attempt in range(1, _AI_ATTEMPTS + 1):
                try:
                    choice = await self._chooser.choose(player.level, request, limits, seed + attempt - 1)
                    break
                except Exception as exc:
                    log.warning("AI %s failed in game %s (attempt %d): %s", player.level, game.id, attempt, exc)
                    if attempt == _AI_ATTEMPTS:
                        if self._ai_failed.get(game.id) != game.version:  # say it once, not at every retry
                            self._ai_failed[game.id] = game.version
                            text = f"{player.name} could not choose a move; it will try again shortly"
                            await self._sink.publish(None, [Event(EventKind.AI_FAILED, text, game.id)])
                        return
                    await asyncio.sleep(0.1 * attempt)

            def plan(current: GameState, now: float) -> _Step:
                board = current.board()
                try:
                    move = board.parse_move(choice.move)
                except RulesError as exc:
                    raise IllegalMoveError(f"the AI chose an illegal move {choice.move!r}: {exc}") from None
                return self._play(current, board, move, now)

            self._ai_failed.pop(game.id, None)
            try:
                result = await self._transact(game.id, None, plan, expected_version=game.version)
            except (PositionChangedError, GameOverError):
                log.debug("dropped the AI move for game %s version %d: the game changed", game.id, game.version)
                return
            except ServiceError as exc:
                log.warning("AI move in game %s refused: %s", game.id, exc)
                return
            await self._sink.publish(result.game, result.events)
        finally:
            if self._ai_pending.get(game.id) == game.version:
                del self._ai_pending[game.id]

    # -- checks ---------------------------------------------------------------------------------------------------

    async def _load(self, game_id: str, guild_id: str | int | None) -> GameState:
        game = await self._store.load_game(game_id) if isinstance(game_id, str) and game_id else None
        if game is None:
            raise UnknownGameError(f"there is no game {str(game_id)[:40]!r}")
        self._check_guild(game, guild_id)
        return game

    @staticmethod
    def _check_guild(game: GameState, guild_id: str | int | None) -> None:
        if guild_id is not None and str(guild_id) != game.guild_id:
            raise OtherGuildError("that game belongs to another server")

    @staticmethod
    def _player(game: GameState, user: User) -> Color:
        color = game.color_of(user.id)
        if color is None:
            raise NotAPlayerError("you are not playing in this game")
        return color

    @classmethod
    def _answering(cls, game: GameState, user: User, offer: str | None, missing: str) -> Color:
        """The colour of a player answering the opponent's pending ``offer`` (a draw or takeback offer's side);
        raises :class:`NoOfferError` with ``missing`` when the opponent has made none."""
        color = cls._player(game, user)
        if offer != color_name(color.opponent):
            raise NoOfferError(missing)
        return color

    def _turn_of(self, game: GameState, user: User) -> Board:
        color = self._player(game, user)
        board = game.board()
        if board.turn is not color:
            raise NotYourTurnError(f"it is {game.player(board.turn).name}'s turn ({board.turn.label})")
        return board

    @staticmethod
    def _resolve(board: Board, move: str | int) -> Move:
        if isinstance(move, int) and not isinstance(move, bool):
            legal = board.legal_moves
            if not 0 <= move < len(legal):
                raise IllegalMoveError(f"there is no move number {move}: choose from the {len(legal)} legal moves")
            return legal[move]
        if not isinstance(move, str):
            raise IllegalMoveError("a move is text such as 11-15 or a move number")
        try:
            return board.parse_move(move)
        except CoreAmbiguousMoveError as exc:
            raise AmbiguousMoveError(str(exc), exc.candidates) from None
        except RulesError as exc:
            raise IllegalMoveError(str(exc)) from None

    async def _open_challenge(self, challenge_id: str, guild_id: str) -> Challenge:
        challenge = await self._store.load_challenge(challenge_id)
        if challenge is None:
            raise UnknownChallengeError("there is no such challenge")
        if challenge.guild_id != guild_id:
            raise OtherGuildError("that challenge belongs to another server")
        if not challenge.is_pending:
            raise UnknownChallengeError(f"that challenge is no longer open ({challenge.status.value})")
        return challenge

    async def _close_challenge(self, challenge: Challenge, status: ChallengeStatus, text: str) -> Result:
        closed = challenge.evolve(version=challenge.version + 1, status=status)
        try:
            await self._store.save_challenge(challenge, closed)
        except CommitConflict:
            raise PositionChangedError("the challenge changed meanwhile: look again") from None
        kind = {
            ChallengeStatus.DECLINED: EventKind.CHALLENGE_DECLINED,
            ChallengeStatus.CANCELLED: EventKind.CHALLENGE_CANCELLED,
            ChallengeStatus.EXPIRED: EventKind.CHALLENGE_EXPIRED,
        }[status]
        return Result((_challenge_event(kind, text, closed),), challenge=closed)

    async def _check_free(self, guild: str, channel: str, challenger: User, opponent: User | None) -> None:
        """Refuse early (the atomic check is at the game's creation) when the channel or the pair is busy."""
        if self._settings.one_game_per_channel and await self._store.channel_games(guild, channel):
            raise AlreadyPlayingError("this channel already has a game in progress")
        if opponent is not None:
            theirs = set(await self._store.user_games(opponent.id))
            for game in await self._store.load_games(await self._store.user_games(challenger.id)):
                if game.id in theirs and game.kind is GameKind.HUMAN:
                    raise AlreadyPlayingError(f"you and {opponent.name} already have a game in progress")

    @staticmethod
    def _create_error(exc: CommitConflict) -> ServiceError:
        if exc.tag == "channel":
            return AlreadyPlayingError("this channel already has a game in progress")
        if exc.tag == "pair":
            return AlreadyPlayingError("you two already have a game in progress")
        return PositionChangedError("the challenge changed meanwhile: look again")

    async def _remember(self, user: User, other: User | None) -> None:
        names = {user.id: user.name}
        if other is not None:
            names[other.id] = other.name
        await self._store.set_names(names)

    @staticmethod
    def _position(variant: str, fen: str | None) -> Board:
        """The start position: ``fen`` when given (checked), else the variant's; refused when already over."""
        try:
            board = Board(fen, variant) if fen else Board(None, variant)
        except RulesError as exc:
            raise InvalidRequestError(str(exc)) from None
        if board.outcome() is not None:
            raise InvalidRequestError("that position is already over: set up one where both sides can play")
        return board

    def _variant(self, name: str) -> str:
        try:
            return get_variant(name).name
        except RulesError as exc:
            raise InvalidRequestError(str(exc)) from None

    @staticmethod
    def _level(name: str) -> str:
        try:
            return get_level(name).name
        except UnknownLevelError as exc:
            raise InvalidRequestError(str(exc)) from None

    def _turn_time(self, seconds: float | None) -> float:
        s = self._settings
        if seconds is None:
            return s.turn_time_default
        if not s.turn_time_min <= seconds <= s.turn_time_max:
            raise InvalidRequestError(
                f"the time per move must be between {_duration(s.turn_time_min)} and {_duration(s.turn_time_max)}"
            )
        return float(seconds)

    def _think_time(self, seconds: float | None) -> float:
        s = self._settings
        if seconds is None:
            return s.ai_think_time_default
        if not 0 < seconds <= s.ai_think_time_max:
            raise InvalidRequestError(f"the AI may think between 0 and {s.ai_think_time_max:g} seconds a move")
        return float(seconds)


def _challenge_event(kind: EventKind, text: str, challenge: Challenge, game_id: str | None = None) -> Event:
    """An event about ``challenge``, with its guild and channel so a front end can show it anywhere, any time."""
    return Event(kind, text, game_id, challenge.id, guild_id=challenge.guild_id, channel_id=challenge.channel_id)


def _duration(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds:g} seconds"
