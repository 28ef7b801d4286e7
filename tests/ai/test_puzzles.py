"""The puzzles (``ai/puzzles/``): the shipped set parses and every solution line is legal by ``core``; a seeded sample
is proven again, the first move the only one that keeps its result by the margin stated (the kernel's search at the
stated budget, the databases exactly where they reach); a puzzle mined again is the puzzle shipped; a build from one
self-play game makes valid puzzles; and the themes, ids and the file's reading work as documented."""

from __future__ import annotations

import dataclasses
import fnmatch
import random
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ai import egdb
from ai.puzzles import PUZZLES_FILE, THEMES, Puzzle, PuzzleFileError, load_puzzles, puzzle
from ai.puzzles.build import build, canonical, mine, puzzle_id
from ai.puzzles.judge import VERIFY_NODES, exact_verdict, in_databases, search_verdict
from ai.puzzles.record import parse_lines, read, write
from ai.puzzles.sources import self_play
from ai.puzzles.themes import themes
from core import Board

SHIPPED = load_puzzles()
SAMPLE = random.Random(24).sample(SHIPPED, 20)


@pytest.fixture(autouse=True)
def shipped_databases(monkeypatch: pytest.MonkeyPatch) -> None:
    """The set is proven against the databases shipped in the package (``kingme puzzles build`` uses them too)."""
    monkeypatch.setenv("EGDB_DIR", str(egdb.SHIPPED))


def assert_legal(p: Puzzle) -> None:
    board = Board(p.fen)
    assert len(board.legal_moves) > 1, f"{p.id}: the first move is the only legal move"
    for text in p.solution:
        legal = {m.text(): m for m in board.legal_moves}
        assert text in legal, f"{p.id}: {text} is not legal in {board.fen()}"
        board.push(legal[text])


def test_the_shipped_set_parses_and_every_solution_line_is_legal() -> None:
    assert len(SHIPPED) >= 1000
    assert len({p.id for p in SHIPPED}) == len(SHIPPED)
    assert len({canonical(Board(p.fen)) for p in SHIPPED}) == len(SHIPPED)  # no position twice, even mirrored
    for p in SHIPPED:
        assert_legal(p)
        assert p.id == puzzle_id(Board(p.fen))
        assert p.result in ("win", "draw") and set(p.themes) <= THEMES.keys()
        assert ("defence" in p.themes) == (p.result == "draw")
        assert p.margin is None or (p.margin >= 150 and p.nodes > 0 and p.depth > 0)
    assert [(p.rating, p.id) for p in SHIPPED] == sorted((p.rating, p.id) for p in SHIPPED)
    assert puzzle(SHIPPED[0].id) == SHIPPED[0] and puzzle("nothing") is None
    assert {p.exact for p in SAMPLE} == {True, False}  # the sample proves both kinds of puzzle


@pytest.mark.parametrize("p", SAMPLE, ids=[p.id for p in SAMPLE])
def test_a_sampled_puzzle_is_proven_again(p: Puzzle) -> None:
    board = Board(p.fen)
    if p.exact:
        assert in_databases(board)
        found = exact_verdict(board)
        assert found is not None and (found.move, found.result) == (p.solution[0], p.result)
    else:
        assert not in_databases(board)
        found = search_verdict(board, p.nodes)
        assert found is not None, f"{p.id}: no single move keeps the result at {p.nodes} nodes"
        assert (found.move, found.result) == (p.solution[0], p.result)
        assert found.margin is not None and p.margin is not None and found.margin >= p.margin
        assert found.depth >= p.depth


def test_a_position_with_more_than_one_good_move_is_no_puzzle() -> None:
    """The proof above can fail: both verdicts refuse a position where more than one move keeps the result."""
    assert exact_verdict(Board("B:WK1:BK18,K19")) is None  # two kings against one: many moves keep the win
    assert search_verdict(Board()) is None  # the start: several moves hold the draw


def test_a_shipped_puzzle_mined_again_is_the_same_puzzle() -> None:
    for p in SAMPLE[:4]:
        assert mine(Board(p.fen), p.nodes or VERIFY_NODES) == p


def test_a_build_from_one_self_play_game_makes_valid_puzzles(tmp_path: Path) -> None:
    game = self_play(0, 5)
    assert game == self_play(0, 5)  # game i of seed s is always the same game
    lines: list[str] = []
    built = build([game], total=1, report=lines.append)
    assert built.puzzles and built.games == 1 and lines[-1].startswith("1/1 games: ")
    for p in built.puzzles:
        assert_legal(p)
        assert p.result != "draw" or "defence" in p.themes
    assert sum(built.shares().values()) >= 1.0  # each puzzle has a first move, a capture or a quiet one
    path = tmp_path / "set.jsonl.gz"
    size = write(built.puzzles, path)
    assert size == path.stat().st_size and read(path) == tuple(built.puzzles)
    assert write(built.puzzles, tmp_path / "again.jsonl.gz") == size
    assert path.read_bytes() == (tmp_path / "again.jsonl.gz").read_bytes()  # the same puzzles, the same bytes


def test_a_position_and_its_mirror_are_one_puzzle() -> None:
    board = Board("B:W18,22,K30:B9,14")
    mirror = Board("W:W19,24:B11,15,K3")  # each square n is 33 - n, the colours swapped
    assert canonical(board) == canonical(mirror) and puzzle_id(board) == puzzle_id(mirror)
    assert canonical(board) != canonical(Board("W:W18,22,K30:B9,14"))


def test_the_themes_of_a_shot_and_of_a_breakthrough() -> None:
    shot = Board("B:W14,15,19,20,23,24,25:B2,3,4,6,12")  # 6-10 gives a man, 2x9x18x27 takes three
    assert themes(shot, ("6-10", "15x6", "2x9x18x27"), "win", exact=False) == ("shot", "quiet")
    crown = Board("B:WK15,K22:B23,27,K32")
    assert themes(crown, ("27-31",), "win", exact=True) == ("breakthrough", "endgame", "quiet")
    exchange = Board("B:W14,19,21,23,24,25,27,29,30,31,32:B1,2,3,4,6,7,8,9,10,12,20")
    assert "shot" not in themes(exchange, ("9x18", "23x14", "10x17"), "draw", exact=False)  # never behind


def test_a_bad_line_names_its_number() -> None:
    good = SHIPPED[0].to_json()
    assert parse_lines([good, "", good]) == (SHIPPED[0], SHIPPED[0])
    for bad in ("{", "[1]", good.replace('"win"', '"loss"').replace('"draw"', '"loss"'), good.replace("solution", "s")):
        with pytest.raises(PuzzleFileError, match=r"^line 2: "):
            parse_lines([good, bad])
    exact = dataclasses.replace(SHIPPED[0], margin=None, depth=0, nodes=0)
    assert '"margin":"exact"' in exact.to_json() and parse_lines([exact.to_json()]) == (exact,)


def test_the_set_ships_with_the_package() -> None:
    assert PUZZLES_FILE.is_file() and PUZZLES_FILE.stat().st_size < 200_000
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = project["tool"]["setuptools"]["package-data"]["ai"]
    inside = PUZZLES_FILE.relative_to(PUZZLES_FILE.parents[1]).as_posix()
    assert any(fnmatch.fnmatch(inside, pattern) for pattern in patterns), f"{inside} is not package data"


def test_reading_the_set_does_not_import_numba() -> None:
    """The Discord side reads the puzzles; only the miner needs the kernel."""
    code = "import sys, ai.puzzles; ai.puzzles.load_puzzles(); print('numba' in sys.modules, 'numpy' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["False", "False"]
