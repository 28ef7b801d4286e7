"""The compiled search kernel: move generation, perft, evaluation and search on int64 bitboards, compiled by numba.

``core`` stays the rules reference; the kernel is proven equal to it by perft (``tests/ai/kernel``). One module per
concern: :mod:`~ai.kernel.tables` (a variant's constants), :mod:`~ai.kernel.movegen`, :mod:`~ai.kernel.perft`,
:mod:`~ai.kernel.evaluation`, :mod:`~ai.kernel.tt`, :mod:`~ai.kernel.search`, and :mod:`~ai.kernel.engine`, the bridge
from ``core.Board``. Use it through :class:`KernelPlayer`.

numba is imported only when the kernel is first used, never by ``import ai`` or ``import ai.kernel``. Its compiled
code is cached on disk, once per user and machine (see :mod:`ai.kernel.cache` for the folder: ``NUMBA_CACHE_DIR``,
else ``~/.cache/kingme/numba`` or the platform's equivalent); :func:`warm_up` compiles it or loads it from there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ai.kernel.cache import cache_dir
from ai.kernel.player import DEFAULT_TABLE_ENTRIES, KernelPlayer

if TYPE_CHECKING:
    from ai.egdb import Array, Only, Stats


def warm_up() -> float:
    """Compile the kernel or load it from the cache (call once when a worker process starts); the seconds it took."""
    from ai.kernel.engine import warm_up as run

    return run()


def build_endgame_database(
    pieces: int, *, threads: int | None = None, report: Callable[[str], None] | None = None, only: Only | None = None
) -> tuple[Array, Stats]:
    """Solve every ending of up to ``pieces`` pieces by retrograde analysis (:mod:`ai.kernel.retro`; the tables of
    ``pieces`` limited to ``only``); the database array (save it with :func:`ai.egdb.save`) and what was found."""
    from ai.kernel.retro import build

    return build(pieces, threads=threads, report=report, only=only)


__all__ = ["DEFAULT_TABLE_ENTRIES", "KernelPlayer", "build_endgame_database", "cache_dir", "warm_up"]
