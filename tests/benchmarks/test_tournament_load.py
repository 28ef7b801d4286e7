"""The tournament load run's script at a tiny load: an arena of four played by clicks through the emulator against one
bot process, cancelled by its creator after a few seconds; every join and every interaction answered once, every move
stored once, the players paired again as their games end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def figure(output: str, row: str) -> str:
    """A row's value in the script's output (``name  value``)."""
    found = re.search(rf"^{re.escape(row)}\s+(?P<value>.+)$", output, re.MULTILINE)
    assert found, f"no row {row!r} in:\n{output}"
    return found["value"].strip()


def test_a_tiny_arena_loses_and_doubles_no_move() -> None:
    command = [sys.executable, "-m", "benchmarks.tournament_load", "-P", "4", "--cancel-after", "8"]
    command += ["--moves", "2", "--pause", "0", "--seed", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = done.stdout
    assert done.returncode == 0, output + done.stderr
    assert figure(output, "unanswered / answered twice") == "0 / 0"
    assert figure(output, "moves lost / applied twice / games stalled") == "0 / 0 / 0"
    assert figure(output, "tracebacks in the consoles") == "0"
    assert figure(output, "joins refused") == "0"
    assert "(3 joins at once)" in figure(output, "joins, first response p50 / p99 / max")
    games, moves = (int(n) for n in figure(output, "games / moves").split(" / "))
    assert games > 2, "the players were paired again as their games ended"
    assert moves == 4 * games, "two moves of each player in every game, then a resignation"
    assert figure(output, "players with a score / podium posts").startswith("4 / "), "everyone played"
    found = re.search(r"verified against Redis: (\d+) moves in (\d+) games: 0 lost, 0 applied twice", output)
    assert found and (int(found[1]), int(found[2])) == (moves, games), output
