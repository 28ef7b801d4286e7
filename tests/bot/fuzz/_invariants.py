"""What must hold after every step of the fuzz, checked against what Redis stores.

:class:`Invariants` follows every write to a game or challenge record through Redis keyspace notifications (the fuzz's
Redis is its own, with ``notify-keyspace-events Kh``), so after each step it checks exactly the records written since
the previous check, whoever wrote them (a request, an AI turn in the background, the sweeper), and everything at the
end. Checked, for each game written:

- its stored moves replay by the rules of the core from its initial position (every move legal), the side to move
  that the state derives agrees with the replay, an active game is not over by the rules, and a game over by the
  rules (no pieces, no moves, repetition, the move limit) ended exactly as the rules say (result and winner); a game
  ended by agreement, resignation or time was not over by the rules;
- its version never goes down, and a version seen twice shows the same moves, status and result;
- its board message (the message front ends edit with its updates) is no other game's;
- the indexes agree with its state (an active game is in its channel's, its players' and the deadline index; a
  finished one in none of them and in its players' history), at most one active game per channel, one per pair of
  people; at most the allowed games against the AI per person, and exhibitions per server.

And for each challenge written: its version never goes down, a closed challenge never opens again, an accepted one
names a game between its two people, and a pending one is in its people's indexes and counts within the limits of
pending challenges per sender and per target.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import redis.asyncio as aioredis

from bot.service import DELETED_NAME, Challenge, ChallengeStatus, GameKind, GameState, Status
from bot.settings import Settings
from bot.store import NAMESPACE, RedisGameStore
from core import Board, Color, Outcome, Termination

RULE_ENDINGS = {Termination.NO_PIECES, Termination.NO_MOVES, Termination.REPETITION, Termination.MOVE_LIMIT}
_GAME_KEY = f"{NAMESPACE}:game:"
_CHALLENGE_KEY = f"{NAMESPACE}:challenge:"


class Pool:
    """Ids to draw from at random, each added, removed and drawn in constant time (the fuzz draws one per step from
    thousands)."""

    def __init__(self) -> None:
        self._items: list[str] = []
        self._at: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._items)

    def add(self, item: str) -> None:
        if item not in self._at:
            self._at[item] = len(self._items)
            self._items.append(item)

    def discard(self, item: str) -> None:
        index = self._at.pop(item, None)
        if index is None:
            return
        last = self._items.pop()
        if index < len(self._items):
            self._items[index] = last
            self._at[last] = index

    def pick(self, rng: random.Random) -> str | None:
        return self._items[rng.randrange(len(self._items))] if self._items else None


class InvariantError(AssertionError):
    """An invariant of the stored games or challenges does not hold."""


@dataclass
class _Seen:
    """What the checker last saw of one game: its state and the board that replays its moves."""

    game: GameState
    board: Board


class ErrorLog(logging.Handler):
    """Keeps every log record at ERROR or above (a traceback the bot logged, a task whose exception nobody read)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def check(self) -> None:
        if self.records:
            trace = self.format(self.records[0])
            raise InvariantError(f"{len(self.records)} record(s) logged at ERROR, the first:\n{trace}")


