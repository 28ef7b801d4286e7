"""``kingme endgame show``, run in-process through ``bot.cli.main``: an ending printed with its task, distance, board
and a line of perfect play that ends the game as the distance says."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai import egdb
from bot.cli import main
from core import Board, Color, Termination


def test_show_prints_the_longest_win_of_two_kings_and_its_perfect_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["endgame", "show", "two_kings"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "two_kings: Black to move and win in 33 plies (17 moves)"
    assert lines[1] == "fen: B:WK14:BK1,K2"
    assert lines[10].split() == list("abcdefgh")  # the numbered board of `kingme show`
    line = lines[11].removeprefix("line: ").split()
    assert len(line) == 33
    board = Board("B:WK14:BK1,K2")
    for text in line:
        board.push_text(text)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Color.BLACK and outcome.termination is Termination.NO_PIECES


def test_show_refuses_an_unknown_ending(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["endgame", "show", "third_position"])
    assert exited.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_second_position_and_prepare_say_what_to_build_with_only_the_shipped_databases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EGDB_DIR", str(tmp_path))  # an empty data folder: the shipped five-piece database serves
    monkeypatch.setattr(egdb, "_LOADED", {})
    assert main(["endgame", "show", "second_position"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Second Position needs the six-piece tables: kingme egdb build --pieces 6" in err
    assert main(["endgame", "prepare"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no six-piece database in {tmp_path}" in err, err
