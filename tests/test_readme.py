"""The README's "Discord commands" table lists the registered ``/checkers`` commands exactly, in order, with their
options (optional ones in brackets), so it cannot drift from :func:`bot.games.command_list`."""

from __future__ import annotations

import re
from pathlib import Path

from bot.games import command_list

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands() -> list[str]:
    """The first column of the table under ``### Discord commands``, without its backticks."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"#+\s*Discord commands\s*", line))
    rows: list[str] = []
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            if rows or line.startswith("#"):
                break
            continue
        first = line.strip("|").split("|")[0].strip()
        if first.startswith("`") and first.endswith("`"):
            rows.append(first.strip("`"))
    return rows


def test_readme_lists_every_registered_command_with_its_options() -> None:
    documented = readme_commands()
    assert documented, "no /checkers rows under the README's 'Discord commands' heading"
    assert all(row.startswith("/checkers ") for row in documented), documented
    assert documented == [usage for usage, _ in command_list()]
