"""The rules speak English only: each message a player can provoke from core is read back into a message of the
catalogue (:func:`bot.games._locale.rules_message`), so it reaches a French player in French."""

from __future__ import annotations

import pytest

from bot.games._locale import rules_message
from bot.i18n import Text, language
from core import Board, RulesError, get_variant


def _message(call: object) -> str:
    with pytest.raises(RulesError) as info:
        call()  # type: ignore[operator]
    return str(info.value)


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
}


@pytest.mark.parametrize("case", sorted(PROVOKED))
def test_every_message_of_the_rules_is_in_the_catalogue(case: str) -> None:
    english = _message(PROVOKED[case])
    text = rules_message(english)
    assert isinstance(text, Text), f"core's message {english!r} is not in the catalogue"
    assert text == english, "the English is unchanged"
    assert language("fr").say(text) != english
