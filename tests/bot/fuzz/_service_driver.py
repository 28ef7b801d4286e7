"""The service half of the fuzz: random calls of :class:`~bot.service.GameService`, the same calls the cog makes,
with random and hostile arguments, by random people in random servers and channels.

Each :meth:`ServiceDriver.step` makes one call and returns a line saying what it asked and what came back. The only
errors that may come back are the service's own (:class:`~bot.service.ServiceError`) and a move the rules refuse
(:class:`core.RulesError`), which the front ends show as they are; anything else propagates and fails the run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.service import Challenge, ChannelId, GameService, GameState, GuildId, MessageId, ServiceError, User
from core import RulesError
from tests.bot.fuzz._inputs import Inputs
from tests.bot.fuzz._invariants import Invariants
from tests.support import Clock

EXPECTED = (ServiceError, RulesError)
"""What a refused request may raise: the service's typed errors and the rules' own (an illegal move)."""


@dataclass
class World:
    """The servers, channels and people of the fuzz (ids as Discord's snowflakes, as strings and numbers)."""

    guilds: list[int]
    channels: dict[int, list[int]]
    users: list[User]
    next_id: int = 10**17
    threads: list[int] = field(default_factory=list)

    @classmethod
    def make(cls, inputs: Inputs, guilds: int = 3, channels: int = 4, people: int = 12) -> World:
        world = cls([], {}, [])
        for _ in range(guilds):
            guild = world.snowflake()
            world.guilds.append(guild)
            world.channels[guild] = [world.snowflake() for _ in range(channels)]
        for n in range(people):
            name = f"player{n}" if inputs.chance(0.7) else inputs.text() or "?"
            world.users.append(User(world.snowflake(), name))
        return world

    def snowflake(self) -> int:
        self.next_id += 1 + (self.next_id % 7)
        return self.next_id


class ServiceDriver:
    """Makes random calls of ``service``; what it knows of the games and challenges comes from ``checked``."""

    def __init__(self, service: GameService, checked: Invariants, inputs: Inputs, clock: Clock, world: World) -> None:
        self.service = service
        self.checked = checked
        self.inputs = inputs
        self.clock = clock
        self.world = world
        self.outcomes: dict[str, int] = {}
        """How often each kind of answer came back (``move: ok``, ``move: IllegalMoveError``...)."""
        self._ops: list[tuple[Callable[[], Awaitable[str]], int]] = [
            (self.play_ai, 6),
            (self.exhibition, 1),
            (self.challenge, 6),
            (self.accept, 6),
            (self.decline_or_cancel, 3),
            (self.move, 40),
            (self.game_action, 14),
            (self.rematch, 2),
            (self.set_board_message, 3),
            (self.query, 10),
            (self.privacy, 1),
            (self.rate_limit, 3),
            (self.time_passes, 2),
        ]
        self._weights = [weight for _, weight in self._ops]

    async def step(self) -> str:
        """One random call; returns what it was and what it answered."""
        self.clock.advance(self.inputs.rng.random() * 0.5)
        (op,) = self.inputs.rng.choices([op for op, _ in self._ops], self._weights)
        return await op()

    # -- choosing what to act on ----------------------------------------------------------------------------------

    def _game(self) -> tuple[str, GameState | None]:
        """A game id to act on: mostly a known game (an active one first), else a hostile id."""
        i, checked = self.inputs, self.checked
        game_id = (checked.active if i.chance(0.8) else checked.finished).pick(i.rng)
        if game_id is None or i.chance(0.1):
            return i.id_like(game_id or checked.finished.pick(i.rng)), None
        return game_id, checked.game(game_id)

    def _challenge(self) -> tuple[str, Challenge | None]:
        i, checked = self.inputs, self.checked
        challenge_id = (checked.pending if i.chance(0.8) else checked.closed).pick(i.rng)
        if challenge_id is None or i.chance(0.1):
            return i.id_like(challenge_id or checked.active.pick(i.rng)), None
        return challenge_id, checked.challenge(challenge_id)

    def _user(self, likely: list[str] | None = None) -> User:
        """Mostly one of ``likely`` (the people of a game), else anyone; sometimes under another name."""
        i = self.inputs
        people = self.world.users
        if likely and i.chance(0.75):
            wanted = i.pick(likely)
            user = next((u for u in people if u.id == wanted), None) or i.pick(people)
        else:
            user = i.pick(people)
        return User(user.id, i.text()) if i.chance(0.05) else user

    def _guild(self, own: str | None) -> GuildId | None:
        """The guild a request comes from: mostly the record's own, else another, none, or a hostile one."""
        i = self.inputs
        if own is not None and i.chance(0.8):
            return GuildId(own)
        picked = i.pick([*self.world.guilds, None, 0, "x"])
        return None if picked is None else GuildId(str(picked))

    def _where(self) -> tuple[GuildId, ChannelId]:
        guild = self.inputs.pick(self.world.guilds)
        channel = self.inputs.pick(self.world.channels[guild] + self.world.threads[-5:])
        return GuildId(str(guild)), ChannelId(str(channel))

    async def _room(self) -> ChannelId | None:
        """A front end's room for a new game: a fresh thread, or None (the thread could not be opened)."""
        if self.inputs.chance(0.3):
            return None
        thread = self.world.snowflake()
        self.world.threads.append(thread)
        return ChannelId(str(thread))

    async def _call(self, name: str, call: Awaitable[Any], detail: object = "") -> str:
        """Await ``call``; returns ``name``, ``detail`` and what came back (counted by name in :attr:`outcomes`)."""
        try:
            await call
            outcome = "ok"
        except EXPECTED as exc:
            outcome = type(exc).__name__
        key = f"{name}: {outcome}"
        self.outcomes[key] = self.outcomes.get(key, 0) + 1
        return f"{name} {detail}: {outcome}" if detail else key

    # -- the calls ------------------------------------------------------------------------------------------------

    async def play_ai(self) -> str:
        i = self.inputs
        guild, channel = self._where()
        options = dict(
            color=i.colour(), variant=i.variant(), fen=i.fen(), think_time=i.think(), turn_time=i.turn_time()
        )
        room = self._room if i.chance(0.6) else None
        call = self.service.play_ai(guild, channel, self._user(), i.level(), room=room, **options)
        return await self._call("play_ai", call, options)

    async def exhibition(self) -> str:
        i = self.inputs
        guild, channel = self._where()
        room = self._room if i.chance(0.6) else None
        call = self.service.exhibition(
            guild, channel, i.level(), i.level(), variant=i.variant(), fen=i.fen(), room=room
        )
        return await self._call("exhibition", call)

    async def challenge(self) -> str:
        i = self.inputs
        guild, channel = self._where()
        opponent = self._user() if i.chance(0.85) else None
        options = dict(variant=i.variant(), turn_time=i.turn_time(), color=i.colour(), fen=i.fen())
        call = self.service.challenge(guild, channel, self._user(), opponent, own_room=i.chance(0.6), **options)
        return await self._call("challenge", call, options)

    async def accept(self) -> str:
        i = self.inputs
        challenge_id, challenge = self._challenge()
        likely = [challenge.opponent.id] if challenge is not None and challenge.opponent is not None else None
        user = self._user(likely)
        guild = self._guild(challenge.guild_id if challenge is not None else None) or GuildId("0")
        if i.chance(0.2):
            return await self._call("check_accept", self.service.check_accept(challenge_id, guild, user))
        thread = await self._room()
        return await self._call("accept", self.service.accept(challenge_id, guild, user, channel_id=thread))

    async def decline_or_cancel(self) -> str:
        challenge_id, challenge = self._challenge()
        people = [challenge.challenger.id] if challenge is not None else []
        if challenge is not None and challenge.opponent is not None:
            people.append(challenge.opponent.id)
        user = self._user(people)
        guild = self._guild(challenge.guild_id if challenge is not None else None) or GuildId("0")
        if self.inputs.chance(0.5):
            return await self._call("decline", self.service.decline(challenge_id, guild, user))
        return await self._call("cancel", self.service.cancel(challenge_id, guild, user))

    async def move(self) -> str:
        """A move: mostly a legal one by the player to move (as text, or as an index with the version shown, as the
        board's menus send it), else an illegal, malformed or out-of-turn one."""
        i = self.inputs
        game_id, game = self._game()
        board = self.checked.board(game_id)
        people = [p.id for p in game.humans()] if game is not None else None
        if game is not None and game.is_active and not game.player(game.turn).is_ai and i.chance(0.8):
            people = [game.player(game.turn).id]
        user = self._user(people)
        legal = [m.text() for m in board.legal_moves] if board is not None else []
        move: str | int
        version = None
        if legal and i.chance(0.7):
            if i.chance(0.5):
                move = i.pick(legal)
            else:
                move, version = i.rng.randrange(len(legal)), i.version(game.version if game else 1)
        else:
            move = i.pick([*i.pick((legal or ["11-15"], ["pass", "1x10x19", "11-15-19", "32-33", "0-1"])), i.text()])
            if i.chance(0.3):
                move = i.pick((-1, 999, 10**30, True))  # type: ignore[assignment]
        guild = self._guild(game.guild_id if game is not None else None)
        detail = f"{move!r} v{version} in {game_id!r}"
        return await self._call("move", self.service.move(game_id, guild, user, move, version=version), detail)

    async def game_action(self) -> str:
        i = self.inputs
        game_id, game = self._game()
        user = self._user([p.id for p in game.humans()] if game is not None else None)
        guild = self._guild(game.guild_id if game is not None else None)
        s = self.service
        name, action = i.pick(
            [
                ("resign", s.resign),
                ("offer_draw", s.offer_draw),
                ("offer_draw", s.offer_draw),
                ("accept_draw", s.accept_draw),
                ("decline_draw", s.decline_draw),
                ("takeback", s.takeback),
                ("takeback", s.takeback),
                ("accept_takeback", s.accept_takeback),
                ("decline_takeback", s.decline_takeback),
            ]
        )
        if name == "resign" and i.chance(0.5):  # resigning ends the game: not too often
            name, action = "offer_draw", s.offer_draw
        return await self._call(name, action(game_id, guild, user))

    async def rematch(self) -> str:
        i = self.inputs
        finished = self.checked.finished.pick(i.rng)
        game_id = finished if finished is not None and i.chance(0.8) else self._game()[0]
        game = self.checked.game(game_id)
        user = self._user([p.id for p in game.humans()] if game is not None else None)
        guild = self._guild(game.guild_id if game is not None else None)
        channel = self._where()[1] if i.chance(0.5) else None
        room = self._room if i.chance(0.5) else None
        return await self._call("rematch", self.service.rematch(game_id, guild, user, channel_id=channel, room=room))

    async def set_board_message(self) -> str:
        """Where a front end shows a board (or a challenge): always a new message (Discord's ids are unique) in the
        record's own channel, or a hostile id."""
        i = self.inputs
        message = MessageId(str(self.world.snowflake()))
        if i.chance(0.2):
            challenge_id, challenge = self._challenge()
            channel = challenge.channel_id if challenge is not None else self._where()[1]
            return await self._call(
                "set_challenge_message", self.service.set_challenge_message(challenge_id, channel, message)
            )
        game_id, game = self._game()
        channel = game.channel_id if game is not None else self._where()[1]
        return await self._call("set_board_message", self.service.set_board_message(game_id, channel, message))

    async def query(self) -> str:
        i = self.inputs
        game_id, game = self._game()
        user = self._user([p.id for p in game.humans()] if game is not None else None)
        guild = self._guild(game.guild_id if game is not None else None)
        s = self.service
        name, call = i.pick(
            [
                ("state", lambda: s.state(game_id, guild)),
                ("pdn", lambda: s.pdn(game_id, guild)),
                ("user_games", lambda: s.user_games(user.id)),
                ("channel_games", lambda: s.channel_games(*self._where())),
                ("history", lambda: s.history(user.id, i.pick((10, 0, -5, 1000)))),
                ("leaderboard", lambda: s.leaderboard(i.variant(), i.pick([guild, None]), i.pick((10, 0, 500)))),
                ("stats", lambda: s.stats(user.id, i.variant(), guild)),
                ("challenges_of", lambda: s.challenges_of(user.id)),
                ("get_challenge", lambda: s.get_challenge(self._challenge()[0], guild)),
                ("analyse", lambda: s.analyse(game_id, user, guild)),
            ]
        )
        return await self._call(name, call())

    async def privacy(self) -> str:
        user = self._user()
        if self.inputs.chance(0.7):
            return await self._call("personal_data", self.service.personal_data(user.id))
        return await self._call("erase_personal_data", self.service.erase_personal_data(user.id))

    async def rate_limit(self) -> str:
        guild = self.inputs.pick([*self.world.guilds, None])
        where = None if guild is None else GuildId(str(guild))
        return await self._call("rate_limit", self.service.rate_limit(self._user().id, where))

    async def time_passes(self) -> str:
        """The clock jumps (past a challenge's life, a turn's time...) and the sweeper runs, as its timer would."""
        seconds = self.inputs.pick((1, 30, 61, 601, 3601, 86401))
        self.clock.advance(seconds)
        return await self._call("sweep", self.service.sweep(), f"after {seconds} s")
