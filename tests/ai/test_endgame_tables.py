"""The trainer's prepared tables (:func:`ai.endgame_tables.prepare`): solved from the database in the data folder,
a part of its largest tables included, written beside it and mapped; equal to a whole solve of the same tables.

The six-piece part of Second Position takes minutes and gigabytes to solve, so the test prepares the same kind of
database at four pieces: the two against two with at most one man a side (and every table of fewer pieces), with the
small tables' limits lowered so that its four-piece positions are read from the prepared tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ai import egdb, endgame_tables, endgames
from ai.kernel import build_endgame_database
from ai.kernel.distance import locate, solve
from core import Board

PART = egdb.Only((2, 2), 1)


@pytest.fixture
def part_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder holding the four-piece part, with the trainer's caches emptied and its small tables limited to
    three pieces."""
    db, _ = build_endgame_database(4, only=PART)
    folder = tmp_path / "egdb"
    folder.mkdir()
    egdb.save(db, folder / egdb.file_name(4))
    monkeypatch.setenv("EGDB_DIR", str(folder))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(egdb, "_LOADED", {})
    monkeypatch.setattr(endgame_tables, "_SOLVED", {})
    monkeypatch.setattr(endgame_tables, "_MAPPED", {})
    monkeypatch.setattr(endgame_tables, "MOST_PIECES", 3)
    monkeypatch.setattr(endgame_tables, "MEN_PIECES", 3)
    monkeypatch.setattr(endgame_tables, "_physical_memory", endgame_tables._physical_memory)
    return folder


def _whole() -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    shipped = egdb.read(egdb.SHIPPED / egdb.file_name(5))
    return solve(shipped, 4, kings_only=False)


def test_a_prepared_part_is_mapped_and_equals_the_whole_solve_table_by_table(part_folder: Path) -> None:
    inside = Board("B:W10,K30:B23,K1")  # two against two, a man a side
    outside = Board("B:WK30:B22,23,K1")  # three against one: not in the part
    assert endgames.prepared() is None and endgames.distance(inside) is None, "nothing prepared yet"

    done = endgames.prepare()
    assert done.folder.parent == part_folder and done.folder.is_dir() and done.bytes > done.positions
    tables = endgames.prepared()
    assert tables is not None and isinstance(tables.dist, np.memmap) and isinstance(tables.values, np.memmap)

    dist, values, offsets = _whole()
    compared = 0
    for sig in egdb.signatures(4):
        sid, size = egdb.signature_id(*sig), egdb.table_size(*sig)
        if not PART.keeps(sig, 4):
            assert tables.offsets[sid] == -1, sig
            continue
        mine, theirs = int(tables.offsets[sid]), int(offsets[sid])
        assert np.array_equal(tables.values[mine : mine + size], values[theirs : theirs + size]), sig
        assert np.array_equal(tables.dist[mine : mine + size], dist[theirs : theirs + size]), sig
        compared += size
    assert compared > 1_000_000

    at = locate(inside.black, inside.white, inside.kings, True, offsets)
    expected = {egdb.WIN: endgames.WIN, egdb.LOSS: endgames.LOSS, egdb.DRAW: endgames.DRAW}[int(values[at])]
    found = endgames.distance(inside)
    assert found is not None and found.value == expected
    assert found.plies == (None if expected == endgames.DRAW else int(dist[at]))
    assert endgames.is_ending(inside) and not endgames.is_ending(outside) and endgames.distance(outside) is None


def test_damaged_prepared_tables_are_not_read_and_a_small_database_is_refused(part_folder: Path) -> None:
    done = endgames.prepare()
    (done.folder / "dist.npy").write_bytes(b"not an array")
    endgame_tables._MAPPED.clear()
    assert endgames.prepared() is None and endgames.distance(Board("B:W10,K30:B23,K1")) is None

    endgame_tables._physical_memory = lambda: 1_000_000  # type: ignore[assignment]  (the fixture's patch undoes it)
    too_little = r"takes about [0-9.]+ GB of memory and this machine has 0.0 GB: build a part"
    with pytest.raises(endgames.NotAnEndingError, match=too_little):
        endgames.prepare()

    endgame_tables.MOST_PIECES = 5  # back to the real limit (the fixture restores it): four pieces are not enough
    with pytest.raises(endgames.NotAnEndingError, match="kingme egdb build --pieces 6"):
        endgames.prepare()


def test_second_position_needs_the_prepared_six_piece_tables() -> None:
    with pytest.raises(endgames.NotAnEndingError, match="kingme endgame prepare"):
        endgames.setup("second_position")
    board = Board(endgames.SECOND_POSITION)
    assert board.turn.label == "White" and len(board.legal_moves) > 1
    sides = (board.turn, board.turn.opponent)
    counts = [(board.count(color, kings=False), board.count(color, kings=True)) for color in sides]
    assert counts == [(2, 1), (2, 1)]
    assert egdb.Only((3, 3), 2).keeps((2, 1, 2, 1), 6), "the part the build hint names holds it"
    assert endgames.distance(board) is None  # five-piece databases: six pieces are outside the tables
