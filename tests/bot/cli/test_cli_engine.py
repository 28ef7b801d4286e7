"""``kingme show``, ``kingme moves`` and ``kingme --help``, run in-process through ``bot.cli.main``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import EXIT_BROKEN_PIPE, main


def test_show_draws_the_numbers_of_the_empty_dark_squares(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "W:WK18:B14"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split() == ["8", "1", "2", "3", "4"]
    assert rows[3].split() == ["5", "13", "b", "15", "16"]  # the black man stands on 14 (c5)
    assert rows[4].split() == ["4", "17", "W", "19", "20"]  # the white king on 18 (d4)
    assert rows[8].split() == list("abcdefgh")
    assert rows[9] == "White to move"
    assert max(len(row) for row in rows[:9]) == len(rows[8].rstrip())  # the file letters sit under the columns


def test_show_numbers_the_mini_board_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "start", "--variant", "mini"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[2].split() == ["4", "7", "8", "9"]
    assert rows[6].split() == list("abcdef")


def test_moves_of_a_finished_position_says_the_game_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "W:W:B14"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "kingme: the game is over in that position: Black wins: White has no pieces left\n"
    assert main(["moves", "B:W30:B14"]) == 0
    assert capsys.readouterr().out.split() == ["14-17", "14-18"]


def test_help_says_what_plain_kingme_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["--help"])
    assert stopped.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Plain `kingme`, with no command, runs the bot" in text
    assert "DISCORD_TOKEN" in text and "sandbox" in text


@pytest.mark.parametrize("command", [["moves", "start"], ["perft", "5", "--divide"]])
def test_a_closed_pipe_ends_the_command_quietly(command: list[str]) -> None:
    """``kingme moves start | head -1``: the reader goes away before the command has written; the command stops with
    128 + SIGPIPE and says nothing (before: a BrokenPipeError traceback)."""
    process = subprocess.Popen([sys.executable, "-m", "bot", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before anything is written
    said = process.stderr.read().decode()
    assert process.wait(timeout=120) == EXIT_BROKEN_PIPE
    assert said == "", said


def test_env_files_are_never_committed() -> None:
    """``.env`` holds the bot token (docs/deploy.md): git ignores it in a checkout."""
    root = Path(__file__).resolve().parents[3]
    for name in (".env", ".env.production"):
        found = subprocess.run(["git", "check-ignore", "-q", name], cwd=root, check=False)
        assert found.returncode == 0, f"git does not ignore {name}"
