"""Errors are data: each message a player can provoke from the rules is an id (its English template) with parameters,
looked up in the catalogue (:func:`bot.service.rules_text`), so it reaches a French player in French, and nothing in
``bot/`` reads English text back. Every error class of the rules and of the service has its messages in the catalogue,
in every language."""

from __future__ import annotations

import ast
import inspect
import pickle
from pathlib import Path

import pytest

from bot import service as service_package
from bot.i18n import Text, available, language
from bot.service import ServiceError, rules_text
from core import MESSAGES, AmbiguousMoveError, Board, RulesError, get_variant, read_pdn

ROOT = Path(__file__).resolve().parents[3]


def _error(call: object) -> RulesError:
    with pytest.raises(RulesError) as info:
        call()  # type: ignore[operator]
    return info.value


def _capture_board() -> Board:
    board = Board()
    for move in ("11-15", "22-18"):  # Black must take 15x22
        board.push_text(move)
    return board


PROVOKED = {
    "not a move": lambda: Board().parse_move("hello"),
    "illegal here": lambda: Board().parse_move("1-2"),
    "capture compulsory": lambda: _capture_board().parse_move("9-13"),
    "off the board": lambda: Board().parse_move("40-44"),
    "light square": lambda: Board().parse_move("a8-b7"),
    "cannot pass": lambda: Board().parse_move("pass"),
    "unknown variant": lambda: get_variant("chess"),
    "not a FEN": lambda: Board("hello"),
    "FEN too long": lambda: Board("B:W" + "1," * 5000),
    "FEN square twice": lambda: Board("B:W21,21:B1"),
    "a man to crown": lambda: Board("B:W1:B5"),
    "PDN bad move": lambda: read_pdn('[Event "x"]\n1. 11-15 99-98 *'),
}


@pytest.mark.parametrize("case", sorted(PROVOKED))
def test_every_message_of_the_rules_is_said_from_the_catalogue(case: str) -> None:
    error = _error(PROVOKED[case])
    assert error.template in MESSAGES, f"core raised {error.template!r}, which is not one of core.MESSAGES"
    text = rules_text(error)
    assert isinstance(text, Text) and text == str(error), "the English is unchanged"
    french = language("fr").say(text)
    assert french != str(error), french
    assert all(str(v) not in ("", "None") for v in error.params.values())


def test_a_rules_error_pickles_as_data() -> None:
    error = _error(lambda: Board("B:W18:B14,15,22,23").parse_move("..."))
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.template, again.params, str(again)) == (
        type(error),
        error.template,
        error.params,
        str(error),
    )
    ambiguous = AmbiguousMoveError(
        "{move} fits more than one capture: write the whole path, one of {moves}",
        ("1x10x19", "1x10x17"),
        move="1x10",
        moves="1x10x19, 1x10x17",
    )
    assert pickle.loads(pickle.dumps(ambiguous)).candidates == ("1x10x19", "1x10x17")


def test_every_error_core_raises_uses_one_of_its_messages() -> None:
    """Every ``raise SomeError("...")`` and ``SomeError("...")`` in core names a template of :data:`core.MESSAGES`."""
    errors = {
        name
        for name, value in vars(__import__("core")).items()
        if inspect.isclass(value) and issubclass(value, RulesError)
    }
    found = []
    for path in sorted((ROOT / "core").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in errors and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.append(first.value)
                elif isinstance(first, ast.Name) and first.id in ("message", "template"):
                    continue  # a template chosen from a table of literals (checked below through MESSAGES)
                else:
                    pytest.fail(f"{path.name}:{node.lineno}: {node.func.id} is raised with a computed message")
    assert found and sorted(set(found) - set(MESSAGES)) == []


def test_every_message_of_the_rules_and_the_service_is_in_every_language() -> None:
    defaults = []
    for cls in vars(service_package).values():
        if inspect.isclass(cls) and issubclass(cls, ServiceError):
            default = inspect.signature(cls.__init__).parameters.get("message")
            if default is not None and isinstance(default.default, Text):
                defaults.append(default.default)
    assert len(defaults) >= 4, "the service's errors with a message of their own"
    for code in available():
        lang = language(code)
        if code == "en":
            continue
        for message in (*MESSAGES, *(d.msgid for d in defaults)):
            said = lang.say(Text(message, {k: k for k in _placeholders(message)}))
            assert said != Text(message, {k: k for k in _placeholders(message)}), f"{code}: {message!r} untranslated"


def _placeholders(message: str) -> set[str]:
    return {name for _, name, _, _ in __import__("string").Formatter().parse(message) if name}
