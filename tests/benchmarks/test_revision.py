"""Matches against an earlier revision: its files are extracted once and its levels play from them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchmarks import match, revision_worker
from core import Board


@pytest.fixture
def checkouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "revisions"
    monkeypatch.setattr(revision_worker, "CHECKOUTS", folder)
    return folder


def test_names_split_into_level_and_revision() -> None:
    assert revision_worker.split("master@HEAD~1") == ("master", "HEAD~1")
    assert revision_worker.split("master") is None


def test_a_revision_is_extracted_once_with_its_own_files(checkouts: Path) -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=revision_worker.ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    folder = revision_worker.checkout("HEAD")
    assert folder == checkouts / commit[:12]
    assert (folder / "core" / "board.py").is_file()
    assert (folder / "ai" / "api.py").is_file()
    marker = folder / "core" / "marker"
    marker.touch()
    assert revision_worker.checkout(commit) == folder
    assert marker.exists()  # not extracted again
    with pytest.raises(subprocess.CalledProcessError):
        revision_worker.checkout("no-such-revision")


def test_the_worker_plays_with_the_revision_s_code(checkouts: Path) -> None:
    client = revision_worker.Client("HEAD")
    try:
        board = Board()
        board.push_text("11-15")
        reply = client.ask("easy", ["11-15"], 0.05, seed=1)
        assert reply["move"] in {m.text() for m in board.legal_moves}
        assert Path(reply["code"]) == revision_worker.checkout("HEAD")
    finally:
        client.close()
    assert client.process.returncode == 0


def test_a_whole_game_against_a_revision_ends_by_the_rules(checkouts: Path) -> None:
    result, how = match.play("easy@HEAD", "greedy", (0.05, 0.05), ("11-15", "23-19", "8-11"), seed=3)
    assert result in {"1-0", "0-1", "1/2-1/2"}
    final = Board(how.split(", ", 1)[1])
    if result != "1/2-1/2":
        assert final.outcome() is not None
