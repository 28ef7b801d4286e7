"""The limits real Discord enforces on what a bot sends, so a test fails here instead of in production.

Each function returns a list of problems (empty when the payload is valid); the REST layer answers a
non-empty list with 400 and Discord's code 50035 (Invalid Form Body).
"""

from __future__ import annotations

import re
from typing import Any

from ._state import JSON

COMPONENTS_V2 = 1 << 15
_COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
LOCALES = frozenset(
    {"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl", "pt-BR"}
    | {"ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko"}
)
"""The locales Discord knows (the keys of ``name_localizations`` and ``description_localizations``)."""


def message_problems(
    content: str, embeds: list[JSON], components: list[JSON], flags: int, attachment_count: int
) -> list[str]:
    problems: list[str] = []
    if len(content) > 2000:
        problems.append(f"content: {len(content)} characters, at most 2000")
    if not content and not embeds and not components and not attachment_count:
        problems.append("Cannot send an empty message")
    if len(embeds) > 10:
        problems.append("embeds: at most 10")
    for i, embed in enumerate(embeds):
        problems += [f"embeds.{i}.{p}" for p in _embed_problems(embed)]
    if not flags & COMPONENTS_V2:
        problems += _action_row_problems(components)
    custom_ids = [c["custom_id"] for c in _walk(components) if "custom_id" in c]
    if len(custom_ids) != len(set(custom_ids)):
        problems.append("components: custom_id values must be unique within a message")
    problems += [
        f"components: custom_id {cid!r} is longer than 100 characters" for cid in custom_ids if len(cid) > 100
    ]
    return problems


def _embed_problems(embed: JSON) -> list[str]:
    limits = {"title": 256, "description": 4096}
    problems = [
        f"{key}: at most {limit} characters"
        for key, limit in limits.items()
        if len(embed.get(key) or "") > limit
    ]
    fields = embed.get("fields") or []
    if len(fields) > 25:
        problems.append("fields: at most 25")
    for field in fields:
        if len(field.get("name") or "") > 256 or len(field.get("value") or "") > 1024:
            problems.append(f"fields: field {field.get('name')!r} is too long")
    total = sum(len(embed.get(k) or "") for k in ("title", "description"))
    total += sum(len(f.get("name") or "") + len(f.get("value") or "") for f in fields)
    total += len((embed.get("footer") or {}).get("text") or "") + len(
        (embed.get("author") or {}).get("name") or ""
    )
    if total > 6000:
        problems.append(f"embed text totals {total} characters, at most 6000")
    return problems


def _action_row_problems(rows: list[JSON]) -> list[str]:
    problems: list[str] = []
    if len(rows) > 5:
        problems.append(f"components: {len(rows)} action rows, at most 5")
    for r, row in enumerate(rows):
        children = row.get("components") or []
        if row.get("type") != 1:
            problems.append(f"components.{r}: top-level components must be action rows (type 1)")
        elif not 1 <= len(children) <= 5:
            problems.append(f"components.{r}: an action row holds 1 to 5 components, not {len(children)}")
        elif any(c.get("type") in _SELECT_TYPES for c in children) and len(children) > 1:
            problems.append(f"components.{r}: a select menu must be alone in its action row")
        for child in children:
            if len(child.get("label") or "") > 80:
                problems.append(
                    f"components.{r}: button label {child['label']!r} is longer than 80 characters"
                )
            if len(child.get("options") or []) > 25:
                problems.append(f"components.{r}: a select menu has at most 25 options")
    return problems


def _walk(components: list[Any]) -> list[JSON]:
    found: list[JSON] = []
    for component in components:
        found.append(component)
        found += _walk(component.get("components") or [])
        if "accessory" in component:
            found += _walk([component["accessory"]])
    return found


def command_problems(commands: list[JSON]) -> list[str]:
    problems: list[str] = []
    seen: set[tuple[str, int]] = set()
    for command in commands:
        name, kind = command.get("name", ""), command.get("type", 1)
        if (name, kind) in seen:
            problems.append(f"{name}: duplicate command name")
        seen.add((name, kind))
        if kind == 1:
            problems += [f"{name}: {p}" for p in _option_problems([command])]
    return problems


def _option_problems(items: list[JSON]) -> list[str]:
    problems: list[str] = []
    for item in items:
        name = item.get("name", "")
        if not _COMMAND_NAME.match(name) or name != name.lower():
            problems.append(f"name {name!r} must be 1-32 lowercase letters, digits, '-' or '_'")
        if not 1 <= len(item.get("description") or "") <= 100:
            problems.append(f"{name}: description must be 1-100 characters")
        problems += _localisation_problems(item)
        options = item.get("options") or []
        if len(options) > 25:
            problems.append(f"{name}: at most 25 options")
        required = [bool(o.get("required")) for o in options if o.get("type") not in (1, 2)]
        if required != sorted(required, reverse=True):
            problems.append(f"{name}: required options must come before optional ones")
        problems += _option_problems(options)
    return problems


def _localisation_problems(item: JSON) -> list[str]:
    """A command's or option's ``name_localizations`` (names as the name's rules) and ``description_localizations``
    (1-100 characters), and its choices' names, keyed by Discord's locales."""
    name = item.get("name", "")
    names = item.get("name_localizations") or {}
    descriptions = item.get("description_localizations") or {}
    problems = [f"{name}: {locale!r} is not a Discord locale" for locale in sorted({*names, *descriptions} - LOCALES)]
    for locale, local in names.items():
        if not _COMMAND_NAME.match(local) or local != local.lower():
            problems.append(f"{name}: name_localizations.{locale} {local!r} must be a lowercase name")
    for locale, local in descriptions.items():
        if not 1 <= len(local) <= 100:
            problems.append(f"{name}: description_localizations.{locale} must be 1-100 characters")
    for choice in item.get("choices") or []:
        for locale, local in (choice.get("name_localizations") or {}).items():
            if locale not in LOCALES or not 1 <= len(local) <= 100:
                problems.append(f"{name}: choice {choice.get('name')!r} has a bad name in {locale!r}")
    return problems


def choice_problems(choices: list[JSON]) -> list[str]:
    problems = [] if len(choices) <= 25 else [f"choices: {len(choices)}, at most 25"]
    return problems + [
        f"choice name {c.get('name')!r} must be 1-100 characters"
        for c in choices
        if not 1 <= len(str(c.get("name", ""))) <= 100
    ]
