"""Every search level answers with a legal move in every variant, and replies at once when it has no choice; former
level names still work."""

from __future__ import annotations

import random
import re
import zlib
from pathlib import Path

import pytest

from ai.api import GameInput, Limits, UnknownLevelError, choose_move, get_level, levels, merge_limits
from core import Board

SEARCH_LEVELS = ("medium", "cautious", "greedy", "hard", "master")
FORMER_NAMES = {"seed-ab": "cautious", "seed-ab3": "greedy"}
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


@pytest.mark.parametrize(("former", "name"), FORMER_NAMES.items())
def test_former_names_are_aliases(former: str, name: str) -> None:
    assert get_level(former) is get_level(name)
    assert get_level(f" {former.upper()} ") is get_level(name)
    game = GameInput("american", Board().fen(), ("11-15", "23-19"))
    old, new = choose_move(former, game, seed=5), choose_move(name, game, seed=5)
    assert (old.move, old.score, old.depth, old.nodes) == (new.move, new.score, new.depth, new.nodes)


def test_aliases_are_not_listed() -> None:
    known = levels()
    assert not set(FORMER_NAMES) & set(known)
    assert all("seed" not in level.name and "seed" not in level.summary.lower() for level in known.values())
    with pytest.raises(UnknownLevelError) as error:
        get_level("no-such-level")
    assert "seed" not in str(error.value)
    assert "cautious" in str(error.value)


def test_levels_are_listed_weakest_to_strongest_by_their_measured_ratings() -> None:
    ratings = [level.rating for level in levels().values()]
    assert None not in ratings
    assert ratings == sorted(ratings)  # type: ignore[type-var]
    assert next(iter(levels())) == "easy", "the default opponent of /checkers play"


def test_readme_level_table_lists_the_levels_weakest_first_with_their_ratings() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| level | Elo | how it plays |") :].split("\n\n")[0]
    rows = re.findall(r"^\s*\| `([a-z-]+)` \| (\d+) \|", table, re.MULTILINE)
    assert rows == [(name, str(level.rating)) for name, level in levels().items()]


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
