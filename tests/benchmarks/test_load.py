"""The load test's script at a tiny load: two games by clicks (one against the AI, one between two people) through the
emulator against one bot process and one AI worker; it reports every interaction answered once, over its shard, and
every move stored once."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def figure(output: str, row: str) -> str:
    """A row's value in the script's table."""
    found = re.search(rf"^\| {re.escape(row)} \| (?P<value>[^|]+) \|$", output, re.MULTILINE)
    assert found, f"no row {row!r} in:\n{output}"
    return found["value"].strip()


def test_a_tiny_load_loses_and_doubles_no_move() -> None:
    command = [sys.executable, "-m", "benchmarks.load", "-G", "2", "-K", "1", "-W", "1", "--mix", "0.5"]
    command += ["--moves", "2", "--duration", "0", "--pause", "0", "--level", "easy", "--seed", "1"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    output = done.stdout
    assert done.returncode == 0, output + done.stderr
    assert "verified against Redis: 6 moves in 2 games: 0 lost, 0 applied twice" in output, output
    assert figure(output, "moves lost / applied twice") == "0 / 0"
    assert figure(output, "unanswered / answered twice / off shard") == "0 / 0 / 0"
    assert figure(output, "games stalled") == "0"
    assert figure(output, "tracebacks in the bots' and workers' consoles") == "0"
    # the people moved twice in each game, and the AI answered each of its person's moves
    assert re.match(r"[\d.]+ \(4 \+ 2 in 2 games\)$", figure(output, "moves/s (people + AI)")), output
    interactions = re.match(r"[\d.]+ \((?P<count>\d+) in", figure(output, "interactions/s"))
    menus = re.match(r"(?P<clicks>\d+) for 4 moves$", figure(output, "menu choices for the people's moves"))
    assert menus and 4 <= int(menus["clicks"]) <= 8, "a piece and its move, or the piece alone when it has one move"
    # a game against the AI: the command, the moves' menu choices, two clicks to resign; a challenge: the command, the
    # click that accepts it, the moves' menu choices and two to resign
    assert interactions and int(interactions["count"]) == (1 + 2) + (2 + 2) + int(menus["clicks"]), output
