"""The endings benchmark: its random kings-and-men positions, and given positions played out."""

from __future__ import annotations

import random

import pytest

from benchmarks import endgames
from core import Color


def test_a_kings_and_men_position_has_the_pieces_asked_for_and_no_capture_pending() -> None:
    rng = random.Random(3)
    for _ in range(20):
        board = endgames.kings_position(rng, 4, 3, men=(1, 2))
        strong, weak = (board.black, board.white) if board.turn is Color.BLACK else (board.white, board.black)
        assert ((strong & board.kings).bit_count(), (strong & ~board.kings).bit_count()) == (4, 1)
        assert ((weak & board.kings).bit_count(), (weak & ~board.kings).bit_count()) == (3, 2)
        assert board.outcome() is None and not any(m.captures for m in board.legal_moves)


def test_a_given_position_is_played_out_for_its_stronger_side(capsys: pytest.CaptureFixture[str]) -> None:
    # Black to move, White two kings up: the stronger side is White, not the side to move.
    endgames.main(["--fen", "B:WK14,K15,K18:BK30", "--positions", "2", "--time", "0.05"])
    out = capsys.readouterr().out.splitlines()
    assert sum("B:WK14,K15,K18:BK30: won in" in line for line in out) == 2, out
    assert out[-1].startswith("converted 2/2"), out
