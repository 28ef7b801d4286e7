"""The endgame trainer's tables: the exact value and distance of a position, read from :mod:`ai.kernel.distance`'s
solved tables.

**Small tables, solved when needed.** Every ending of kings of up to five pieces (about 7 s and 20 MB the first time a
process needs five pieces), and every ending of up to four pieces, men included (about 5 s and 20 MB). Each process
keeps what it needs in memory; the first on a machine to solve a set caches it in a file beside numba's compiled code,
which the others read (:func:`_solved`).

**Prepared tables, for the six-piece databases.** When the database in the data folder holds six pieces (the whole set
or the part of :class:`ai.egdb.Only`, such as the three against three of Second Position), ``kingme endgame prepare``
(:func:`prepare`) solves every table it holds, men included, once, and writes the distances and values beside it
(``american-6.distances-<digest>/``, the digest of the database it was solved from). Every process maps those files
(:func:`numpy.load` with ``mmap_mode``), so the AI workers of a machine share one copy in the page cache, as they do the
database. They are never solved on demand: the three against three takes minutes and gigabytes (``docs/endgames.md``).
Without them, positions of five pieces with men and of six pieces are outside the tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core import AMERICAN, Board, Color, RulesError

if TYPE_CHECKING:
    from ai.egdb import Array
    from ai.kernel.distance import Distances, Values

WIN, LOSS, DRAW = "win", "loss", "draw"
"""A position's value for the side to move."""
MOST_PIECES = 5
"""The most pieces of an ending of kings the small tables hold."""
MEN_PIECES = 4
"""The most pieces of a position with men that the small tables hold (every table of four pieces, with men or not, is
solved at once: about 5 s and 20 MB; five pieces with men would be 145 million positions)."""
BUILD_COMMAND = "kingme egdb build --pieces 6 --sides 3v3 --max-men 2"
BUILD_HINT = f"{BUILD_COMMAND}, then kingme endgame prepare"
"""The commands that give a machine the tables of Second Position."""


class NotAnEndingError(RulesError):
    """A position, an ending or a difficulty the trainer does not know."""


@dataclass(frozen=True)
class Distance:
    """What a position is worth to the side to move, and how long it takes."""

    value: str
    """:data:`WIN`, :data:`LOSS` or :data:`DRAW`."""
    plies: int | None
    """Plies to the end of the game with perfect play from both sides (None for a draw)."""


@dataclass(frozen=True)
class Tables:
    dist: Distances
    values: Values
    offsets: Array
    most: int


_SOLVED: dict[tuple[int, bool], Tables] = {}
_MAPPED: dict[int, Tables | None] = {}
"""The prepared tables by the ``id`` of the database they belong to (one database a process: :func:`ai.egdb.loaded`)."""
_SOLVING = threading.Lock()


def _digest(db: Array) -> str:
    return hashlib.blake2b(db.data.cast("B"), digest_size=8).hexdigest()  # no copy of a mapped database


def small_tables(pieces: int, *, men: bool = False) -> Tables:
    """Small tables that hold every position of up to ``pieces`` pieces, of kings only unless ``men`` (or larger ones,
    if solved already)."""
    with _SOLVING:
        for (most, kings_only), tables in sorted(_SOLVED.items()):
            if most >= pieces and (not men or not kings_only):
                return tables
        from ai import egdb

        most = MEN_PIECES if men else max(pieces, 3)
        db = egdb.loaded()
        if db is None or int(db[0]) < most:
            raise NotAnEndingError("the endgame databases are missing")
        _SOLVED[most, not men] = tables = _solved(db, most, kings_only=not men)
        return tables


def _solved(db: Array, most: int, *, kings_only: bool) -> Tables:
    """The tables of :func:`ai.kernel.distance.solve`, from the cache file the first solving on this machine wrote
    (beside numba's compiled code, named after the databases' checksum), else solved and written there."""
    import numpy as np

    from ai.kernel.cache import cache_dir
    from ai.kernel.distance import solve

    path = cache_dir() / "distances" / f"{'kings' if kings_only else 'all'}-{most}-{_digest(db)}.npz"
    with contextlib.suppress(OSError, ValueError, KeyError), np.load(path) as saved:
        return Tables(saved["dist"], saved["values"], saved["offsets"], most)
    dist, values, offsets = solve(db, most, kings_only=kings_only)
    with contextlib.suppress(OSError):  # a cache that cannot be written is solved again next time
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, dist=dist, values=values, offsets=offsets)
        partial.replace(path)  # a reader never sees half a file
    return Tables(dist, values, offsets, most)


# -- prepared tables ---------------------------------------------------------------------------------------------------

_FILES = ("dist", "values", "offsets")


