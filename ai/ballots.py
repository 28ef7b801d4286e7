"""Opening ballots: the forced first moves that start arena games, so that two players do not replay one game.

- ``american``: the ACF 156-opening three-move deck (``data/ballots.txt`` lists all 174 numbered ACF openings with
  their status; the 18 barred ones are never dealt). See the header of that file for where the list comes from and
  how it was checked.
- ``capture-all``: the same deck (the moves of the opening are the same as in English draughts).
- ``mini``: every legal two-ply opening of the 6×6 board, enumerated by the rules engine (25 of them).

A ballot is plain data (moves as PDN text), so it crosses process boundaries as it is.
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from core import Board, Move, get_variant

DATA_FILE = Path(__file__).with_name("data") / "ballots.txt"
ACF_NUMBERED = 174
"""How many three-move openings the ACF numbers."""
ACF_DECK_SIZE = 156
"""How many of them make up the tournament deck (the rest are barred)."""

_LINE = re.compile(r"^\s*(\d+)\s+(\d+-\d+)\s+(\d+[-x]\d+)\s+(\d+[-x]\d+)\s+(\w+)\s*$")


class BallotStatus(enum.Enum):
    """Where an opening stands in the ACF list."""

    DECK = "deck"
    """In the tournament deck since before 2003."""
    ADDED = "added"
    """Added to the deck in 2003 (played only by post before)."""
    BARRED = "barred"
    """Barred as lost for one side: never dealt."""
    ENUMERATED = "enumerated"
    """Not from the ACF list: a legal opening enumerated by the rules engine (the mini board)."""


@dataclass(frozen=True)
class Ballot:
    """An opening: the moves that start the game, as PDN text, Black's first."""

    name: str
    """A short label for PDN and reports, e.g. ``ACF 12``."""
    moves: tuple[str, ...]
    status: BallotStatus = BallotStatus.ENUMERATED

    @property
    def dealt(self) -> bool:
        """Whether the ballot is in the deck that matches use."""
        return self.status is not BallotStatus.BARRED

    def text(self) -> str:
        return " ".join(self.moves)

    def board(self, variant: str = "american") -> Board:
        """The board after the ballot's moves; raises :class:`core.RulesError` if a move is illegal."""
        board = Board(None, variant)
        for move in self.moves:
            board.push_text(move)
        return board


@functools.cache
def acf_openings() -> tuple[Ballot, ...]:
    """All 174 numbered ACF three-move openings, barred ones included, in ACF order."""
    ballots: list[Ballot] = []
    for number, line in enumerate(DATA_FILE.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ValueError(f"{DATA_FILE.name} line {number} is not 'number move move move status': {line!r}")
        acf, first, reply, second, status = match.groups()
        ballots.append(Ballot(f"ACF {int(acf)}", (first, reply, second), BallotStatus(status)))
    if len(ballots) != ACF_NUMBERED or [b.name for b in ballots] != [f"ACF {n}" for n in range(1, ACF_NUMBERED + 1)]:
        raise ValueError(f"{DATA_FILE.name} must number the openings ACF 1 to ACF {ACF_NUMBERED} in order")
    return tuple(ballots)


def acf_deck() -> tuple[Ballot, ...]:
    """The 156-opening ACF three-move deck, in ACF order."""
    return tuple(b for b in acf_openings() if b.dealt)


@functools.cache
def enumerate_openings(variant: str, plies: int) -> tuple[Ballot, ...]:
    """Every legal sequence of ``plies`` moves from the variant's start, in numeric order of the squares.

    Sequences that end the game early are left out, as is any pass.
    """
    start = Board(None, variant)
    found: list[tuple[Move, ...]] = []

    def walk(board: Board, line: tuple[Move, ...]) -> None:
        if len(line) == plies:
            found.append(line)
            return
        for move in board.legal_moves:
            if move.is_pass:
                continue
            board.push(move)
            if board.outcome() is None:
                walk(board, (*line, move))
            board.pop()

    walk(start, ())
    found.sort(key=lambda line: [m.path for m in line])
    return tuple(
        Ballot(f"{start.variant.name} {plies}-ply {n}", tuple(m.text() for m in line))
        for n, line in enumerate(found, start=1)
    )


def openings(variant: str = "american") -> tuple[Ballot, ...]:
    """The ballots an arena match deals from for ``variant``."""
    v = get_variant(variant)
    if v.geometry.size == 8:
        return acf_deck()
    return enumerate_openings(v.name, 2)
