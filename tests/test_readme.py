"""The README's "Discord commands" and "Tournament commands" tables list the registered ``/checkers`` and
``/tournament`` commands exactly, in order, with their options (optional ones in brackets), so they cannot drift from
:func:`bot.games.command_list` and :func:`bot.games.tournament_commands`."""

from __future__ import annotations

import re
from pathlib import Path

from bot.games import command_list, tournament_commands

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands(heading: str = "Discord commands") -> list[str]:
    """The first column of the table under ``### <heading>``, without its backticks."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(rf"#+\s*{heading}\s*", line))
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


def test_readme_lists_every_tournament_command_with_its_options() -> None:
    documented = readme_commands("Tournament commands")
    assert documented, "no /tournament rows under the README's 'Tournament commands' heading"
    assert documented == [usage for usage, _ in tournament_commands()]


def readme_settings() -> dict[str, str]:
    """The rows of the table under ``### Settings``: variable -> its default column."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"#+\s*Settings\s*", line))
    rows: dict[str, str] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3 and re.fullmatch(r"`[A-Z0-9_]+`", cells[0]):
            rows[cells[0].strip("`")] = cells[1]
    return rows


def test_readme_settings_table_lists_every_setting_with_its_default() -> None:
    from bot.settings import Settings

    table = readme_settings()
    read_elsewhere = {"NUMBA_CACHE_DIR"}  # numba's own variable, read by the AI workers (default set in ai.kernel)
    assert sorted(table.keys() - read_elsewhere) == sorted(name.upper() for name in Settings.model_fields)
    for name, field in Settings.model_fields.items():
        default = field.default
        if isinstance(default, bool):
            expected = str(default).lower()
        elif isinstance(default, int | float):
            expected = f"{default:g}"
        elif isinstance(default, str | Path):
            expected = str(default)
        else:
            continue  # no default (None) or one computed at start, described in words
        assert expected in table[name.upper()], (name, table[name.upper()])
