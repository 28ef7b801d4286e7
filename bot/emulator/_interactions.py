"""INTERACTION_CREATE payloads built the way the Discord client builds them, and the handle a caller awaits.

Option values are converted and checked against the schema the bot synced, so a test that passes an option
the real client would refuse fails here with a ``ValueError`` naming the problem.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._contexts import BOT_DM, GUILD_INSTALL, command_owners, context_of, place_owners
from ._payloads import (
    BOT_PERMISSIONS,
    EXTERNAL_EMOJIS,
    MEMBER_PERMISSIONS,
    PRIVATE_PERMISSIONS,
    THREAD_PERMISSIONS,
    PayloadBuilder,
)
from ._state import JSON, Channel, EmulatorState, InteractionRecord, Message, RegisteredCommand, User

APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE = 2, 3, 4
SUBCOMMAND, SUBCOMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, NUMBER = 3, 4, 5, 6, 7, 10
BUTTON, STRING_SELECT = 2, 3


@dataclass(frozen=True)
class Reply:
    """What the bot answered: the messages it created or edited for the interaction (live objects, in
    order), the autocomplete choices, or the modal it opened."""

    interaction: InteractionRecord
    messages: list[Message]

    @property
    def message(self) -> Message:
        if not self.messages:
            raise LookupError(f"interaction {self.interaction.name!r} produced no message")
        return self.messages[0]

    @property
    def choices(self) -> list[JSON]:
        return list(self.interaction.choices or [])

    @property
    def modal(self) -> JSON | None:
        return self.interaction.modal


class InteractionHandle:
    """An interaction already sent to the bot; ``await handle`` waits for the bot's answer."""

    def __init__(self, record: InteractionRecord, state: EmulatorState, timeout: float) -> None:
        self.record = record
        self._state = state
        self._timeout = timeout

    async def wait(self) -> Reply:
        """The answer, within the emulator's ``answer_timeout`` (wrap in ``asyncio.timeout`` for less)."""
        try:
            await asyncio.wait_for(self.record.settled.wait(), self._timeout)
        except TimeoutError:
            state = "acknowledged it but sent nothing" if self.record.answered else "never answered"
            raise TimeoutError(
                f"interaction {self.record.name!r}: the bot {state} within {self._timeout}s"
            ) from None
        messages = [self._state.messages[i] for i in self.record.message_ids if i in self._state.messages]
        return Reply(self.record, messages)

    def __await__(self) -> Generator[Any, None, Reply]:
        return self.wait().__await__()