def prepared_folder(db: Array) -> Path:
    """Where :func:`prepare` writes the tables of ``db`` (in the data folder, beside the database files)."""
    from ai import egdb

    return egdb.folder() / f"{egdb.VARIANT}-{int(db[0])}.distances-{_digest(db)}"


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare` did."""

    folder: Path
    positions: int
    """Indexes solved (positions and the indexes that are no position)."""
    bytes: int
    seconds: float


SOLVING_BYTES = 9
"""Memory a position takes while :func:`ai.kernel.distance.solve` works on it (its distance, its value, three rows of
work): the 3v3 part's 816 million indexes peaked at 7.5 GB, the whole six-piece set would take about 25 GB."""


def _physical_memory() -> int:
    """The machine's memory in bytes."""
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def prepare() -> Prepared:
    """Solve every table of the database in the data folder (men included) for the distances and write them beside
    it, to be mapped by every process; what it did. Refuses a database of fewer than six pieces (its small tables are
    solved when needed)."""
    import numpy as np

    from ai import egdb
    from ai.kernel.distance import held, solve

    db = egdb.loaded()
    if db is None or int(db[0]) < MOST_PIECES + 1:
        raise NotAnEndingError(f"no six-piece database in {egdb.folder()}: {BUILD_COMMAND} first")
    pieces = int(db[0])
    indexes = sum(egdb.table_size(*sig) for sig in held(db, pieces, kings_only=False))
    needed, memory = indexes * SOLVING_BYTES, _physical_memory()
    if needed > memory:
        raise NotAnEndingError(
            f"solving {indexes:,} indexes takes about {needed / 1e9:.1f} GB of memory and this machine has "
            f"{memory / 1e9:.1f} GB: build a part of the tables instead ({BUILD_COMMAND})"
        )
    started = time.perf_counter()
    dist, values, offsets = solve(db, pieces, kings_only=False)
    folder = prepared_folder(db)
    partial = folder.with_name(f"{folder.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    np.save(partial / "dist.npy", dist)
    np.save(partial / "values.npy", values)
    np.save(partial / "offsets.npy", offsets)
    shutil.rmtree(folder, ignore_errors=True)
    partial.replace(folder)  # a reader never sees half of it
    size = sum(path.stat().st_size for path in folder.iterdir())
    with _SOLVING:
        _MAPPED.clear()
    return Prepared(folder, int(dist.size), size, time.perf_counter() - started)


def prepared() -> Tables | None:
    """The prepared tables of the database in the data folder, mapped, or None if it has none (or they are damaged)."""
    import numpy as np

    from ai import egdb

    db = egdb.loaded()
    if db is None or int(db[0]) <= MOST_PIECES:
        return None
    with _SOLVING:
        key = id(db)
        if key not in _MAPPED:
            folder = prepared_folder(db)
            tables = None
            with contextlib.suppress(OSError, ValueError):
                dist, values, offsets = (np.load(folder / f"{name}.npy", mmap_mode="r") for name in _FILES)
                if dist.shape == values.shape and offsets.shape == (egdb.SIGNATURES,):
                    tables = Tables(dist, values, np.asarray(offsets), int(db[0]))
            _MAPPED[key] = tables
        return _MAPPED[key]


def _where(board: Board) -> tuple[Tables, int] | None:
    """The tables that hold ``board`` and its place in them, or None (see the module's docstring)."""
    from ai.kernel.distance import locate

    pieces = board.black | board.white
    count = pieces.bit_count()
    if board.variant is not AMERICAN or count < 2 or not board.black or not board.white:
        return None
    black = board.turn is Color.BLACK
    me, opp = (board.black, board.white) if black else (board.white, board.black)
    kings_only = pieces & ~board.kings == 0
    if count <= (MOST_PIECES if kings_only else MEN_PIECES):
        tables = small_tables(count, men=not kings_only)
    else:
        found = prepared()
        if found is None:
            return None
        tables = found
    at = locate(me, opp, board.kings, black, tables.offsets)
    return (tables, at) if at >= 0 else None


def distance(board: Board) -> Distance | None:
    """The exact value and distance of ``board`` for the side to move (the draw rules left aside), or None if the
    tables do not hold it (see the module's docstring); a game over by the pieces (no pieces or no moves) is a loss in
    0."""
    from ai.egdb import LOSS as DB_LOSS
    from ai.egdb import WIN as DB_WIN

    if board.variant is AMERICAN and not (board.pieces(board.turn) and board.legal_moves):
        return Distance(LOSS, 0)  # no pieces or no moves: the game is lost
    where = _where(board)
    if where is None:
        return None
    tables, at = where
    value = int(tables.values[at])
    if value == DB_WIN:
        return Distance(WIN, int(tables.dist[at]))
    if value == DB_LOSS:
        return Distance(LOSS, int(tables.dist[at]))
    return Distance(DRAW, None)


def is_ending(board: Board) -> bool:
    """Whether the trainer's tables hold ``board``."""
    try:
        return _where(board) is not None
    except NotAnEndingError:
        return False


def warm_up() -> float:
    """Compile the distance code, or load it from the cache, and solve the tables of up to three pieces (two kings
    against one); the seconds it took. Larger tables are solved when first needed (some seconds for five pieces)."""
    started = time.perf_counter()
    with contextlib.suppress(NotAnEndingError):  # no databases: the trainer refuses its games, the rest plays on
        small_tables(3)
    return time.perf_counter() - started
