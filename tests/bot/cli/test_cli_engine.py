"""``kingme show``, ``kingme moves`` and ``kingme --help``, run in-process through ``bot.cli.main``."""

from __future__ import annotations

import pytest

from bot.cli import main


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
