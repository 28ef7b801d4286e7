"""The game service: every command of King Me, independent of Discord.

Each command on a game runs the one pipeline (:mod:`bot.service._pipeline`): lock, load, plan a pure step, save it
with one guarded write, schedule the AI, and hand the events to the observers (the metrics). AI moves are chosen with
no lock held (:mod:`bot.service._ai_turns`) and applied through the same pipeline with the version they were asked
for; a result for an outdated version is dropped.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial

from bot.i18n import _
from bot.service import _models as models
from bot.service import _options, _transitions
from bot.service._challenges import Challenges, accepted_game
from bot.service._daily import DailyPuzzles
from bot.service._errors import ServiceError, UnknownGameError
from bot.service._events import Result
from bot.service._ids import ChallengeId, ChannelId, GameId, GuildId, MessageId, RequestId, UserId
from bot.service._limits import RateLimits
from bot.service._models import User
from bot.service._notes import Notes
from bot.service._pipeline import Clock, Pipeline, Room
from bot.service._places import NO_GUILD, Place
from bot.service._ports import (
    CommitConflict,
    EventObserver,
    EventSink,
    GameReviewer,
    GameStore,
    MoveChooser,
    NullSink,
)
from bot.service._privacy import Erasure, PersonalData, Privacy, Tidyings
from bot.service._puzzles import Puzzles
from bot.service._queries import Queries
from bot.service._review import Reviews
from bot.service._seasons import Seasons
from bot.service._standings import Standings
from bot.service._tournaments import Tournaments
from bot.service._training import Training
from bot.service._transitions import Skip, Step
from bot.settings import DAY, Settings
from core import Board

log = logging.getLogger(__name__)
Key = RequestId | None
"""A request's idempotency key (see :mod:`bot.service._requests`), None for none."""


