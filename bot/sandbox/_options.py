"""What a page action names, read as the Discord client would send it: a command's options typed (a person or a
channel as its id, a number as a number, true or false as a boolean), and ids of messages and channels. A value the
Discord client would not let anyone type is refused with :class:`ActionError`, in the page's words."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from bot.emulator import DiscordEmulator
from bot.i18n import _

JSON = dict[str, Any]
_SUBCOMMANDS: Final = (1, 2)
_INTEGER, _BOOLEAN, _USER, _CHANNEL, _NUMBER = 4, 5, 6, 7, 10
"""Discord's application command option types that a typed value must be converted to."""


class ActionError(Exception):
    """A page action that cannot be carried out; the message is shown in the page's toast, in the language of the
    user the page acts as when it is a message of the catalogue (:mod:`bot.i18n`)."""


def typed_options(
    emulator: DiscordEmulator, commands: list[JSON], path: list[str], options: JSON, focused: str | None
) -> JSON:
    """The options typed on the page as the Discord client sends them: a person or a channel as its id, a number
    as a number, true or false as a boolean. A value that cannot be one is refused in the page's words (what the
    Discord client would not let anyone type), never Python's; the rest is the emulator's to check."""
    schema = _option_schema(commands, path)
    typed = dict(options)
    for name, value in options.items():
        spec = schema.get(name)
        if spec is None or name == focused:
            continue
        typed[name] = _option_value(emulator, name, spec["type"], value)
    return typed


def _option_value(emulator: DiscordEmulator, name: str, kind: int, value: object) -> object:
    text = str(value).strip()
    if kind == _USER:
        users = emulator.state.users.values()
        found = _pick(text.lstrip("@"), {u.name: u.id for u in users})
        if found is None:
            people = _one_of(u.name for u in users if not u.bot)
            raise ActionError(
                _(
                    "{name}: there is nobody called {text} here; pick {people}",
                    name=name,
                    text=repr(text),
                    people=people,
                )
            )
        return found
    if kind == _CHANNEL:
        channels = {c.name: c.id for c in emulator.state.channels.values() if c.guild_id == emulator.guild.id}
        found = _pick(text.lstrip("#"), channels)
        if found is None:
            raise ActionError(
                _(
                    "{name}: there is no channel {text} here; pick {channels}",
                    name=name,
                    text=repr(text),
                    channels=_one_of(channels),
                )
            )
        return found
    if kind in (_INTEGER, _NUMBER):
        try:
            number = float(text)
        except ValueError:
            raise ActionError(_("{name} takes a number, not {text}", name=name, text=repr(text))) from None
        if kind == _INTEGER and not number.is_integer():
            raise ActionError(_("{name} takes a whole number, not {text}", name=name, text=repr(text)))
        return int(number) if kind == _INTEGER else number
    if kind == _BOOLEAN:
        if text.lower() not in ("true", "false"):
            raise ActionError(_("{name} takes true or false, not {text}", name=name, text=repr(text)))
        return text.lower() == "true"
    return value


def snowflake(value: object, what: str) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise ActionError(f"{value!r} is not a {what} id") from None


def _option_schema(commands: list[JSON], path: list[str]) -> dict[str, JSON]:
    """The options of the (sub)command ``path`` names, by name; empty when it names none (the emulator says why)."""
    schema = next((c.get("options") or [] for c in commands if c.get("name") == path[0]), [])
    for name in path[1:]:
        sub = next((o for o in schema if o["name"] == name and o["type"] in _SUBCOMMANDS), None)
        if sub is None:
            return {}
        schema = sub.get("options") or []
    return {o["name"]: o for o in schema if o["type"] not in _SUBCOMMANDS}


def _pick(text: str, ids: dict[str, int]) -> str | None:
    """The id of the one named ``text`` (or whose id it is) among ``ids`` (names to ids), as Discord sends it."""
    found = ids.get(text, int(text) if text.isdigit() and int(text) in ids.values() else None)
    return None if found is None else str(found)


def _one_of(names: Iterable[str]) -> str:
    listed = sorted(names)
    return listed[0] if len(listed) == 1 else _("one of {names}", names=", ".join(listed))
