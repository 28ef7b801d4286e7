#!/usr/bin/env python3
"""The message catalogue: extract the messages, update the translations, compile them, check them.

    scripts/i18n extract    write bot/i18n/locales/kingme.pot from the code (messages marked _, _n, _p), the slash
                            commands' names, and the names that come with the data (variants, AI levels)
    scripts/i18n update     extract, then merge the template into every locales/<lang>/LC_MESSAGES/kingme.po
    scripts/i18n init LANG  start a new language from the template
    scripts/i18n compile    compile every .po into its .mo (shipped as package data)
    scripts/i18n check      exit 1 unless the template matches the code, every language translates every message
                            (nothing missing, fuzzy or obsolete, the same {placeholders}) and every .mo is up to date

``check`` compares what the catalogues say (messages, translations, flags, files, the plural rule), never their bytes:
the header a tool writes (its name and version, dates) and how it lays out lines are not content, so a newer Babel
neither fails the check nor rewrites an unchanged file.

Run from the repository's root with the project installed (CI runs ``check``).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.i18n import DOMAIN, LOCALES  # noqa: E402

TEMPLATE = LOCALES / f"{DOMAIN}.pot"
KEYWORDS = {"_": None, "_n": (1, 2), "_p": ((1, "c"), 2)}
"""The marking functions of :mod:`bot.i18n` (and the eager ones of :class:`bot.i18n.Language`)."""
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _from_code() -> Iterator[tuple[str | tuple[str, ...], str | None, str]]:
    """(message id (or its singular and plural), context, where) for every marked message of the bot."""
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        found = list(
            extract_from_dir(
                str(ROOT / "bot"), method_map=[("**.py", "python")], keywords=KEYWORDS, strip_comment_tags=True
            )
        )
    for line in said.getvalue().splitlines():
        # Babel warns of every f-string inside a marked call, also those passed as a keyword argument
        # (``lang._("{mention} to move", mention=f"<@{id}>")``), which are values, not messages: those warnings go.
        if "Skipping f-string" not in line:
            print(line, file=sys.stderr)
    for filename, lineno, message, _comments, context in found:
        yield message, context, f"bot/{filename}:{lineno}"


def _from_data() -> Iterator[tuple[str, str | None, str]]:
    """The slash commands' names (Discord shows them localised), the variants' titles, the AI levels' summaries and
    the rules' messages (their templates are their ids: :data:`core.MESSAGES`)."""
    from ai.api import levels
    from bot.games import GamesCog, TournamentCog
    from core import MESSAGES, VARIANTS

    for cog, where in ((GamesCog, "bot/games/_cog.py"), (TournamentCog, "bot/games/_tournament_cog.py")):
        yield str(cog.__cog_group_name__), "command name", where
        for command in cog.__cog_app_commands__:
            for sub in (command, *getattr(command, "commands", ())):  # a subgroup's commands after it
                for item in (sub, *getattr(sub, "parameters", ())):
                    yield item.name, "command name", where
    for variant in VARIANTS.values():
        yield variant.title, "variant", "core/variants.py"
    for level in levels().values():
        yield level.summary, "level", "ai/api.py"
    for message in MESSAGES:
        yield message, None, "core/errors.py"


def template() -> Catalog:
    catalog = Catalog(project="King Me", domain=DOMAIN, charset="utf-8", fuzzy=False)
    for marked, context, where in (*_from_code(), *_from_data()):
        message = tuple(m for m in marked if m) if isinstance(marked, tuple) else marked
        path, _, line = where.partition(":")
        catalog.add(message, None, [(path, int(line) if line else 0)], context=context, flags=["python-brace-format"])
    return catalog


def _po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=120, omit_header=False, sort_output=True, include_lineno=False)
    return out.getvalue()


Content = frozenset[tuple[object, ...]]


def _content(catalog: Catalog) -> Content:
    """What a catalogue says: each message's id, context, translation, flags and files, without the header."""
    return frozenset(
        (_texts(m.id), m.context, _texts(m.string), tuple(sorted(m.flags)), tuple(sorted({p for p, _ in m.locations})))
        for m in catalog
        if m.id
    )


def _texts(value: object) -> object:
    """A message's id or string, with plural forms as a tuple whichever reader made them (a list or a tuple)."""
    return tuple(value) if isinstance(value, list | tuple) else value


