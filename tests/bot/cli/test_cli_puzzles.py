"""``kingme puzzles show`` and ``kingme puzzles build``, run in-process through ``bot.cli.main``: a puzzle printed with
its board, side to move, themes, proof and solution; the build's refusals; ``--from-games`` reading the finished games
of a real Redis."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ai.puzzles import load_puzzles
from ai.puzzles.record import read
from bot.cli import main
from bot.redis_process import EmbeddedRedis
from bot.service import GameService
from tests.bot.service.conftest import chooser, clock, events, make_service, service
from tests.bot.service.test_games import ANN
from tests.bot.store.test_lifecycle import finished_ai_game

__all__ = ["chooser", "clock", "events", "make_service", "service"]


def test_show_prints_the_board_the_side_to_move_and_the_solution(capsys: pytest.CaptureFixture[str]) -> None:
    searched = next(p for p in load_puzzles() if p.margin is not None)
    assert main(["puzzles", "show", searched.id]) == 0
    lines = capsys.readouterr().out.splitlines()
    side = "Black" if searched.fen.startswith("B") else "White"
    assert lines[0] == f"Puzzle {searched.id}, rated {searched.rating}: {side} to move and {searched.result}"
    assert lines[9].split() == list("abcdefgh")  # the numbered board of `kingme show`
    assert lines[10] == f"themes: {', '.join(searched.themes)}"
    assert lines[11].startswith(f"proof: every other move scores at least {searched.margin / 100:.2f} men worse")
    assert lines[12] == f"solution: {' '.join(searched.solution)}"


def test_show_of_a_database_puzzle_names_the_databases(capsys: pytest.CaptureFixture[str]) -> None:
    exact = next(p for p in load_puzzles() if p.margin is None)
    assert main(["puzzles", "show", exact.id]) == 0
    assert "proof: the endgame databases" in capsys.readouterr().out


def test_show_of_an_unknown_puzzle_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["puzzles", "show", "nothing"]) == 2
    assert capsys.readouterr().err == "kingme: no puzzle 'nothing' in the shipped set\n"


def test_build_refuses_nothing_to_mine_and_from_games_without_redis(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert main(["puzzles", "build", "--games", "0", "--out", str(tmp_path / "p.jsonl")]) == 2
    assert "nothing to mine" in capsys.readouterr().err
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env file here
    assert main(["puzzles", "build", "--from-games", "--out", str(tmp_path / "p.jsonl")]) == 2
    assert "REDIS_URL, which is not set" in capsys.readouterr().err
    assert not (tmp_path / "p.jsonl").exists()


async def test_build_from_games_mines_the_finished_games_in_redis(
    service: GameService,
    redis_server_session: EmbeddedRedis,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await finished_ai_game(service, ANN, "c9")
    monkeypatch.setenv("REDIS_URL", redis_server_session.url)
    out = tmp_path / "from-games.jsonl"
    argv = ["puzzles", "build", "--games", "0", "--from-games", "--out", str(out)]
    assert await asyncio.to_thread(main, argv) == 0  # the command runs its own event loop
    captured = capsys.readouterr()
    assert "1 finished games of English draughts in Redis" in captured.err
    assert " from 1 games " in captured.out and f"written to {out}" in captured.out
    assert read(out) == ()  # a game resigned at once holds no puzzle, but it was read and mined
