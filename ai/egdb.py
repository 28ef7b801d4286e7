"""Endgame databases of English draughts: built by our own retrograde analysis, stored in a checked file, loaded once.

:func:`ai.kernel.build_endgame_database` solves every position of up to ``pieces`` pieces (win, loss or draw for the
side to move, with men and kings; the compiled work is :mod:`ai.kernel.retro`, the indexing :mod:`ai.kernel.egdb`);
this module holds what needs no numba: the layout's constants, the order of solving, the file. :func:`save` writes the
result as one file: a first line ``KINGME-EGDB 1``, a JSON line (variant, pieces, words, the compression and the
SHA-256 of the uncompressed array), then the database array (little-endian int64: 2 bits a position), in one of two
forms:

- ``lzma`` (up to 5 pieces: the shipped 3 MB file): compressed; :func:`read` unpacks it into the process's memory;
- ``none`` (6 pieces: 679 MB): the array as it is, from the first 4096-byte boundary after the header on;
  :func:`read` maps it (:class:`numpy.memmap`, copy-on-write, never written), so every process on a machine reads the
  same pages of the operating system's page cache: one copy in memory however many AI workers there are.

:func:`read` checks the header and the checksum (of a mapped file too: it reads the file once through the page cache).

Where the files live: ``$EGDB_DIR`` if set, else ``$KINGME_DATA/egdb``, else ``data/egdb`` (the bot's setting
``EGDB_DIR`` is exported there for its AI workers). King Me ships the 5-piece database in the package
(``data/egdb/american-5.egdb``, 3 MB): :func:`loaded` is the largest database in the data folder, or the shipped one
if the folder has none (or only damaged ones), read once per process; the workers read it while they warm up
(:func:`ai.kernel.warm_up`), so no move waits for it.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.int64]

DRAW, WIN, LOSS, UNUSED = 0, 1, 2, 3
"""A position's value for the side to move (:data:`UNUSED` for an index that is no position)."""
UNKNOWN = -1
"""What a probe returns for a position the database does not cover."""
MAX_COUNT = 7
"""Signature counts run from 0 to 6: up to six pieces a database."""
SIGNATURES = MAX_COUNT**4
HEADER = 1 + SIGNATURES
"""Words of the database array before the values: the most pieces it covers, then each signature's offset or -1."""
PER_WORD = 32
SQUARES = 32
MAN_SQUARES = 28


