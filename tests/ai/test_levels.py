"""Every search level answers with a legal move in every variant, and replies at once when it has no choice."""

from __future__ import annotations

import random
import zlib

import pytest

from ai.api import GameInput, Limits, choose_move, get_level, levels, merge_limits
from core import Board

SEARCH_LEVELS = ("medium", "seed-ab", "seed-ab3", "hard", "master")
VARIANTS = ("american", "capture-all", "mini")
SMALL = Limits(time=0.05, depth=3, nodes=3000)


def random_positions(variant: str, count: int, seed: int) -> list[Board]:
    """Positions reached by random play from the start, each with at least one legal move."""
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = Board(variant=variant)
        for _ in range(rng.randrange(4, 60)):
            moves = board.legal_moves
            if not moves or board.outcome() is not None:
                break
            board.push(rng.choice(moves))
        if board.outcome() is None and board.legal_moves:
            boards.append(board)
    return boards


def test_levels_are_registered_with_summaries() -> None:
    known = levels()
    for name in SEARCH_LEVELS:
        assert name in known
        assert known[name].summary and "\n" not in known[name].summary


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", SEARCH_LEVELS)
def test_level_returns_legal_moves(name: str, variant: str) -> None:
    level = get_level(name)
    limits = merge_limits(level, SMALL)
    for i, board in enumerate(random_positions(variant, 30, seed=zlib.crc32(f"{name}:{variant}".encode()))):
        legal = {m.text() for m in board.legal_moves}
        fen = board.fen()
        result = level.factory().choose(board, limits, random.Random(i))
        assert result.move in legal, (name, variant, fen, result)
        assert board.fen() == fen, "the board must be restored"
        assert result.pv and result.pv[0] == result.move


@pytest.mark.parametrize("name", SEARCH_LEVELS)
def test_choose_move_from_game_input(name: str) -> None:
    game = GameInput("american", Board().fen(), ("11-15", "23-19", "8-11", "22-17"))
    result = choose_move(name, game, Limits(time=0.05, depth=2, nodes=500), seed=3)
    assert result.move in {m.text() for m in game.board().legal_moves}


@pytest.mark.parametrize("name", ["hard", "master"])
def test_single_legal_move_is_played_at_once(name: str) -> None:
    board = Board("W:W22:B13,18")  # White's only move is the capture 22x15
    assert [m.text() for m in board.legal_moves] == ["22x15"]
    result = get_level(name).factory().choose(board, Limits(time=5.0), random.Random(0))
    assert result.move == "22x15"
    assert result.nodes == 0 and result.depth == 0


@pytest.mark.parametrize("name", SEARCH_LEVELS)
def test_pass_is_returned_when_blocked(name: str) -> None:
    board = Board("W:W29:B25,K22", "capture-all")  # White's man on 29 is blocked and must pass
    assert [m.text() for m in board.legal_moves] == ["pass"]
    result = get_level(name).factory().choose(board, merge_limits(get_level(name), SMALL), random.Random(0))
    assert result.move == "pass"
