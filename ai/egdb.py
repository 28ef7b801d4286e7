"""Endgame databases of English draughts: built by our own retrograde analysis, stored in a checked file, loaded once.

:func:`build` solves every position of up to ``pieces`` pieces (win, loss or draw for the side to move, with men and
kings; the compiled work is :mod:`ai.kernel.retro`, the indexing :mod:`ai.kernel.egdb`). :func:`save` writes the
result as one file: a first line ``KINGME-EGDB 1``, a JSON line (variant, pieces, positions, the compression and the
SHA-256 of the uncompressed array), then the database array (little-endian int64: 2 bits a position) compressed with
LZMA. :func:`load` checks the header and the checksum.

Where the files live: ``$EGDB_DIR`` if set, else ``$KINGME_DATA/egdb``, else ``data/egdb`` (the bot's setting
``EGDB_DIR`` is exported there for its AI workers). King Me ships the 5-piece database in the package
(``data/egdb/american-5.egdb``, 3 MB): :func:`loaded` is the largest database in the data folder, or the shipped one
if the folder has none, read once per process; the workers read it while they warm up (:func:`ai.kernel.warm_up`),
so no move waits for it.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.int64]

MAGIC = b"KINGME-EGDB 1\n"
SHIPPED = Path(__file__).with_name("data") / "egdb"
VARIANT = "american"
MIN_PIECES, MAX_PIECES = 2, 6


class DatabaseError(ValueError):
    """A database file that is not one, is damaged, or does not match what was asked for."""


def folder() -> Path:
    """The folder of the database files (see the module's docstring)."""
    explicit = os.environ.get("EGDB_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("KINGME_DATA") or "data") / "egdb"


def file_name(pieces: int) -> str:
    return f"{VARIANT}-{pieces}.egdb"


Signature = tuple[int, int, int, int]


def signatures(pieces: int) -> list[Signature]:
    """Every material ``(men, kings, their men, their kings)`` of 2 to ``pieces`` pieces where both sides have one,
    in the order of solving: by pieces, then by men (a crowning leads to fewer men), mirrors next to each other."""
    found: list[Signature] = []
    for total in range(2, pieces + 1):
        for men in range(total + 1):
            for a in range(men + 1):
                c = men - a
                for b in range(total - men + 1):
                    d = total - men - b
                    if a + b and c + d:
                        found.append((a, b, c, d))
    return found


def pairs(pieces: int) -> Iterator[tuple[Signature, Signature]]:
    """Each signature with its mirror (the opponent's view), once, in the order of :func:`signatures`."""
    seen: set[Signature] = set()
    for sig in signatures(pieces):
        if sig not in seen:
            mirror = (sig[2], sig[3], sig[0], sig[1])
            seen.update((sig, mirror))
            yield sig, mirror


@dataclass(frozen=True)
class Stats:
    """What a build found."""

    pieces: int
    positions: int
    """Positions solved (indexes that are no position left out), each counted from its side to move."""
    wins: int
    losses: int
    draws: int
    seconds: float


def _allocate(pieces: int) -> tuple[Array, dict[Signature, int]]:
    from ai.kernel.egdb import HEADER, PER_WORD, signature_id, table_size

    offsets: dict[Signature, int] = {}
    total = 0
    for sig in signatures(pieces):
        offsets[sig] = total
        total += table_size(*sig)
    db = np.zeros(HEADER + (total + PER_WORD - 1) // PER_WORD, dtype=np.int64)
    db[1:HEADER] = -1
    db[0] = pieces
    for sig, offset in offsets.items():
        db[1 + signature_id(*sig)] = offset
    return db, offsets


def build(
    pieces: int, *, threads: int | None = None, report: Callable[[str], None] | None = None
) -> tuple[Array, Stats]:
    """Solve every position of 2 to ``pieces`` pieces; the database array and what was found."""
    if not MIN_PIECES <= pieces <= MAX_PIECES:
        raise DatabaseError(f"a database covers {MIN_PIECES} to {MAX_PIECES} pieces, not {pieces}")
    import numba

    from ai.kernel import retro, tables
    from ai.kernel.egdb import table_size
    from core import get_variant

    if threads is not None:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    started = time.perf_counter()
    k = tables.of(get_variant(VARIANT))
    db, offsets = _allocate(pieces)
    tally = np.zeros(8, dtype=np.int64)
    for sig, mirror in pairs(pieces):
        arrays = {}
        for side in {sig, mirror}:
            codes = np.zeros(table_size(*side), dtype=np.uint8)
            counts = np.zeros_like(codes)
            retro.classify(codes, counts, *side, k, db)
            arrays[side] = (codes, counts)
        retro.propagate(*arrays[sig], *arrays[mirror], *sig, k)
        for side, (codes, _) in arrays.items():
            retro.store(codes, db, offsets[side])
            tally += np.bincount(codes, minlength=8)[:8]
        if report is not None:
            report(f"{sig} and {mirror} solved ({time.perf_counter() - started:.1f} s)")
    wins, losses, draws = int(tally[retro.WON]), int(tally[retro.LOST]), int(tally[retro.DRAWN])
    stats = Stats(pieces, wins + losses + draws, wins, losses, draws, time.perf_counter() - started)
    return db, stats


def save(db: Array, path: Path) -> int:
    """Write ``db`` to ``path`` (see the module's docstring); the file's size in bytes."""
    payload = db.astype("<i8").tobytes()
    header = {
        "variant": VARIANT,
        "pieces": int(db[0]),
        "words": int(db.shape[0]),
        "compression": "lzma",
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as out:
        out.write(MAGIC)
        out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        out.write(lzma.compress(payload, preset=6))
    partial.replace(path)  # a reader never sees half a file
    return path.stat().st_size


def read(path: Path) -> Array:
    """The database array in ``path``, checked against its header; :class:`DatabaseError` if it is not right."""
    from ai.kernel.egdb import HEADER

    data = path.read_bytes()
    if not data.startswith(MAGIC):
        raise DatabaseError(f"{path} is not a King Me endgame database")
    line_end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : line_end])
        payload = lzma.decompress(data[line_end + 1 :])
    except (ValueError, lzma.LZMAError) as exc:
        raise DatabaseError(f"{path} is damaged: {exc}") from None
    if hashlib.sha256(payload).hexdigest() != header.get("sha256") or len(payload) != 8 * header.get("words", -1):
        raise DatabaseError(f"{path} is damaged: its checksum does not match")
    if header.get("variant") != VARIANT:
        raise DatabaseError(f"{path} is for {header.get('variant')!r}, not {VARIANT}")
    db = np.frombuffer(payload, dtype="<i8").astype(np.int64)
    if db.shape[0] < HEADER or int(db[0]) != header.get("pieces"):
        raise DatabaseError(f"{path} is damaged: its tables do not match its header")
    return db


_LOADED: dict[Path, Array] = {}


def find(where: Path | None = None) -> Path | None:
    """The file of the largest database in ``where`` (default: :func:`folder`, then the shipped one), or None."""
    for base in (where,) if where is not None else (folder(), SHIPPED):
        for pieces in range(MAX_PIECES, MIN_PIECES - 1, -1):
            path = base / file_name(pieces)
            if path.is_file():
                return path
    return None


def loaded(where: Path | None = None) -> Array | None:
    """The database :func:`find` finds, read once per process; None if there is none or it is damaged (a search then
    plays without it)."""
    path = find(where)
    if path is None:
        return None
    db = _LOADED.get(path)
    if db is None:
        try:
            db = _LOADED[path] = read(path)
        except (OSError, DatabaseError):
            return None
    return db
