"""``scripts/i18n check`` compares what the catalogues say, not their bytes: a newer Babel that writes another
header (its version, dates) or lays lines out differently passes; a changed message or a stale .mo fails."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType

from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
FRENCH = ROOT / "bot" / "i18n" / "locales" / "fr" / "LC_MESSAGES" / "kingme.po"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_script", ROOT / "scripts" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_new_header_or_layout_is_the_same_catalogue() -> None:
    i18n = _script()
    po = FRENCH.read_bytes()
    other_tool = po.replace(b"Generated-By: Babel ", b"Generated-By: Babel 9.99.0 was ")
    other_tool = other_tool.replace(b"PO-Revision-Date: ", b"PO-Revision-Date: 2099-01-01 00:00+0000 ")
    assert other_tool != po
    same = i18n._content(read_po(io.BytesIO(po))) == i18n._content(read_po(io.BytesIO(other_tool)))
    assert same, "only the header differs"
    catalog = read_po(io.BytesIO(po))
    written = io.BytesIO()
    write_mo(written, catalog)
    assert i18n._compiled(read_mo(io.BytesIO(written.getvalue()))) == i18n._compiled(catalog)


def test_a_changed_translation_is_another_catalogue() -> None:
    i18n = _script()
    po = FRENCH.read_bytes()
    catalog = read_po(io.BytesIO(po))
    message = next(m for m in catalog if isinstance(m.id, str) and m.id and isinstance(m.string, str) and m.string)
    assert isinstance(message.id, str) and isinstance(message.string, str)
    changed = read_po(io.BytesIO(po))
    changed[message.id].string = message.string + " (changed)"
    assert i18n._content(catalog) != i18n._content(changed)
    stale = io.BytesIO()
    write_mo(stale, catalog)
    assert i18n._compiled(read_mo(io.BytesIO(stale.getvalue()))) != i18n._compiled(changed), "a stale .mo"
