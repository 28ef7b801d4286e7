"""The endgame databases: our retrograde analysis agrees with an independent solver on every position of up to three
pieces, and the file keeps what was built and refuses a damaged copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ai import egdb
from ai.kernel import build_endgame_database
from ai.kernel.egdb import DRAW, LOSS, UNKNOWN, WIN, probe
from core import Board
from tests.ai.endgames import solve


@pytest.fixture(scope="module")
def three() -> egdb.Array:
    return build_endgame_database(3)[0]


def test_the_database_agrees_with_core_on_every_position_of_up_to_three_pieces(three: egdb.Array) -> None:
    solved = solve(3)
    expected = {p: WIN for p in solved.wins} | {p: LOSS for p in solved.losses} | {p: DRAW for p in solved.draws}
    assert len(expected) > 390_000 and solved.draws and solved.wins and solved.losses
    wrong = []
    for (black_pieces, white_pieces, kings, black), value in expected.items():
        me, opp = (black_pieces, white_pieces) if black else (white_pieces, black_pieces)
        if probe(me, opp, kings, black, three) != value:
            wrong.append((black_pieces, white_pieces, kings, black, value))
    assert wrong == []


def test_more_pieces_than_the_database_holds_are_unknown(three: egdb.Array) -> None:
    solved = solve(3)
    black_pieces, white_pieces, kings, _ = next(p for p in solved.wins if (p[0] | p[1]).bit_count() == 3)
    extra = 1 << 15 if not (black_pieces | white_pieces) & (1 << 15) else 1 << 16
    assert probe(black_pieces | extra, white_pieces, kings | extra, True, three) == UNKNOWN


def test_the_file_keeps_the_database_and_refuses_a_damaged_copy(
    three: egdb.Array, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / egdb.file_name(3)
    size = egdb.save(three, path)
    assert size < three.nbytes
    assert (egdb.read(path) == three).all()
    assert egdb.find(tmp_path) == path
    data = bytearray(path.read_bytes())
    data[-40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(egdb.DatabaseError):
        egdb.read(path)
    assert egdb.loaded(tmp_path) is None  # a search plays without a damaged database
    monkeypatch.setenv("EGDB_DIR", str(tmp_path))
    fallback = egdb.loaded()  # or with the shipped one, passing the damaged one over
    assert fallback is not None and fallback[0] == 5
    path.write_bytes(b"not a database")
    with pytest.raises(egdb.DatabaseError, match="not a King Me endgame database"):
        egdb.read(path)


def test_the_pieces_must_be_in_range() -> None:
    with pytest.raises(egdb.DatabaseError):
        build_endgame_database(7)


def test_a_mapped_file_is_read_in_place_and_checked(three: egdb.Array, tmp_path: Path) -> None:
    path = tmp_path / egdb.file_name(3)
    size = egdb.save(three, path, mapped=True)
    assert three.nbytes < size <= three.nbytes + egdb.PAGE
    db = egdb.read(path)
    assert isinstance(db, np.memmap) and db.flags.writeable  # numba's type for it: the same as an array in memory
    assert (db == three).all()
    solved = solve(3)
    for black_pieces, white_pieces, kings, black in list(solved.wins)[:2000]:
        me, opp = (black_pieces, white_pieces) if black else (white_pieces, black_pieces)
        assert probe(me, opp, kings, black, db) == WIN
    del db
    data = bytearray(path.read_bytes())
    data[-40] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(egdb.DatabaseError, match="checksum"):
        egdb.read(path)
    path.write_bytes(bytes(data[:-8]))
    with pytest.raises(egdb.DatabaseError, match="size"):
        egdb.read(path)


def test_six_pieces_are_written_to_be_mapped_and_fewer_compressed(three: egdb.Array, tmp_path: Path) -> None:
    six = three.copy()
    six[0] = 6  # the header of a 6-piece database (only the format is tried here)
    assert egdb.save(six, tmp_path / "six.egdb") > six.nbytes
    assert isinstance(egdb.read(tmp_path / "six.egdb"), np.memmap)
    assert egdb.save(three, tmp_path / "three.egdb") < three.nbytes
    assert not isinstance(egdb.read(tmp_path / "three.egdb"), np.memmap)


def _values(db: egdb.Array) -> np.ndarray:  # type: ignore[type-arg]
    words = np.asarray(db[egdb.HEADER :]).astype(np.uint64)
    return ((words[:, None] >> (2 * np.arange(32, dtype=np.uint64))) & np.uint64(3)).ravel()


def test_a_part_of_the_largest_tables_is_solved_as_the_whole_build_solves_it() -> None:
    whole = build_endgame_database(4)[0]
    only = egdb.Only((2, 2), 1)  # two pieces a side, at most one man a side
    part, stats = build_endgame_database(4, only=only)
    largest = [sig for sig in egdb.signatures(4) if sum(sig) == 4]
    kept = [sig for sig in largest if only.keeps(sig, 4)]
    assert sorted(kept) == [(0, 2, 0, 2), (0, 2, 1, 1), (1, 1, 0, 2), (1, 1, 1, 1)]
    whole_values, part_values = _values(whole), _values(part)
    for sig in egdb.signatures(4):
        at_whole, at_part = whole[1 + egdb.signature_id(*sig)], part[1 + egdb.signature_id(*sig)]
        if sum(sig) == 4 and sig not in kept:
            assert at_part == -1, sig  # left out: a probe of it is unknown
            continue
        size = egdb.table_size(*sig)
        assert (part_values[at_part : at_part + size] == whole_values[at_whole : at_whole + size]).all(), sig
    assert stats.positions < 6_408_836  # the whole 4-piece count
    men_each = Board("B:W21,22:B9,10")  # two men a side: not in the part
    assert probe(men_each.black, men_each.white, men_each.kings, True, part) == UNKNOWN
    assert probe(men_each.black, men_each.white, men_each.kings, True, whole) != UNKNOWN