class GameService(Queries, Notes, Training):
    """King Me's games: challenges, moves, AI turns, draws, takebacks, timeouts, ratings and queries.

    Args:
        store: where games live (:class:`bot.store.RedisGameStore`).
        chooser: picks AI moves (the AI process pool).
        settings: limits and defaults (challenge TTL, turn times, AI thinking time, per-channel and per-pair rules,
            the limits on AI games, exhibitions and pending challenges, and the rate limits).
        clock: the time in epoch seconds; tests pass their own to move time without sleeping.
        sink: receives events that happen outside a request (AI moves, timeouts, expired challenges).
        observers: hear the events of every committed step once (the metrics count moves and endings with them).
        reviewer: reviews finished games (the AI pool; without one, ``analyse`` serves stored reviews only).
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
        observers: Iterable[EventObserver] = (),
        reviewer: GameReviewer | None = None,
    ) -> None:
        self._store = store
        self._settings = settings if settings is not None else Settings()
        self._clock = clock
        self._sink: EventSink = sink if sink is not None else NullSink()
        self._rng = rng if rng is not None else random.Random()
        self._standings = Standings(store, self._settings.rated_games_per_pair_per_day)
        self._pipe = Pipeline(store, self._standings, chooser, self._settings, clock, self._sink, tuple(observers))
        self._challenges = Challenges(store, self._settings, clock)
        self._rates = RateLimits(store, self._settings, clock)
        self._privacy = Privacy(store, clock)
        self.tidyings = Tidyings(store)
        """The erasures whose posts a front end is still editing (:class:`~bot.service._privacy.Tidying`)."""
        self.daily = DailyPuzzles(store, clock)
        """The servers' daily puzzles (:mod:`bot.service._daily`), posted by the sweep."""
        self.puzzles = Puzzles(store, clock, self._rng, self.daily)
        """Puzzles, one person's at a time (:mod:`bot.service._puzzles`)."""
        self._reviews = Reviews(store, reviewer, self.puzzles.from_review)
        self.seasons = Seasons(store, clock)
        """The servers' seasons (:mod:`bot.service._seasons`)."""
        self.tournaments = Tournaments(store, self._pipe, self._settings, clock, self._sink)
        """Swiss and round-robin tournaments (:mod:`bot.service._tournaments`)."""
        self._pipe.add_observer(self.tournaments.observe)

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def cached_games(self) -> int:
        """Games whose state this service keeps in memory (at most :data:`~bot.service._pipeline.CACHED_GAMES`)."""
        return len(self._pipe.cache)

    @property
    def ai_turns_in_flight(self) -> int:
        """AI turns this process is working on now."""
        return self._pipe.ai.in_flight

    @property
    def ai_turns_waiting(self) -> int:
        """AI turns of this process waiting for their place at the AI (shared fairly between the people playing)."""
        return self._pipe.ai.waiting

    async def rate_limit(self, user_id: UserId, guild_id: GuildId | None) -> None:
        """Count one command or click of a person in a server against the rate limits (shared by every process);
        raises :class:`~bot.service.RateLimitedError`, with when to try again, when they or the server go too fast.
        A front end calls it before each command or click (not for autocomplete)."""
        await self._rates.take(user_id, guild_id if guild_id is not None else None)

    # -- lifecycle ------------------------------------------------------------------------------------------------

    async def start(self) -> int:
        """Resume every stored game where an AI is to move (after a restart); returns how many were resumed."""
        return len(self._pipe.ai.resume(await self._store.load_games(await self._store.active_game_ids())))

    async def close(self) -> None:
        """Stop scheduling AI turns and cancel the pending ones (their games resume on the next start), and the reviews
        being computed."""
        await self._pipe.ai.close()
        await self._reviews.close()
        await self.tournaments.close()

    # -- challenges -----------------------------------------------------------------------------------------------

    async def challenge(
        self,
        guild_id: GuildId,
        channel_id: ChannelId,
        challenger: User,
        opponent: User | None,
        *,
        variant: str = "american",
        turn_time: float | None = None,
        color: str = "random",
        fen: str | None = None,
        rematch_of: GameId | None = None,
        own_room: bool = False,
        request: RequestId | None = None,
        place: Place = Place.SERVER,
    ) -> Result:
        """Propose a game to ``opponent`` (or to anyone in the channel when None), in ``place``. It expires unanswered.
        The game is rated, unless it starts from the position ``fen`` (checked now, so a bad FEN is refused at once).
        With ``own_room`` (the front end will open the game a room of its own when it is accepted) the channel need not
        be free of games. A person may have at most ``CHALLENGES_PER_SENDER`` pending challenges, and be sent at most
        ``CHALLENGES_PER_TARGET`` (:class:`~bot.service.LimitReachedError`)."""
        options = (variant, turn_time, color, fen, rematch_of, own_room, request, place)
        result = await self._challenges.create(guild_id, channel_id, challenger, opponent, *options)
        return self._pipe.observed(result)

    async def get_challenge(self, challenge_id: ChallengeId, guild_id: GuildId | None = None) -> models.Challenge:
        """A challenge in any state (pending, accepted, declined, cancelled, expired), with where it is shown."""
        return await self._challenges.get(challenge_id, guild_id)

    async def set_challenge_message(
        self, challenge_id: ChallengeId, channel_id: ChannelId, message_id: MessageId
    ) -> None:
        """Record the message that shows a challenge, so its end is shown there (also after a restart)."""
        await self._challenges.set_message(challenge_id, models.MessageRef.of(channel_id, message_id))

    async def accept(
        self,
        challenge_id: ChallengeId,
        guild_id: GuildId,
        user: User,
        *,
        channel_id: ChannelId | None = None,
        request: RequestId | None = None,
    ) -> Result:
        """Accept a challenge: the game starts (colours as the challenger chose, or at random). With ``channel_id``
        (a thread opened for the game) the game is played and filed there, not in the challenge's channel: the
        one-game-per-channel rule then applies to that channel."""
        challenge = await self.check_accept(challenge_id, guild_id, user)
        side = _options.side(challenge.color, self._rng)
        channel = channel_id if channel_id is not None else challenge.channel_id
        step, closed = accepted_game(challenge, user, side, channel, self._clock())
        result = await self._pipe.open(step, challenge=(challenge, closed), request=request)
        await self._remember(user)
        return result

    async def check_accept(self, challenge_id: ChallengeId, guild_id: GuildId, user: User) -> models.Challenge:
        """The challenge if ``user`` may accept it now (raises what :meth:`accept` would), writing nothing: a front end
        asks before it prepares a place for the game (a thread)."""
        return await self._challenges.check_accept(challenge_id, guild_id, user)

    async def decline(
        self, challenge_id: ChallengeId, guild_id: GuildId, user: User, *, request: RequestId | None = None
    ) -> Result:
        """The challenged user turns a challenge down."""
        return self._pipe.observed(await self._challenges.decline(challenge_id, guild_id, user, request))

    async def cancel(
        self, challenge_id: ChallengeId, guild_id: GuildId, user: User, *, request: RequestId | None = None
    ) -> Result:
        """The challenger withdraws a challenge."""
        return self._pipe.observed(await self._challenges.cancel(challenge_id, guild_id, user, request))

    async def challenges_of(self, user_id: UserId) -> list[models.Challenge]:
        """A user's pending challenges, sent or received."""
        return await self._challenges.of_user(user_id)

    # -- games against the AI -------------------------------------------------------------------------------------

    async def play_ai(
        self,
        guild_id: GuildId,
        channel_id: ChannelId,
        user: User,
        level: str,
        *,
        color: str = "black",
        variant: str = "american",
        fen: str | None = None,
        think_time: float | None = None,
        turn_time: float | None = None,
        rematch_of: GameId | None = None,
        room: Room | None = None,
        request: RequestId | None = None,
        place: Place = Place.SERVER,
    ) -> Result:
        """Start a game against an AI level, in ``place``. Such games are unrated and count in the versus-the-bot
        record. The AI thinks ``think_time`` seconds a move, or its level's own time when None (both capped by the
        settings). With ``room`` the game is played in the room it opens (see :data:`Room`). A person may have at most
        ``AI_GAMES_PER_USER`` of them at once (:class:`~bot.service.LimitReachedError`)."""
        side = _options.side(_options.color_choice(color), self._rng)
        me, ai = models.PlayerRef.human(user), models.PlayerRef.ai(_options.level_name(level))
        players = (me, ai) if side == "black" else (ai, me)
        where, now = (guild_id, channel_id), self._clock()
        options = (variant, fen, think_time, turn_time, rematch_of, place)
        step = _options.ai_game(self._settings, models.GameKind.AI, where, players, now, *options)
        result = await self._pipe.open(step, room=room, request=request)
        await self._remember(user)
        return result

    async def exhibition(
        self,
        guild_id: GuildId,
        channel_id: ChannelId,
        black_level: str,
        white_level: str,
        *,
        variant: str = "american",
        fen: str | None = None,
        think_time: float | None = None,
        room: Room | None = None,
        request: RequestId | None = None,
    ) -> Result:
        """Start an AI-versus-AI game to watch (in the room ``room`` opens, if any); its moves arrive through the event
        sink. A server may have at most ``EXHIBITIONS_PER_GUILD`` at once (:class:`~bot.service.LimitReachedError`)."""
        players = (
            models.PlayerRef.ai(_options.level_name(black_level)),
            models.PlayerRef.ai(_options.level_name(white_level)),
        )
        where, now = (guild_id, channel_id), self._clock()
        step = _options.ai_game(
            self._settings, models.GameKind.EXHIBITION, where, players, now, variant, fen, think_time
        )
        return await self._pipe.open(step, room=room, request=request)

    # -- moves and other commands on a game -----------------------------------------------------------------------

    async def move(
        self,
        game_id: GameId,
        guild_id: GuildId | None,
        user: User,
        move: str | int,
        *,
        version: int | None = None,
        request: RequestId | None = None,
    ) -> Result:
        """Play a move, given as PDN text (``11-15``, ``15x24``, ``1x10x19``) or as an index into the view's
        ``legal_moves``. With ``version`` (the version the front end showed) a changed game is refused; an index
        should always come with its version. A move the rules refuse raises core's :class:`IllegalMoveError`."""
        plan = partial(_transitions.move, user=user, move=move)
        return await self._pipe.transact(game_id, guild_id, plan, expected_version=version, request=request)

    async def resign(self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None) -> Result:
        return await self._act(_transitions.resign, game_id, guild_id, user, request)

    async def offer_draw(self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None) -> Result:
        """Offer a draw; if the opponent had already offered one, the game is drawn."""
        return await self._act(_transitions.offer_draw, game_id, guild_id, user, request)

    async def accept_draw(
        self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None
    ) -> Result:
        return await self._act(_transitions.accept_draw, game_id, guild_id, user, request)

    async def decline_draw(
        self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None
    ) -> Result:
        return await self._act(_transitions.decline_draw, game_id, guild_id, user, request)

    async def takeback(self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None) -> Result:
        """Ask to take your last move back. Against the AI it is done at once; a person must agree
        (:meth:`accept_takeback`)."""
        return await self._act(_transitions.takeback, game_id, guild_id, user, request)

    async def accept_takeback(
        self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None
    ) -> Result:
        return await self._act(_transitions.accept_takeback, game_id, guild_id, user, request)

    async def decline_takeback(
        self, game_id: GameId, guild_id: GuildId | None, user: User, *, request: Key = None
    ) -> Result:
        return await self._act(_transitions.decline_takeback, game_id, guild_id, user, request)

    async def _act(
        self, plan: Callable[..., Step], game_id: GameId, guild_id: GuildId | None, user: User, request: Key
    ) -> Result:
        return await self._pipe.transact(game_id, guild_id, partial(plan, user=user), request=request)

    async def rematch(
        self,
        game_id: GameId,
        guild_id: GuildId | None,
        user: User,
        *,
        channel_id: ChannelId | None = None,
        room: Room | None = None,
        request: RequestId | None = None,
        place: Place | None = None,
    ) -> Result:
        """Offer the same game again (same variant, start position and clock) with colours swapped: a new challenge,
        or at once against the AI; in ``channel_id`` (where it was asked for) or else in the game's channel, or in a
        room of its own with ``room`` (a challenge then leaves opening it to its acceptance); in ``place`` (where it
        was asked for), else where the game was played."""
        game = await self._pipe.load(game_id, guild_id)
        other, swapped = _transitions.rematch_sides(game, user)
        channel = channel_id if channel_id is not None else game.channel_id
        place = place or game.place
        guild = NO_GUILD if place.through_interactions else game.guild_id
        if other.level is not None:
            return await self.play_ai(
                guild,
                channel,
                user,
                other.level,
                color=swapped,
                variant=game.variant,
                fen=game.initial_fen,
                think_time=game.ai_think_time,
                turn_time=game.turn_time,
                rematch_of=game.id,
                room=room,
                request=request,
                place=place,
            )
        fen = game.initial_fen if game.initial_fen != Board(None, game.variant).initial_fen else None
        opponent = User(other.id, other.name)
        options = (game.variant, game.turn_time, swapped, fen, game.id, room is not None, request, place)
        result = await self._challenges.create(guild, channel, user, opponent, *options)
        return self._pipe.observed(result)

    async def set_board_message(self, game_id: GameId, channel_id: ChannelId, message_id: MessageId) -> None:
        """Record the message that shows the game's board, so a change that happens outside an interaction (an AI
        move, a timeout) edits it, also after a restart. It does not change the game's version."""
        where = models.MessageRef.of(channel_id, message_id)
        try:
            await self._store.set_board_message(game_id, where)
        except CommitConflict:
            raise UnknownGameError(_("there is no game {game}", game=repr(str(game_id)[:40]))) from None
        cached = self._pipe.cache.get(game_id)
        if cached is not None:
            self._pipe.cache[game_id] = replace(cached, board_message=where)

    async def close_room(self, guild_id: GuildId, channel_id: ChannelId) -> bool:
        """Close a room whose game did not start (a thread opened for it), unless a game is filed there now: in one
        write with every game's creation, so a game is never filed in a room that is closing. True if it closed
        (the front end then archives it); no game can be started there afterwards."""
        return await self._store.close_room(guild_id, channel_id)

    # -- personal data --------------------------------------------------------------------------------------------

    async def personal_data(self, user_id: UserId) -> PersonalData:
        """What King Me stores about a user (``/checkers privacy``)."""
        return replace(await self._privacy.report(user_id), puzzles=await self.puzzles.stored(user_id))

    async def erase_personal_data(self, user_id: UserId) -> Erasure:
        """Delete what King Me stores about a user and anonymise their finished games (see :mod:`._privacy`); refused
        while they have a game in progress or a pending challenge."""
        erasure = await self._privacy.erase(user_id)
        await self.puzzles.erase(user_id)  # their puzzles, rating, votes and daily results
        return erasure

    # -- background work ------------------------------------------------------------------------------------------

    async def sweep(self, limit: int = 200) -> list[Result]:
        """End overdue games (a loss on time for the side to move), expire old challenges and delete finished games
        older than ``GAME_RETENTION_DAYS`` (when set); publishes and returns what happened. It also starts again every
        AI turn that has waited longer than ``ai_retry_after`` with no search of this process on it (the AI failed, the
        store was unavailable, or the process searching it stopped), so no game stays stuck; a second search of the
        same version elsewhere is harmless (the first answer applies, the other is dropped). The :class:`Sweeper`
        calls this on a timer."""
        now = self._clock()
        results: list[Result] = []
        waiting = await self._store.ai_turns(now - self._settings.ai_retry_after, limit)
        for game in self._pipe.ai.resume(await self._store.load_games(waiting)):
            log.info("sweeper restarted the AI turn of game %s (version %d)", game.id, game.version)
        for game_id in await self._store.due_games(now, limit):
            try:
                result = await self._pipe.transact(game_id, None, _transitions.timeout)
            except (Skip, ServiceError) as exc:
                log.debug("sweeper skipped game %s: %s", game_id, exc)
                continue
            results.append(result)
            await self._sink.publish(result.game, result.events)
        for result in await self._challenges.expire_due(now, limit):
            results.append(self._pipe.observed(result))
            await self._sink.publish(None, result.events)
        if self._settings.game_retention_days is not None:
            cutoff = now - self._settings.game_retention_days * DAY
            if deleted := await self._privacy.delete_finished(cutoff, limit):
                log.info("deleted %d finished games older than GAME_RETENTION_DAYS", deleted)
        await self.tournaments.sweep()
        for post in await self.daily.due():  # each server's daily puzzle once its hour has come
            await self._sink.publish(None, [post])
        return results

    async def _remember(self, *users: User | None) -> None:
        await self._store.set_names({user.id: user.name for user in users if user is not None})
