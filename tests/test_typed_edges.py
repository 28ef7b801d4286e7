"""``Any`` lives at the edge where foreign data becomes a typed value, and nowhere else (docs/architecture.md): every
``Any`` in ``bot/`` is a type parameter of a discord.py generic (``Interaction[Any]``, ``Button[Any]``...: discord.py's
own parameters, left open) or inside one of the edges listed in :data:`EDGES`, each with the reason it is one."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

EDGES: dict[str, str] = {
    "bot.emulator": "a local Discord for the tests and the sandbox: every request it serves and event it sends is a "
    "Discord JSON payload, and a test hands it option values of any kind, as a Discord client would type them",
    "bot.sandbox._bridge:JSON": "the sandbox page's messages: JSON from the browser",
    "bot.sandbox._options:JSON": "a page action's options: JSON from the browser, read as Discord reads them",
    "bot.service._models:MessageRef.from_json": "a record from Redis: what json.loads made of it",
    "bot.service._models:GameState.from_json": "a record from Redis: what json.loads made of it",
    "bot.service._models:Challenge.from_json": "a record from Redis: what json.loads made of it",
    "bot.pool._queue_worker:ArqContext": "arq's context of a job, arq's own type; read into typed values in _context",
    "bot.games._components:_chosen": "a select menu's Discord payload (interaction.data), read into the chosen value",
    "bot.games._respond:keywords": "a message's typed fields handed to discord.py, whose send overloads refuse a None "
    "that its implementation takes",
}
"""Where ``Any`` may appear besides discord.py's generics: a module or package (``bot.emulator``) or one name in a
module (``module:Class.method``, or a module-level name), and why it is an edge."""


@dataclass(frozen=True)
class Found:
    module: str
    line: int
    scope: str
    """The dotted name of the function or class (or the module-level name assigned) that holds the ``Any``."""

    def __str__(self) -> str:
        return f"{self.module}:{self.scope or '<module>'} (line {self.line})"


def _discord_names(tree: ast.Module) -> set[str]:
    """The names the module binds to discord.py: ``discord``, and what it imports from it (``app_commands``...)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.asname or alias.name for alias in node.names if alias.name.split(".")[0] == "discord"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "discord":
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def _root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_any(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    return isinstance(node, ast.Attribute) and node.attr == "Any" and _root(node) == "typing"


def _mentions_any(text: str) -> bool:
    """Whether ``text`` is a type written as a string (``"dict[str, Any]"``) that names ``Any``."""
    try:
        parsed = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return any(_is_any(node) for node in ast.walk(parsed))


def _scope(ancestors: list[ast.AST]) -> str:
    names = [a.name for a in ancestors if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    if names:
        return ".".join(names)
    statement = ancestors[1] if len(ancestors) > 1 else None  # ancestors[0] is the module
    target = None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    return target.id if isinstance(target, ast.Name) else ""


def _open_discord_parameter(ancestors: list[ast.AST], node: ast.AST, discord: set[str]) -> bool:
    """Whether ``node`` is a type parameter of a discord.py generic (``discord.ui.Button[Any]``)."""
    parent = ancestors[-1]
    if isinstance(parent, ast.Tuple) and len(ancestors) > 1:
        node, parent = parent, ancestors[-2]
    return isinstance(parent, ast.Subscript) and parent.slice is node and _root(parent.value) in discord


def _counts(node: ast.AST, ancestors: list[ast.AST], discord: set[str]) -> bool:
    """Whether ``node`` is an ``Any`` the check counts: any but a discord.py generic's parameter, a type written as a
    string that names one, an ``Any`` imported under another name."""
    if _is_any(node):
        return not _open_discord_parameter(ancestors, node, discord)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _mentions_any(node.value)
    return isinstance(node, ast.ImportFrom) and any(a.name == "Any" and a.asname for a in node.names)


def find_any(source: str, module: str) -> Iterator[Found]:
    """Every ``Any`` of ``source`` that the check counts (see :func:`_counts`)."""
    tree = ast.parse(source)
    discord = _discord_names(tree)

    def visit(node: ast.AST, ancestors: list[ast.AST]) -> Iterator[Found]:
        if _counts(node, ancestors, discord):
            yield Found(module, getattr(node, "lineno", 0), _scope(ancestors))
        for child in ast.iter_child_nodes(node):
            yield from visit(child, [*ancestors, node])

    yield from visit(tree, [])


def _edge_of(found: Found) -> str | None:
    for edge in EDGES:
        module, _, name = edge.partition(":")
        inside = found.module == module or found.module.startswith(module + ".")
        if inside and (not name or found.scope == name or found.scope.startswith(name + ".")):
            return edge
    return None


def _bot_modules() -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / "bot").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        yield module, path.read_text(encoding="utf-8")


def test_any_lives_only_at_the_edges() -> None:
    stray = [str(f) for module, source in _bot_modules() for f in find_any(source, module) if _edge_of(f) is None]
    assert stray == [], (
        "Any outside the edges: type these (a TypedDict, a Protocol, object, a ParamSpec), or, where foreign data "
        "really becomes a typed value, add the edge to EDGES with its reason:\n" + "\n".join(stray)
    )


def test_every_edge_still_holds_an_any() -> None:
    used = {_edge_of(f) for module, source in _bot_modules() for f in find_any(source, module)}
    assert set(EDGES) - used == set(), "edges with no Any left: take them out of EDGES"


def test_the_check_sees_an_any_anywhere_but_in_a_discord_generic() -> None:
    source = """
from typing import Any, Any as Anything
import typing
import discord
from discord import app_commands
from somewhere import Thing

def send(interaction: discord.Interaction[Any], item: discord.ui.Item[Any], **fields: Any) -> None: ...
def command(c: app_commands.Command[Any, ..., Any]) -> None: ...
class Holder:
    def method(self, value: "dict[str, Any]") -> typing.Any: ...
    def nested(self) -> list[discord.ui.Button[Any]]: ...
Alias = dict[str, Any]
def other(x: Thing[Any]) -> None: ...
"""
    found = [(f.line, f.scope) for f in find_any(source, "bot.example")]
    assert found == [(2, ""), (8, "send"), (11, "Holder.method"), (11, "Holder.method"), (13, "Alias"), (14, "other")]
    assert _edge_of(Found("bot.emulator._http", 1, "json_response")) == "bot.emulator"
    assert _edge_of(Found("bot.service._models", 1, "GameState.from_json")) == "bot.service._models:GameState.from_json"
    assert _edge_of(Found("bot.service._models", 1, "GameState.to_json")) is None
    assert _edge_of(Found("bot.sandbox._bridge", 1, "Viewer")) is None


def test_the_architecture_page_says_where_any_may_appear() -> None:
    page = DOC.read_text(encoding="utf-8")
    assert "`Any`" in page and "tests/test_typed_edges.py" in page
