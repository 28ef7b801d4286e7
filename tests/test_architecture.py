"""The house's rules as docs/architecture.md states them hold in the code, and the contracts in pyproject.toml say no
less than the page: every import of every part (type-only imports counted) is one its row of the table allows, every
module belongs to a row, and no forbidden contract forbids what the table allows (nor does the table allow what a
contract forbids). No module of ``bot/`` is over 450 lines."""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "ai", "bot")
MAX_LINES = 450
_TICKED = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Row:
    parts: tuple[str, ...]
    """The modules or packages of the row, dotted (``bot.service``, ``bot.runtime``)."""
    allowed: frozenset[str]
    """What they may import: our packages and third-party ones (the standard library is always allowed)."""
    everything_in_bot: bool


def _dotted(path: str) -> str:
    return path.removesuffix("/").removesuffix(".py").replace("/", ".")


def table() -> list[Row]:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = []
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        parts = tuple(_dotted(p) for p in _TICKED.findall(cells[0]))
        allowed = frozenset(_TICKED.findall(cells[2]))
        rows.append(Row(parts, allowed, "everything in `bot/`" in cells[2]))
    return rows


def _row_of(module: str, rows: list[Row]) -> Row | None:
    """The row whose part is the longest prefix of ``module``."""
    best: tuple[int, Row] | None = None
    for row in rows:
        for part in row.parts:
            inside = module == part or module.startswith(part + ".")
            if inside and (best is None or len(part) > best[0]):
                best = (len(part), row)
    return best[1] if best else None


def _ours(module: str, rows: list[Row]) -> str | None:
    """The part of ours ``module`` belongs to (the row's part it falls under), or None for a third-party one."""
    if module.split(".")[0] not in PACKAGES:
        return None
    for row in rows:
        for part in sorted(row.parts, key=len, reverse=True):
            if module == part or module.startswith(part + "."):
                return part
    return module


def _covers(allowed: frozenset[str], target: str) -> bool:
    return any(target == a or target.startswith(a + ".") for a in allowed)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, include_external_packages=True, exclude_type_checking_imports=False)


def test_every_module_belongs_to_a_row_of_the_table(graph: grimp.ImportGraph) -> None:
    rows = table()
    assert len(rows) >= 10, "the table of docs/architecture.md was not found"
    ours = [m for m in graph.modules if m.split(".")[0] in PACKAGES and m != "bot"]
    orphans = sorted(m for m in ours if _row_of(m, rows) is None)
    assert orphans == [], f"modules no row of docs/architecture.md names: {orphans}"


def test_every_import_is_one_the_table_allows(graph: grimp.ImportGraph) -> None:
    rows = table()
    stdlib = sys.stdlib_module_names | {"__future__"}
    wrong = []
    for module in sorted(graph.modules):
        row = _row_of(module, rows)
        if row is None:
            continue
        home = _ours(module, rows)
        for imported in graph.find_modules_directly_imported_by(module):
            top = imported.split(".")[0]
            if top in stdlib:
                continue
            target = _ours(imported, rows)
            if target is not None:
                if target == home or _covers(row.allowed, target):
                    continue
                if row.everything_in_bot and target.startswith("bot"):
                    continue
                wrong.append(f"{module} imports {imported}")
            elif top not in row.allowed:
                wrong.append(f"{module} imports {imported} ({top})")
    assert wrong == [], "imports docs/architecture.md does not allow:\n" + "\n".join(wrong)


def test_the_contracts_agree_with_the_table() -> None:
    rows = table()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contracts = config["contracts"]
    assert config.get("exclude_type_checking_imports") is False, "type-only imports count for the contracts"
    forbidden = [c for c in contracts if c["type"] == "forbidden"]
    assert forbidden, "no forbidden contract found"
    for contract in forbidden:
        for source in contract["source_modules"]:
            source_rows = [r for r in rows if any(p == source or p.startswith(source + ".") for p in r.parts)]
            assert source_rows, f"contract {contract['name']!r}: no row of the table for {source}"
            for row in source_rows:
                clash = sorted(m for m in contract["forbidden_modules"] if _covers(row.allowed, m))
                assert clash == [], f"{row.parts}: the table allows what {contract['name']!r} forbids: {clash}"
    # what the table forbids the service (every front end, the store, the pool, discord, aiohttp, redis) is a contract
    service = next(r for r in rows if r.parts == ("bot.service",))
    service_contract = next(c for c in forbidden if c["source_modules"] == ["bot.service"])
    for name in ("discord", "aiohttp", "redis", "bot.store", "bot.pool", "bot.games", "bot.web", "bot.sandbox"):
        assert name not in service.allowed and name in service_contract["forbidden_modules"], name
    layers = next(c for c in contracts if c["type"] == "layers")
    assert layers["layers"] == ["bot", "ai", "core"]
    for row in rows:
        if row.parts[0].split(".")[0] in ("core", "ai"):
            assert not any(a.startswith("bot") for a in row.allowed), row.parts
    assert any(c["type"] == "acyclic_siblings" for c in contracts), "no contract forbids import circles"


def test_no_module_of_bot_is_over_450_lines() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in (ROOT / "bot").rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, f"split these modules: {long}"