class Invariants:
    """The checker: ``await start()``, then ``await check()`` after every step and ``await check_all()`` at the end."""

    def __init__(
        self, client: aioredis.Redis, settings: Settings, on_game: Callable[[GameState], None] | None = None
    ) -> None:
        """``on_game`` checks more of each game written (the Discord fuzz: where its board message is)."""
        self._r = client
        self._on_game = on_game
        self._playing: dict[str, str] = {}
        """Each channel's active game, as last checked."""
        self._store = RedisGameStore(client)
        self._settings = settings
        self._pubsub = client.pubsub()
        self._games: dict[str, _Seen] = {}
        self._challenges: dict[str, Challenge] = {}
        self._boards: dict[tuple[str, str], str] = {}
        """Each board message seen, as (channel id, message id), to the game it belongs to."""
        self.active, self.finished = Pool(), Pool()
        """The games seen, as last checked: being played, and over."""
        self.pending, self.closed = Pool(), Pool()
        """The challenges seen, as last checked: waiting for an answer, and closed."""
        self.checked = 0
        """Games and challenges checked so far (each time one is checked)."""

    async def start(self) -> None:
        await self._r.config_set("notify-keyspace-events", "Kh")
        await self._pubsub.psubscribe(f"__keyspace@*__:{_GAME_KEY}*", f"__keyspace@*__:{_CHALLENGE_KEY}*")
        while await self._pubsub.get_message(timeout=1.0) is not None:  # the subscription confirmations
            pass

    async def close(self) -> None:
        await self._pubsub.aclose()

    # -- what the fuzz may ask of it ------------------------------------------------------------------------------

    def game(self, game_id: str) -> GameState | None:
        seen = self._games.get(game_id)
        return seen.game if seen is not None else None

    def board(self, game_id: str) -> Board | None:
        """The position of the game as last checked (the fuzz picks real moves from it; do not change it)."""
        seen = self._games.get(game_id)
        return seen.board if seen is not None else None

    def game_in(self, channel_id: str) -> GameState | None:
        """The active game of a channel (or thread), as last checked."""
        game_id = self._playing.get(channel_id)
        return self.game(game_id) if game_id is not None else None

    def challenge(self, challenge_id: str) -> Challenge | None:
        return self._challenges.get(challenge_id)

    # -- checking -------------------------------------------------------------------------------------------------

    async def check(self) -> None:
        """Check every game and challenge written since the last check."""
        games, challenges = set[str](), set[str]()
        while (message := await self._pubsub.get_message(timeout=0.0)) is not None:
            if message["type"] != "pmessage":
                continue
            key = message["channel"].decode().split(":", 1)[1]
            if key.startswith(_GAME_KEY):
                games.add(key.removeprefix(_GAME_KEY))
            elif key.startswith(_CHALLENGE_KEY):
                challenges.add(key.removeprefix(_CHALLENGE_KEY))
        await self._check(games, challenges)

    async def check_all(self) -> None:
        """Check every game and challenge stored or ever seen."""
        await self.check()
        stored = {k.decode().removeprefix(_GAME_KEY) async for k in self._r.scan_iter(match=f"{_GAME_KEY}*")}
        games = {k for k in stored if ":" not in k} | set(self._games)
        listed = self._r.scan_iter(match=f"{_CHALLENGE_KEY}*")
        challenges = {k.decode().removeprefix(_CHALLENGE_KEY) async for k in listed} | set(self._challenges)
        await self._check(games, challenges)

    async def _check(self, game_ids: Iterable[str], challenge_ids: Iterable[str]) -> None:
        games = await self._store.load_games(sorted(game_ids))
        for game in games:
            self._check_game(game)
        if games:
            await self._check_indexes(games)
        for challenge_id in sorted(challenge_ids):
            challenge = await self._store.load_challenge(challenge_id)
            if challenge is not None:
                await self._check_challenge(challenge)
                self.checked += 1
        self.checked += len(games)

    def _check_game(self, game: GameState) -> None:
        seen = self._games.get(game.id)
        if seen is not None:
            before = seen.game
            if game.version < before.version:
                raise InvariantError(f"game {game.id}: version went down from {before.version} to {game.version}")
            if game.version == before.version and _essence(game) != _essence(before):
                change = f"{_essence(before)} -> {_essence(game)}"
                raise InvariantError(f"game {game.id}: changed at the same version {game.version}: {change}")
        grown = seen is not None and game.moves[: len(seen.game.moves)] == seen.game.moves
        board = _replayed(game, seen if grown else None)
        _check_ending(game, board)
        if game.board_message is not None:
            where = (game.board_message.channel_id, game.board_message.message_id)
            owner = self._boards.setdefault(where, game.id)
            if owner != game.id:
                raise InvariantError(f"games {owner} and {game.id} both have the board message {where}")
        self._games[game.id] = _Seen(game, board)
        if game.is_active:
            self._playing[game.channel_id] = game.id
            self.active.add(game.id)
        else:
            if self._playing.get(game.channel_id) == game.id:
                del self._playing[game.channel_id]
            self.active.discard(game.id)
            self.finished.add(game.id)
        if self._on_game is not None:
            self._on_game(game)

    async def _check_indexes(self, games: list[GameState]) -> None:
        """The indexes of ``games`` against their states; a game written again since it was read (an AI moves in the
        background) is left to the check after that write."""
        ns = NAMESPACE
        async with self._r.pipeline(transaction=True) as pipe:
            for game in games:
                pipe.hget(f"{_GAME_KEY}{game.id}", "v")
                channel = f"{ns}:guild:{game.guild_id}:channel:{game.channel_id}:games"
                pipe.sismember(channel, game.id)
                pipe.scard(channel)
                pipe.zscore(f"{ns}:deadlines", game.id)
                for player in game.humans():
                    pipe.sismember(f"{ns}:user:{player.id}:games", game.id)
                    pipe.zscore(f"{ns}:user:{player.id}:history", game.id)
                    pipe.scard(f"{ns}:user:{player.id}:ai")
                pipe.scard(f"{ns}:guild:{game.guild_id}:exhibitions")
                pipe.get(f"{ns}:pair:{'|'.join(sorted((game.black.id, game.white.id)))}")
            replies = iter(await pipe.execute())
        settings = self._settings
        for game in games:
            version, in_channel, channel_games, deadline = next(replies), next(replies), next(replies), next(replies)
            active = game.is_active
            players = [(next(replies), next(replies), next(replies)) for _ in game.humans()]
            exhibitions, paired = next(replies), next(replies)
            if version is None or int(version) != game.version:
                continue
            where = f"game {game.id} ({game.status.value})"
            _expect(bool(in_channel) == active, f"{where}: in its channel's index: {bool(in_channel)}")
            _expect(deadline is not None or not active, f"{where}: active but not in the deadline index")
            _expect(deadline is None or active, f"{where}: finished but still in the deadline index")
            if settings.one_game_per_channel:
                _expect(channel_games <= 1, f"{where}: its channel has {channel_games} active games")
            for player, (playing, history, ai_games) in zip(game.humans(), players, strict=True):
                if player.name == DELETED_NAME:
                    continue  # the player's data was erased: the game is anonymised, in nobody's indexes
                _expect(bool(playing) == active, f"{where}: in the games of {player.id}: {bool(playing)}")
                _expect((history is not None) != active, f"{where}: in the history of {player.id}: {history}")
                _expect(ai_games <= settings.ai_games_per_user, f"{player.id} has {ai_games} AI games")
            _expect(exhibitions <= settings.exhibitions_per_guild, f"guild {game.guild_id}: {exhibitions} exhibitions")
            if active and game.kind is GameKind.HUMAN and game.black.id != game.white.id:
                _expect(paired is not None and paired.decode() == game.id, f"{where}: the pair's game is {paired!r}")

    async def _check_challenge(self, challenge: Challenge) -> None:
        where = f"challenge {challenge.id} ({challenge.status.value}, version {challenge.version})"
        before = self._challenges.get(challenge.id)
        if before is not None:
            _expect(challenge.version >= before.version, f"{where}: version went down from {before.version}")
            _expect(before.is_pending or challenge.status is before.status, f"{where}: was {before.status.value}")
        self._challenges[challenge.id] = challenge
        if challenge.is_pending:
            self.pending.add(challenge.id)
        else:
            self.pending.discard(challenge.id)
            self.closed.add(challenge.id)
        ns = NAMESPACE
        people = [challenge.challenger.id] + ([challenge.opponent.id] if challenge.opponent is not None else [])
        async with self._r.pipeline(transaction=True) as pipe:
            pipe.hget(f"{_CHALLENGE_KEY}{challenge.id}", "v")
            for person in people:
                pipe.sismember(f"{ns}:user:{person}:challenges", challenge.id)
            pipe.zscore(f"{ns}:challenges:expiry", challenge.id)
            pipe.zcount(f"{ns}:user:{challenge.challenger.id}:sent", f"({challenge.created_at}", "+inf")
            if challenge.opponent is not None:
                pipe.zcount(f"{ns}:user:{challenge.opponent.id}:received", f"({challenge.created_at}", "+inf")
            version, *replies = await pipe.execute()
        if version is None or int(version) != challenge.version:
            return  # written again since it was read: checked after that write
        listed, expiry = replies[: len(people)], replies[len(people)]
        if challenge.is_pending:
            _expect(all(listed) and expiry is not None, f"{where}: missing from its indexes ({listed}, {expiry})")
        else:
            _expect(not any(listed) and expiry is None, f"{where}: still in the pending indexes ({listed}, {expiry})")
        sent = replies[len(people) + 1]
        _expect(sent <= self._settings.challenges_per_sender, f"{challenge.challenger.id} has {sent} challenges out")
        if challenge.opponent is not None:
            received = replies[len(people) + 2]
            limit = self._settings.challenges_per_target
            _expect(received <= limit, f"{challenge.opponent.id} has {received} challenges waiting")
        if challenge.status is ChallengeStatus.ACCEPTED:
            _expect(challenge.game_id is not None, f"{where}: accepted without a game")
            game = await self._store.load_game(challenge.game_id or "")
            _expect(game is not None, f"{where}: its game {challenge.game_id} does not exist")
            assert game is not None
            # An erased player's side reads "deleted" (the erasure anonymises the game before it deletes their
            # closed challenges): it stands for anyone.
            players = {p.id for p in (game.black, game.white) if p.name != DELETED_NAME}
            between = f"game {game.id} is between {players}, the challenge between {people}"
            erased = 2 - len(players)
            _expect(challenge.challenger.id in players or erased, f"{where}: {between}")
            if challenge.opponent is not None:
                _expect(players <= set(people) and len(players) + erased == 2, f"{where}: {between}")
        else:
            _expect(challenge.game_id is None, f"{where}: names game {challenge.game_id}")


