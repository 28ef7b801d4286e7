"""The Discord half of the fuzz: random interactions sent by the emulated Discord to the real discord.py client
running King Me (slash commands with random and hostile options, autocomplete, clicks and menu choices on the
messages the bot sent, by random people in random servers, channels and threads).

Each :meth:`DiscordDriver.step` sends one interaction, awaits the bot's answer and checks its shape: the bot
answered, no message of the answer is the internal-error text, and an ephemeral answer is not empty. What an answer
says is not checked (the texts change with translations); that nothing went wrong inside is checked by the error log
and the invariants.

Clicks come in two kinds. Most are on the components of real messages (current boards, old boards whose version has
passed, challenges, confirmations, reviews), as a person would click them, also on other people's games. The others
are on components with forged ``custom_id`` s that match the bot's templates but carry anything the templates allow
(ids naming nothing or another game, stale, future and absurd versions, squares off the board, pages past the end):
Discord delivers only the ids the bot itself sent, so these stand for boards sent long ago or by a faulty version. A
forged board naming a real game is placed in that game's channel, where its old boards are. An id that matches no
template is not sent: discord.py drops such an interaction unanswered, by design.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.emulator import Channel, DiscordEmulator, EmulatorEvent, Message, Reply, User
from bot.games._messages import INTERNAL, short
from bot.service import GameState
from tests.bot.fuzz._inputs import Inputs
from tests.bot.fuzz._invariants import InvariantError, Invariants, Pool

BUTTON, SELECT = 2, 3
TURN_TIMES = (60, 300, 900, 3600, 43200, 86400, 259200, 604800)
"""The ``turn_time`` choices of ``/checkers challenge``."""


@dataclass
class Counts:
    """What the run did, for its summary."""

    kinds: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1


class DiscordDriver:
    """Sends random interactions through ``emulator`` to the bot; ``people`` act in ``channels`` (and in the
    threads the bot opens)."""

    def __init__(
        self,
        emulator: DiscordEmulator,
        invariants: Invariants,
        inputs: Inputs,
        people: list[User],
        channels: list[Channel],
    ) -> None:
        self.emulator = emulator
        self.invariants = invariants
        self.inputs = inputs
        self.people = people
        self.channels = channels
        self.counts = Counts()
        self._clickable = Pool()
        """The messages with components, by id."""
        self._internal = short(INTERNAL)
        self._ops = [
            (self.command, 40),
            (self.autocomplete, 5),
            (self.click, 45),
            (self.forged_click, 10),
        ]
        emulator.subscribe(self._remember)

    def _remember(self, event: EmulatorEvent) -> None:
        message = event.message
        if message is not None and event.kind in ("message_create", "message_update"):
            if any("custom_id" in c for c in message.iter_components()):
                self._clickable.add(str(message.id))
            else:
                self._clickable.discard(str(message.id))

    async def step(self) -> str:
        (op,) = self.inputs.rng.choices([op for op, _ in self._ops], [w for _, w in self._ops])
        return await op()

    # -- where and who --------------------------------------------------------------------------------------------

    def _channel(self) -> Channel:
        threads = [c for c in self.emulator.state.threads_of() if not c.archived and not c.locked]
        if threads and self.inputs.chance(0.5):
            return self.inputs.pick(threads[-20:])
        return self.inputs.pick(self.channels)

    def _person(self, likely: list[str] | None = None) -> User:
        i = self.inputs
        if likely and i.chance(0.75):
            wanted = i.pick(likely)
            found = self.emulator.state.users.get(int(wanted)) if wanted.isdigit() else None
            if found is not None and not found.bot:
                return found
        return i.pick(self.people)

    def _bounded(self, text: str, most: int) -> str:
        """``text`` within an option's length limits (1 to ``most``), as Discord's client enforces them."""
        return (text or "?")[:most]

    # -- commands -------------------------------------------------------------------------------------------------

    def _options(self, name: str) -> dict[str, Any]:
        """Random options of ``/checkers name``, each of the type and within the limits of its schema (Discord's
        client refuses anything else), with hostile text wherever text is free."""
        i = self.inputs
        game = self._known_game()
        options: dict[str, Any] = {}
        if name == "play":
            options = {"level": i.level(), "colour": i.pick(("black", "white", "random"))}
            options["variant"] = i.variant() or "american"
            if (fen := i.fen()) is not None:
                options["position"] = self._bounded(fen, 200)
            if i.chance(0.3):
                options["think"] = i.pick((0.01, 0.05, 1.0, 10.0, 11.0, 1e9))
        elif name == "challenge":
            options = {"opponent": i.pick([*self.people, self.emulator.bot_user])}
            if i.chance(0.5):
                options["turn_time"] = i.pick(TURN_TIMES)
            if i.chance(0.3):
                options["variant"] = i.variant() or "american"
            if (fen := i.fen()) is not None:
                options["position"] = self._bounded(fen, 200)
        elif name == "move":
            board = self.invariants.board(game.id) if game is not None else None
            legal = [m.text() for m in board.legal_moves] if board is not None else []
            text = i.pick(legal) if legal and i.chance(0.7) else i.pick(("11-15", "f6-e5", "9x18", "pass", i.text()))
            options = {"move": self._bounded(text, 60)}
        elif name == "board":
            options = {"text": i.chance(0.3)}
        elif name == "leaderboard":
            options = {"scope": i.pick(("server", "global")), "variant": i.variant() or "american"}
        elif name in ("stats", "history"):
            if i.chance(0.5):
                options["user"] = i.pick([*self.people, self.emulator.bot_user])
        elif name in ("export", "analyse"):
            if i.chance(0.7):
                real = game.id if game is not None else None
                options["game"] = self._bounded(real if real and i.chance(0.6) else i.id_like(real), 40)
        elif name == "watch":
            options = {"level_a": i.level(), "level_b": i.level()}
        elif name == "endgame":  # the ending whose tables a process solves at once (larger ones take seconds)
            options = {"ending": "two_kings", "difficulty": i.pick(("easy", "medium", "hard"))}
        return options

    async def command(self) -> str:
        i = self.inputs
        name = i.pick(
            ("play",) * 6
            + ("challenge",) * 5
            + ("move",) * 8
            + ("board", "board", "resign", "draw", "draw", "takeback", "rematch", "leaderboard", "stats")
            + ("history", "export", "analyse", "watch", "privacy", "help", "endgame")
        )
        options = self._options(name)
        channel = self._channel()
        game = self.invariants.game_in(str(channel.id))
        user = self._person([p.id for p in game.humans()] if game is not None else None)
        reply = await self.emulator.invoke(user, ["checkers", name], options, channel=channel)
        self._check_reply(reply)
        self.counts.add(f"/checkers {name}")
        return f"/checkers {name} {options} by {user.name} in {channel.name}: {_shape(reply)}"

    async def autocomplete(self) -> str:
        i = self.inputs
        name, focused = i.pick((("move", "move"), ("play", "level"), ("play", "variant"), ("watch", "level_a")))
        typed = i.pick(("", "1", "11-", "f6", "ea", i.text()))[:60] or ""
        reply = await self.emulator.autocomplete(
            self._person(), ["checkers", name], {focused: typed}, focused, channel=self._channel()
        )
        choices = reply.choices
        if len(choices) > 25 or any(not 1 <= len(str(c.get("name", ""))) <= 100 for c in choices):
            raise InvariantError(f"autocomplete of {name}.{focused} for {typed!r} answered {choices}")
        self.counts.add(f"autocomplete {name}.{focused}")
        return f"autocomplete {name}.{focused} {typed!r}: {len(choices)} choices"

    # -- clicks ---------------------------------------------------------------------------------------------------

    async def click(self) -> str:
        """A click or a menu choice on a real message of the bot: mostly a current board, else anything clickable."""
        i = self.inputs
        message = self._board_message() if i.chance(0.6) else None
        if message is None:
            message = self._clickable_message()
        if message is None:
            return await self.command()
        components = [c for c in message.iter_components() if "custom_id" in c and not c.get("disabled")]
        if not components:
            return "a message without live components"
        component = i.pick(components)
        custom_id = str(component["custom_id"])
        game = self._game_named(custom_id)
        people = [p.id for p in game.humans()] if game is not None else []
        if game is not None and game.is_active and not game.player(game.turn).is_ai and i.chance(0.7):
            people = [game.player(game.turn).id]
        user = self._person(people)
        if message.ephemeral:
            owner = self.emulator.state.users.get(message.visible_to or 0)
            if owner is None:
                return "an ephemeral message of nobody"
            user = owner
        return await self._press(user, message, component, custom_id)

    async def forged_click(self) -> str:
        """A click on a component whose ``custom_id`` the bot never sent (see the module's docstring)."""
        i = self.inputs
        game = self._known_game()
        real = game.id if game is not None else None
        target = real if real is not None and i.chance(0.6) else self._id_in_template(i.id_like(real))
        version = max(0, i.version(game.version)) if game is not None else i.pick((0, 1, 999_999_999))
        custom_id = i.pick(
            (
                f"km:p:{target}:{version}",
                f"km:m:{target}:{version}:{i.pick((1, 11, 32, 0, 999))}",
                f"km:b:{i.pick(('resign', 'draw', 'drawyes', 'drawno', 'tbyes', 'tbno'))}:{target}:{version}",
                f"km:c:{i.pick(('accept', 'decline'))}:{target}:{version}",
                f"km:r:{target}:{version}",
                f"km:rc:{target}",
                f"km:a:{target}",
                f"km:rv:{target}:{i.pick((0, 1, 9999))}",
                f"km:privacy:{i.pick(self.people).id if i.chance(0.5) else i.pick((0, 10**19))}",
            )
        )
        kind = SELECT if custom_id.startswith(("km:p:", "km:m:")) else BUTTON
        component: dict[str, Any] = {"type": kind, "custom_id": custom_id}
        if kind == SELECT:
            board = self.invariants.board(target) if game is not None and target == real else None
            values = [str(m.text()) for m in board.legal_moves] if board is not None else []
            squares = sorted({v.replace("x", "-").split("-")[0] for v in values})
            pool = squares if custom_id.startswith("km:p:") else values
            component["options"] = [{"label": v, "value": v} for v in (pool or ["0", "-", "99"])[:25]]
        else:
            component.update(style=1, label="forged")
        in_game = game is not None and target == real
        channel = self.emulator.state.channels.get(int(game.channel_id)) if in_game and game else None
        message = Message(
            self.emulator.state.snowflake(),
            (channel or self._channel()).id,
            (channel or self._channel()).guild_id,
            self.emulator.bot_user,
            content="an old board",
            components=[{"type": 1, "components": [component]}],
        )
        self.emulator.state.add_message(message)
        game_user = [p.id for p in game.humans()] if in_game and game is not None else None
        return "forged " + await self._press(self._person(game_user), message, component, custom_id)

    async def _press(self, user: User, message: Message, component: dict[str, Any], custom_id: str) -> str:
        if component["type"] == SELECT:
            values = [o["value"] for o in component.get("options") or []]
            if not values:
                return "an empty menu"
            choice = self.inputs.pick(values)
            reply = await self.emulator.select(user, message, custom_id, [choice])
            what = f"{custom_id} = {choice}"
        else:
            reply = await self.emulator.click(user, message, custom_id)
            what = custom_id
        self._check_reply(reply)
        kind = custom_id.split(":")[1] if custom_id.startswith("km:") else custom_id
        self.counts.add(f"click km:{kind}")
        return f"{what} by {user.name}: {_shape(reply)}"

    # -- what to act on -------------------------------------------------------------------------------------------

    def _known_game(self) -> GameState | None:
        """A game seen so far: mostly one being played."""
        checked = self.invariants
        game_id = (checked.active if self.inputs.chance(0.8) else checked.finished).pick(self.inputs.rng)
        return checked.game(game_id) if game_id is not None else None

    def _game_named(self, custom_id: str) -> GameState | None:
        parts = custom_id.split(":")
        for part in parts[2:]:
            game = self.invariants.game(part)
            if game is not None:
                return game
        return None

    def _board_message(self) -> Message | None:
        game = self._known_game()
        if game is None or game.board_message is None:
            return None
        return self.emulator.state.messages.get(int(game.board_message.message_id))

    def _clickable_message(self) -> Message | None:
        message_id = self._clickable.pick(self.inputs.rng)
        return self.emulator.state.messages.get(int(message_id)) if message_id is not None else None

    def _id_in_template(self, text: str) -> str:
        """``text`` made to fit the templates' id pattern (``[0-9A-Za-z_-]{1,40}``), so the click reaches a handler."""
        kept = "".join(c for c in text if c.isascii() and (c.isalnum() or c in "_-"))[:40]
        return kept or "x"

    # -- the answer -----------------------------------------------------------------------------------------------

    def _check_reply(self, reply: Reply) -> None:
        """The shape of an answer: no internal error; an ephemeral message says something."""
        for message in reply.messages:
            if message.content == self._internal:
                raise InvariantError(f"{reply.interaction.name}: the internal-error reply")
            if message.ephemeral and not (message.content.strip() or message.embeds or message.attachments):
                raise InvariantError(f"{reply.interaction.name}: an empty ephemeral reply")


def _shape(reply: Reply) -> str:
    """An answer in a step's line: how many messages, which ephemeral, their first words."""
    if not reply.messages:
        return "no message"
    return "; ".join(f"{'ephemeral ' if m.ephemeral else ''}{m.content[:40]!r}" for m in reply.messages[:2])