class InteractionFactory:
    """Builds the interaction payloads and their :class:`InteractionRecord` (not yet dispatched)."""

    def __init__(self, state: EmulatorState, payloads: PayloadBuilder, application: User) -> None:
        self.state = state
        self.payloads = payloads
        self.application = application

    def command(
        self,
        user: User,
        path: Sequence[str],
        options: Mapping[str, Any],
        channel: Channel,
        *,
        focused: str | None = None,
    ) -> tuple[InteractionRecord, JSON]:
        """A slash command (type 2), or its autocomplete (type 4) when ``focused`` names an option."""
        if not path:
            raise ValueError("the command path is empty")
        command = self._find_command(path[0], channel.guild_id)
        context, owners = command_owners(self.state, command, channel, user, self.application.id)
        top: list[JSON] = []
        target, schema = top, command.options
        for name in path[1:]:
            sub = next(
                (o for o in schema if o["name"] == name and o["type"] in (SUBCOMMAND, SUBCOMMAND_GROUP)), None
            )
            if sub is None:
                raise ValueError(f"/{' '.join(path)}: no subcommand {name!r}; there are {_names(schema)}")
            node: JSON = {"name": name, "type": sub["type"], "options": []}
            target.append(node)
            target, schema = node["options"], list(sub.get("options") or [])
        if any(o["type"] in (SUBCOMMAND, SUBCOMMAND_GROUP) for o in schema):
            raise ValueError(f"/{' '.join(path)} is a group: name one of its subcommands {_names(schema)}")
        known = {o["name"]: o for o in schema}
        unknown = sorted(set(options) - set(known))
        if unknown or (focused is not None and focused not in known):
            raise ValueError(
                f"/{' '.join(path)}: unknown options {unknown or [focused]}; it takes {list(known)}"
            )
        missing = [n for n, o in known.items() if o.get("required") and n not in options]
        if missing and focused is None:  # autocomplete runs while the user is still typing
            raise ValueError(f"/{' '.join(path)}: required options missing: {missing}")
        resolved: dict[str, dict[str, JSON]] = {}
        for name, spec in known.items():
            if name == focused:
                target.append(
                    {"name": name, "type": spec["type"], "value": str(options.get(name, "")), "focused": True}
                )
            elif name in options:
                value = self._option_value(spec, options[name], resolved, channel.guild_id)
                target.append({"name": name, "type": spec["type"], "value": value})
        data: JSON = {"id": str(command.id), "name": command.name, "type": 1, "options": top}
        if resolved:
            data["resolved"] = resolved
        if command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        kind = APPLICATION_COMMAND if focused is None else AUTOCOMPLETE
        return self._build(kind, user, channel, data, name=" ".join(path), context=context, owners=owners)

    def component(
        self, user: User, message: Message, custom_id: str, values: Sequence[str] | None = None
    ) -> tuple[InteractionRecord, JSON]:
        """A button click (``values`` is None) or a string select choice (type 3)."""
        component = next((c for c in message.iter_components() if c.get("custom_id") == custom_id), None)
        if component is None:
            ids = [c["custom_id"] for c in message.iter_components() if "custom_id" in c]
            raise ValueError(f"message {message.id} has no component {custom_id!r}; it has {ids}")
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        if not message.visible_for(user.id):
            raise ValueError(f"{user.name} cannot see message {message.id}")
        data: JSON = {"custom_id": custom_id, "component_type": component["type"]}
        if values is None:
            if component["type"] != BUTTON:
                raise ValueError(f"{custom_id!r} is not a button (type {component['type']}); use select()")
        else:
            if component["type"] != STRING_SELECT:
                raise ValueError(f"{custom_id!r} is not a string select (type {component['type']})")
            _check_select(component, values)
            data["values"] = list(values)
        channel = self.state.channels[message.channel_id]
        # a click is authorised as the interaction that posted the message was; a message the bot posted itself,
        # by the server install
        metadata = message.interaction_metadata or {}
        owners = metadata.get("authorizing_integration_owners") or place_owners(
            self.state, channel, user, self.application.id, (GUILD_INSTALL,)
        )
        context = context_of(channel, self.application.id)
        record, payload = self._build(
            MESSAGE_COMPONENT, user, channel, data, name=custom_id, context=context, owners=dict(owners)
        )
        record.message_id = message.id
        payload["message"] = self.payloads.message(message)
        return record, payload

    def _find_command(self, name: str, guild_id: int | None) -> RegisteredCommand:
        matches = [
            c
            for c in self.state.commands.values()
            if c.name == name and c.type == 1 and c.guild_id in (None, guild_id)
        ]
        if not matches:
            names = sorted({c.name for c in self.state.commands.values()})
            raise ValueError(f"no slash command /{name} is registered; the bot synced {names}")
        return max(matches, key=lambda c: c.guild_id is not None)  # a guild command shadows a global one

    def _option_value(
        self, spec: JSON, value: Any, resolved: dict[str, dict[str, JSON]], guild_id: int | None
    ) -> Any:
        kind, name = spec["type"], spec["name"]
        if kind == STRING:
            result: Any = str(value)
            if not _within(len(result), spec.get("min_length"), spec.get("max_length")):
                raise ValueError(f"option {name}: {result!r} has a length outside its limits")
        elif kind in (INTEGER, NUMBER):
            if isinstance(value, bool):
                raise ValueError(f"option {name}: expected a number, got {value!r}")
            result = float(value) if kind == NUMBER else int(value)
            if kind == INTEGER and float(value) != result:
                raise ValueError(f"option {name}: {value!r} is not an integer")
            if not _within(result, spec.get("min_value"), spec.get("max_value")):
                raise ValueError(f"option {name}: {result} is outside its limits")
        elif kind == BOOLEAN:
            text = str(value).lower()
            if text not in ("true", "false"):
                raise ValueError(f"option {name}: expected a boolean, got {value!r}")
            result = text == "true"
        elif kind == USER:
            user = self.state.users.get(int(value.id if isinstance(value, User) else value))
            if user is None:
                raise ValueError(f"option {name}: unknown user {value!r}")
            resolved.setdefault("users", {})[str(user.id)] = self.payloads.user(user)
            guild = self.state.guilds.get(guild_id or 0)
            if guild is not None and user.id in guild.member_ids:
                allowed = self.payloads.permissions_of(user, guild)
                member = self.payloads.member(user, guild, with_user=False, permissions=allowed)
                resolved.setdefault("members", {})[str(user.id)] = member
            result = str(user.id)
        elif kind == CHANNEL:
            channel = self.state.channels.get(int(value.id if isinstance(value, Channel) else value))
            if channel is None:
                raise ValueError(f"option {name}: unknown channel {value!r}")
            payload = self.payloads.channel(channel, permissions=MEMBER_PERMISSIONS)
            resolved.setdefault("channels", {})[str(channel.id)] = payload
            result = str(channel.id)
        else:
            raise ValueError(f"option {name}: the emulator does not support option type {kind}")
        choices = [c["value"] for c in spec.get("choices") or []]
        if choices and result not in choices:
            raise ValueError(f"option {name}: {result!r} is not one of its choices {choices}")
        return result

    def _build(
        self, kind: int, user: User, channel: Channel, data: JSON, *, name: str, context: int, owners: JSON
    ) -> tuple[InteractionRecord, JSON]:
        record = InteractionRecord(
            self.state.snowflake(), secrets.token_urlsafe(32), kind, user, channel.id, name, context=context
        )
        record.owners = dict(owners)
        app_permissions = BOT_PERMISSIONS if channel.threads_allowed else BOT_PERMISSIONS & ~THREAD_PERMISSIONS
        payload: JSON = {
            "id": str(record.id),
            "application_id": str(self.application.id),
            "type": kind,
            "token": record.token,
            "version": 1,
            "data": data,
            "channel_id": str(channel.id),
            "channel": self.payloads.channel(channel, permissions=MEMBER_PERMISSIONS),
            "locale": user.locale,
            "app_permissions": str(app_permissions),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": record.owners,
            "context": context,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        guild = self.state.guilds.get(channel.guild_id or 0)
        if guild is None:  # a DM or group DM: the user, no member; the app may attach and embed, in its own DM more
            payload["user"] = self.payloads.user(user)
            payload["app_permissions"] = str(PRIVATE_PERMISSIONS | (EXTERNAL_EMOJIS if context == BOT_DM else 0))
            return record, payload
        payload |= {
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
            "member": self.payloads.member(user, guild, permissions=self.payloads.permissions_of(user, guild)),
            "guild_locale": guild.locale,
        }
        return record, payload


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _names(options: list[JSON]) -> list[str]:
    return [o["name"] for o in options]


def _check_select(component: JSON, values: Sequence[str]) -> None:
    allowed = [o["value"] for o in component.get("options") or []]
    wrong = [v for v in values if v not in allowed]
    if wrong:
        raise ValueError(f"select {component['custom_id']!r}: {wrong} are not among its options {allowed}")
    low, high = component.get("min_values", 1), component.get("max_values", 1)
    if not low <= len(values) <= high:
        raise ValueError(f"select {component['custom_id']!r} takes {low} to {high} values, not {len(values)}")