def _expect(condition: object, text: str) -> None:
    if not condition:
        raise InvariantError(text)


def _essence(game: GameState) -> tuple[object, ...]:
    """What a game's version stands for (a person's erasure may anonymise names without a new version)."""
    return (game.moves, game.status, game.result, game.termination, game.draw_offer, game.takeback_offer)


def _replayed(game: GameState, seen: _Seen | None) -> Board:
    """The board after the game's moves, replayed by the rules from its initial position (on from ``seen``, the
    board last checked, when the moves only grew); raises :class:`InvariantError` on a move the rules refuse."""
    if seen is not None:
        board, start = seen.board.copy(), len(seen.game.moves)
    else:
        board, start = Board(game.initial_fen, game.variant), 0
    for ply, text in enumerate(game.moves[start:], start + 1):
        try:
            board.push(board.parse_move(text))
        except Exception as exc:
            raise InvariantError(f"game {dumps(game)}: move {ply} {text!r} does not replay: {exc}") from exc
    if board.turn is not game.turn:
        raise InvariantError(f"game {game.id}: the state says {game.turn.label} is to move, the replay {board.turn}")
    return board


def _check_ending(game: GameState, board: Board) -> None:
    by_rules = board.outcome()
    if game.status is Status.ACTIVE:
        _expect(by_rules is None, f"game {game.id}: active, but the rules say {by_rules}")
        return
    termination = Termination(game.termination)
    winner = {None: None, "black": Color.BLACK, "white": Color.WHITE}[game.winner]
    outcome = Outcome(termination, winner)
    _expect(game.result == outcome.result(), f"game {game.id}: result {game.result} for {outcome}")
    if termination in RULE_ENDINGS:
        _expect(by_rules == outcome, f"game {game.id}: ended {outcome}, the rules say {by_rules}")
    else:
        _expect(by_rules is None, f"game {game.id}: ended {outcome}, yet the rules had ended it: {by_rules}")


def dumps(game: GameState) -> str:
    """A game in a failure message."""
    fields = ("id", "version", "variant", "initial_fen", "moves", "status", "kind", "takebacks")
    return json.dumps({name: str(getattr(game, name)) for name in fields})
