"""The round robin at its smallest: it plays every pair, fits the ratings anchored on easy, and writes the data file the
bot reads, with the command that measured it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai.strength import Measurement
from benchmarks import strength


def test_a_round_robin_writes_the_ratings_and_how_they_were_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "levels.json"
    strength.main(
        ["--levels", "easy,greedy,qlearning", "--games", "2", "--time", "0.01", "--jobs", "1", "--data", str(data)]
    )
    written = Measurement.from_json(data.read_text(encoding="utf-8"))
    assert written.ratings["easy"] == 1000 and set(written.ratings) == {"easy", "greedy", "qlearning"}
    assert written.ratings["greedy"] > 1000, "greedy beats random moves"
    assert list(written.ratings) == sorted(written.ratings, key=lambda n: written.ratings[n])
    assert written.command == (
        "python -m benchmarks.strength --games 2 --time 0.01 --jobs 1 --variant american --levels easy,greedy,qlearning"
        " --seed 1"
    )
    assert (written.games_per_pair, written.time_per_move, written.variant) == (2, 0.01, "american")
    assert {(r.a, r.b) for r in written.results} == {("easy", "greedy"), ("easy", "qlearning"), ("greedy", "qlearning")}
    out = capsys.readouterr().out
    assert f"ratings written to {data}" in out and "| level | Elo |" in out


def test_a_subset_without_every_level_leaves_the_shipped_file_alone(capsys: pytest.CaptureFixture[str]) -> None:
    strength.main(["--levels", "easy,qlearning", "--games", "2", "--time", "0.01", "--jobs", "1"])
    assert "no ratings file written" in capsys.readouterr().out