def _binomials() -> Array:
    table = np.zeros((SQUARES + 2, MAX_COUNT + 1), dtype=np.int64)
    for n in range(SQUARES + 2):
        table[n, 0] = 1
        for k in range(1, min(n, MAX_COUNT) + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


BINOMIAL = _binomials()
"""``BINOMIAL[n, k]`` is C(n, k) (0 when k > n)."""


def signature_id(a: int, b: int, c: int, d: int) -> int:
    """The slot of a signature in the database array's header."""
    return ((a * MAX_COUNT + b) * MAX_COUNT + c) * MAX_COUNT + d


def table_size(a: int, b: int, c: int, d: int) -> int:
    """The number of indexes in the table of signature ``(a, b, c, d)`` (used or not)."""
    free = SQUARES - a - c
    return int(BINOMIAL[MAN_SQUARES, a] * BINOMIAL[MAN_SQUARES, c] * BINOMIAL[free, b] * BINOMIAL[free - b, d])


def empty_database() -> Array:
    """A database array that covers nothing (what the search gets when no database is loaded)."""
    db = np.full(HEADER, -1, dtype=np.int64)
    db[0] = 0
    return db


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


@dataclass(frozen=True)
class Only:
    """A part of the tables of the most pieces, to build instead of them all (the tables of fewer pieces are always
    built whole): those with ``sides`` pieces a side (in either order) and at most ``men`` men a side. Such a part is
    closed: a quiet move leads to the mirror table, a crowning to one with a man fewer, both in the part, and a capture
    to fewer pieces. Three against three with two men a side at most holds the ending of Second Position (665 million
    indexes where the whole 6-piece set has 2,716 million)."""

    sides: tuple[int, int]
    men: int

    def keeps(self, sig: Signature, pieces: int) -> bool:
        a, b, c, d = sig
        if a + b + c + d < pieces:
            return True
        return sorted((a + b, c + d)) == sorted(self.sides) and a <= self.men and c <= self.men


def signatures(pieces: int, only: Only | None = None) -> list[Signature]:
    """Every material ``(men, kings, their men, their kings)`` of 2 to ``pieces`` pieces where both sides have one
    (those of ``pieces`` pieces limited to ``only``), in the order of solving: by pieces, then by men (a crowning leads
    to fewer men); a signature and its mirror fall in the same group."""
    found: list[Signature] = []
    for total in range(2, pieces + 1):
        for men in range(total + 1):
            for a in range(men + 1):
                c = men - a
                for b in range(total - men + 1):
                    d = total - men - b
                    if a + b and c + d and (only is None or only.keeps((a, b, c, d), pieces)):
                        found.append((a, b, c, d))
    return found


def pairs(pieces: int, only: Only | None = None) -> Iterator[tuple[Signature, Signature]]:
    """Each signature with its mirror (the opponent's view), once, in the order of :func:`signatures`."""
    seen: set[Signature] = set()
    for sig in signatures(pieces, only):
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


def allocate(pieces: int, only: Only | None = None) -> tuple[Array, dict[Signature, int]]:
    """An empty database array for 2 to ``pieces`` pieces (every value a draw; the tables of ``pieces`` limited to
    ``only``, the others left out: a probe of them is unknown), and each table's offset in it."""
    if not MIN_PIECES <= pieces <= MAX_PIECES:
        raise DatabaseError(f"a database covers {MIN_PIECES} to {MAX_PIECES} pieces, not {pieces}")
    offsets: dict[Signature, int] = {}
    total = 0
    for sig in signatures(pieces, only):
        offsets[sig] = total
        total += table_size(*sig)
    db = np.zeros(HEADER + (total + PER_WORD - 1) // PER_WORD, dtype=np.int64)
    db[1:HEADER] = -1
    db[0] = pieces
    for sig, offset in offsets.items():
        db[1 + signature_id(*sig)] = offset
    return db, offsets


MAPPED_FROM = 6
"""Databases of this many pieces or more are written uncompressed, to be memory-mapped."""
PAGE = 4096


def save(db: Array, path: Path, *, mapped: bool | None = None) -> int:
    """Write ``db`` to ``path`` (see the module's docstring: compressed, or uncompressed to be mapped when ``mapped``,
    by default from :data:`MAPPED_FROM` pieces on); the file's size in bytes."""
    if mapped is None:
        mapped = int(db[0]) >= MAPPED_FROM
    words = np.ascontiguousarray(db, dtype="<i8")
    header = {
        "variant": VARIANT,
        "pieces": int(db[0]),
        "words": int(db.shape[0]),
        "compression": "none" if mapped else "lzma",
        "part": any(db[1 + signature_id(*sig)] < 0 for sig in signatures(int(db[0]))),
        "sha256": hashlib.sha256(words.data.cast("B")).hexdigest(),
    }
    head = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as out:
        out.write(head)
        if mapped:
            out.write(bytes(-len(head) % PAGE))
            words.tofile(out)
        else:
            out.write(lzma.compress(words.data.cast("B"), preset=6))
    partial.replace(path)  # a reader never sees half a file
    return path.stat().st_size


def read(path: Path) -> Array:
    """The database array in ``path``, checked against its header (mapped, not read, if the file is uncompressed);
    :class:`DatabaseError` if it is not right."""
    with path.open("rb") as file:
        start = file.read(PAGE)
        if not start.startswith(MAGIC):
            raise DatabaseError(f"{path} is not a King Me endgame database")
        line_end = start.find(b"\n", len(MAGIC))
        try:
            header = json.loads(start[len(MAGIC) : line_end])
            words = int(header["words"])
        except (ValueError, KeyError, TypeError) as exc:
            raise DatabaseError(f"{path} is damaged: {exc}") from None
        if header.get("variant") != VARIANT:
            raise DatabaseError(f"{path} is for {header.get('variant')!r}, not {VARIANT}")
        if header.get("compression") == "none":
            db = _mapped(path, line_end + 1, words)
        else:
            file.seek(line_end + 1)
            try:
                payload = lzma.decompress(file.read())
            except lzma.LZMAError as exc:
                raise DatabaseError(f"{path} is damaged: {exc}") from None
            if len(payload) != 8 * words:
                raise DatabaseError(f"{path} is damaged: its checksum does not match")
            db = np.frombuffer(payload, dtype="<i8").astype(np.int64)
    if hashlib.sha256(db.data.cast("B")).hexdigest() != header.get("sha256"):
        raise DatabaseError(f"{path} is damaged: its checksum does not match")
    if db.shape[0] < HEADER or int(db[0]) != header.get("pieces"):
        raise DatabaseError(f"{path} is damaged: its tables do not match its header")
    return db


def _mapped(path: Path, header_end: int, words: int) -> Array:
    offset = header_end + -header_end % PAGE
    if sys.byteorder != "little":
        raise DatabaseError(f"{path} is mapped as little-endian words: this machine is big-endian")
    if words < HEADER or path.stat().st_size != offset + 8 * words:
        raise DatabaseError(f"{path} is damaged: its size does not match its header")
    # Copy-on-write ("c"): the array is writable for numba's sake (a read-only array would be compiled again as
    # another type), but nothing writes it, so every process shares the page cache's pages.
    return np.memmap(path, dtype=np.int64, mode="c", offset=offset, shape=(words,))


_LOADED: dict[Path, Array] = {}


def candidates(where: Path | None = None) -> list[Path]:
    """The database files in ``where`` (default: :func:`folder`, then the shipped one), the largest first in each."""
    found = []
    for base in (where,) if where is not None else (folder(), SHIPPED):
        for pieces in range(MAX_PIECES, MIN_PIECES - 1, -1):
            path = base / file_name(pieces)
            if path.is_file():
                found.append(path)
    return found


def find(where: Path | None = None) -> Path | None:
    """The first of :func:`candidates`, or None."""
    return next(iter(candidates(where)), None)


def loaded(where: Path | None = None) -> Array | None:
    """The first of :func:`candidates` that reads without error, read once per process; None if there is none (a
    search then plays without a database). A damaged file is passed over, so the shipped database still serves."""
    for path in candidates(where):
        db = _LOADED.get(path)
        if db is None:
            try:
                db = _LOADED[path] = read(path)
            except (OSError, DatabaseError):
                continue
        return db
    return None
