"""Portable Draughts Notation: reading and writing whole games.

Tags written: ``Event``, ``Date``, ``Black``, ``White``, ``Result``, ``GameType`` and, for a game that does not start
from the initial position, ``SetUp`` and ``FEN``. English draughts is ``GameType "21"``; the two house variants have
no standard number, so their games also carry a ``Variant`` tag with the engine's variant name, which takes precedence
when a game is read back. Results follow the standard: ``1-0`` means Black, the first side to move, won.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.board import Board
from core.errors import InvalidPdnError, RulesError
from core.outcome import Color
from core.variants import AMERICAN, Variant, get_variant

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
TAG_ORDER = ("Event", "Site", "Date", "Round", "Black", "White", "Result", "GameType", "Variant", "SetUp", "FEN")

_BREAKING = frozenset({"Cc", "Zl", "Zp"})
"""Unicode categories of the characters that could end a line: controls and the line and paragraph separators."""
_TAG = re.compile(r'^\s*\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_COMMENT = re.compile(r"\{[^}]*\}|\([^)]*\)|;[^\n]*")
_MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$|^\d+\.\.\.$")


@dataclass
class PdnGame:
    """A game read from PDN: its tags, the board after its moves (with them on its move stack), and its result."""

    headers: dict[str, str] = field(default_factory=dict)
    board: Board = field(default_factory=Board)
    result: str = "*"


def game_to_pdn(board: Board, headers: Mapping[str, str] | None = None, result: str | None = None) -> str:
    """The PDN text of the game on ``board``: from its initial position through its move stack."""
    tags: dict[str, str] = {"Event": "King Me game", "Date": "????.??.??", "Black": "?", "White": "?"}
    tags.update(headers or {})
    outcome = board.outcome()
    tags["Result"] = result or tags.get("Result") or (outcome.result() if outcome else "*")
    if tags["Result"] not in RESULTS:
        raise InvalidPdnError("{result} is not a PDN result: use 1-0, 0-1, 1/2-1/2 or *", result=repr(tags["Result"]))
    variant = board.variant
    tags["GameType"] = (
        "21" if variant.geometry.size == 8 else f"21,B,{variant.geometry.size},{variant.geometry.size},N2,0"
    )
    if variant is not AMERICAN:
        tags["Variant"] = variant.name
    if board.initial_fen != variant.start_fen:
        tags["SetUp"] = "1"
        tags["FEN"] = board.initial_fen
    ordered = [k for k in TAG_ORDER if k in tags] + sorted(k for k in tags if k not in TAG_ORDER)
    lines = [f'[{key} "{_escape(tags[key])}"]' for key in ordered]
    lines.append("")
    lines.append(_movetext(board, tags["Result"]))
    return "\n".join(lines) + "\n"


def _movetext(board: Board, result: str) -> str:
    replay = Board(board.initial_fen, board.variant)
    tokens: list[str] = []
    number = 1
    for index, move in enumerate(board.move_stack):
        if replay.turn is Color.BLACK:
            tokens.append(f"{number}. {move.text()}")
        elif index == 0:
            tokens.append(f"{number}... {move.text()}")
        else:
            tokens.append(move.text())
        replay.push(move)
        if replay.turn is Color.BLACK:
            number += 1
    tokens.append(result)
    lines: list[str] = []
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > 79:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


def _escape(value: str) -> str:
    """A tag value as PDN writes it: backslash and quote escaped, and every control character and line or paragraph
    separator (U+2028, U+2029) a space, so that a tag is always one line whatever a player's name holds."""
    value = "".join(" " if unicodedata.category(c) in _BREAKING else c for c in value)
    return value.replace("\\", "\\\\").replace('"', '\\"')


def read_pdn(text: str) -> list[PdnGame]:
    """Every game in a PDN text. Raises :class:`InvalidPdnError` naming the game and move that could not be read."""
    if not isinstance(text, str):
        raise InvalidPdnError("PDN is text")
    games: list[PdnGame] = []
    headers: dict[str, str] = {}
    body: list[str] = []

    def finish() -> None:
        if headers or any(line.strip() for line in body):
            games.append(_parse_game(dict(headers), "\n".join(body), len(games) + 1))
        headers.clear()
        body.clear()

    in_body = False
    for line in text.replace("\r\n", "\n").split("\n"):  # not splitlines(): a name may hold U+2028 and such
        tag = _TAG.match(line)
        if tag:
            if in_body:
                finish()
                in_body = False
            headers[tag.group(1)] = re.sub(r"\\(.)", r"\1", tag.group(2))
        elif line.strip().startswith("["):
            raise InvalidPdnError(
                "game {number}: the tag {tag} is malformed", number=len(games) + 1, tag=repr(line.strip()[:40])
            )
        else:
            if line.strip():
                in_body = True
            body.append(line)
    finish()
    if not games:
        raise InvalidPdnError("no game found in the PDN text")
    return games


def _variant_of(headers: Mapping[str, str], number: int) -> Variant:
    try:
        if "Variant" in headers:
            return get_variant(headers["Variant"])
        game_type = headers.get("GameType", "21").split(",")[0].strip()
        if game_type != "21":
            raise InvalidPdnError(
                "game {number}: GameType {game_type} is not English draughts (21)", number=number, game_type=game_type
            )
        size = headers.get("GameType", "21").split(",")
        if len(size) >= 3 and size[2].strip() == "6":
            return get_variant("mini")
        return AMERICAN
    except RulesError as exc:
        if isinstance(exc, InvalidPdnError):
            raise
        raise InvalidPdnError("game {number}: {error}", number=number, error=exc) from None


def _parse_game(headers: dict[str, str], movetext: str, number: int) -> PdnGame:
    variant = _variant_of(headers, number)
    try:
        board = Board(headers.get("FEN") if headers.get("FEN") else None, variant)
    except RulesError as exc:
        raise InvalidPdnError("game {number}: bad FEN tag: {error}", number=number, error=exc) from None
    result = headers.get("Result", "*")
    clean = _COMMENT.sub(" ", movetext)
    for token in clean.split():
        if token in RESULTS:
            result = token
            continue
        if _MOVE_NUMBER.match(token):
            continue
        token = re.sub(r"^\d+\.(\.\.)?", "", token).rstrip("!?*")
        if not token:
            continue
        try:
            board.push_text(token)
        except RulesError as exc:
            raise InvalidPdnError(
                "game {number}, move {move}: {error}", number=number, move=repr(token), error=exc
            ) from None
    return PdnGame(headers=headers, board=board, result=result)
