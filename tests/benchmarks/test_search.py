"""The search benchmark's depth mode: every position searched to the asked depth, and the seconds it took."""

from __future__ import annotations

import pytest

from benchmarks import search


def test_time_to_depth_reaches_the_depth_on_every_position(capsys: pytest.CaptureFixture[str]) -> None:
    search.main(["--levels", "kernel", "--depth", "6"])
    out = capsys.readouterr().out.splitlines()
    names = [name for name, _ in search.POSITIONS]
    lines = [line for line in out if any(line.startswith(name + " ") for name in names)]
    assert len(lines) == len(names) and all(line.split()[-1] == "6" for line in lines), out
    assert out[-1].startswith("total")
    assert float(out[-1].split()[1]) > 0