def _context(context: str | bytes | None) -> str | None:
    """A message's context as text (some Babel releases read a compiled one as bytes)."""
    return context.decode("utf-8") if isinstance(context, bytes) else context


def _compiled(catalog: Catalog) -> tuple[Content, str]:
    """What a compiled catalogue holds: each translated, non-fuzzy message (id, context, translation), and the plural
    rule (the one header line that changes what a translation says)."""
    messages = frozenset(
        (_texts(m.id), _context(m.context), _texts(m.string))
        for m in catalog
        if m.id and not m.fuzzy and all(m.string if isinstance(m.string, list | tuple) else (m.string,))
    )
    return messages, catalog.plural_forms


def _mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def _languages() -> list[Path]:
    return sorted(LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def _read(path: Path) -> Catalog:
    return _parsed(path.read_bytes())


def _parsed(po: bytes) -> Catalog:
    """A .po or .pot text as a catalogue, as a file holding it would be read back."""
    return read_po(io.BytesIO(po), domain=DOMAIN)


def _write(path: Path, po: bytes) -> None:
    """Write ``po`` unless the file already says the same (so a run that changes nothing changes no file)."""
    if path.exists() and _content(_read(path)) == _content(_parsed(po)):
        return
    path.write_bytes(po)
    print(f"wrote {path.relative_to(ROOT)}")


def extract() -> None:
    _write(TEMPLATE, _po_bytes(template()))


def update() -> None:
    extract()
    fresh = template()
    for path in _languages():
        catalog = _read(path)
        catalog.update(fresh, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _write(path, _po_bytes(catalog))


def init(lang: str) -> None:
    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if path.exists():
        raise SystemExit(f"{path.relative_to(ROOT)} exists: use update")
    catalog = template()
    catalog.locale = lang
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_po_bytes(catalog))
    print(f"wrote {path.relative_to(ROOT)}")


def compile_all() -> None:
    for path in _languages():
        mo = path.with_suffix(".mo")
        mo.write_bytes(_mo_bytes(_read(path)))
        print(f"compiled {mo.relative_to(ROOT)}")


def _key(message: Message) -> tuple[object, str | None]:
    return message.id, message.context


def problems() -> list[str]:
    """What is wrong with the catalogue (empty when it is complete and up to date)."""
    found: list[str] = []
    fresh = template()
    written = _parsed(_po_bytes(fresh))  # as the file would hold it (files, not line numbers)
    if not TEMPLATE.exists() or _content(_read(TEMPLATE)) != _content(written):
        found.append(f"{TEMPLATE.relative_to(ROOT)} is not what the code marks: run scripts/i18n update")
    wanted = {_key(m) for m in fresh if m.id}
    for path in _languages():
        name = path.relative_to(ROOT)
        catalog = _read(path)
        have = {_key(m): m for m in catalog if m.id}
        for key in sorted(wanted - have.keys(), key=str):
            found.append(f"{name}: missing {key[0]!r}")
        for key in sorted(have.keys() - wanted, key=str):
            found.append(f"{name}: obsolete {key[0]!r}")
        for message in have.values():
            ids = tuple(message.id) if isinstance(message.id, list | tuple) else (message.id,)
            strings = tuple(message.string) if isinstance(message.string, list | tuple) else (message.string or "",)
            if message.fuzzy:
                found.append(f"{name}: fuzzy {ids[0]!r}")
            if not all(strings):
                found.append(f"{name}: untranslated {ids[0]!r}")
                continue
            expected = set(_PLACEHOLDER.findall(ids[-1]))
            for string in strings:
                if set(_PLACEHOLDER.findall(string)) != expected:
                    found.append(f"{name}: {ids[0]!r} has placeholders {sorted(expected)}, not as in {string!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or _compiled(read_mo(io.BytesIO(mo.read_bytes()))) != _compiled(catalog):
            found.append(f"{mo.relative_to(ROOT)} is not compiled from its .po: run scripts/i18n compile")
    return found


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "extract":
        extract()
    elif command == "update":
        update()
    elif command == "init" and len(argv) == 2:
        init(argv[1])
    elif command == "compile":
        compile_all()
    elif command == "check":
        found = problems()
        for problem in found:
            print(problem)
        if found:
            return 1
        print("the catalogue is complete and compiled")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
