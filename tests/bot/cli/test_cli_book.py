"""``kingme book lines`` and ``widen``, run in-process through ``bot.cli.main``: bad settings are refused with one line
and nothing written (the lines themselves are tested in ``tests/ai/test_book.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


@pytest.mark.parametrize("action", ["lines", "widen"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--time", "0"], "--time must be a number of seconds above 0"),
        (["--plies", "3"], "--plies must be a number of plies from 4 to 60"),
        (["--jobs", "0"], "--jobs must be from 1 to 64"),
        (["--book", "missing.json"], "cannot read"),
        (["--book", "not-a-book.json"], "is not a King Me opening book"),
    ],
)
def test_book_lines_and_widen_refuse_bad_settings_with_one_line(
    action: str,
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _refused(["book", action, *argv], message, tmp_path, monkeypatch, capsys)


@pytest.mark.parametrize("argv", [["--from", "3"], ["--from", "9", "--to", "8"], ["--to", "60"]])
def test_book_widen_refuses_plies_to_branch_from_out_of_range_or_order(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _refused(["book", "widen", *argv], "--from and --to must be plies from 4 to 59", tmp_path, monkeypatch, capsys)


def _refused(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "not-a-book.json").write_text('{"format": 99}', encoding="utf-8")
    out = tmp_path / "out.json"
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not out.exists()
