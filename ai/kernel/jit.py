"""numba, imported with King Me's cache folder, and the typed decorators and intrinsics every kernel module uses.

Importing this module imports numba (about half a second) and points its on-disk cache at
:func:`ai.kernel.cache.cache_dir`; nothing else in ``core`` or ``ai`` imports it, so only a process that searches with
the kernel pays for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ai.kernel.cache import cache_dir

import numba  # isort: skip  (after the cache folder is known)
from numba.core import types
from numba.extending import intrinsic

# Set on the config rather than in the environment, which child processes inherit and cache.base_dir() reads; numba
# creates the attribute at run time, hence setattr.
setattr(numba.config, "CACHE_DIR", str(cache_dir()))  # noqa: B010

F = TypeVar("F", bound=Callable[..., Any])


def njit(func: F) -> F:
    """Compile ``func`` in nopython mode, cached on disk, releasing the GIL (a search in a thread leaves the event loop
    free); typed for mypy as the function itself."""
    return cast(F, numba.njit(cache=True, nogil=True)(func))


def njit_parallel(func: F) -> F:
    """:func:`njit` with numba's parallel loops: :data:`prange` spreads iterations over numba's threads (set their
    number with ``numba.set_num_threads``)."""
    return cast(F, numba.njit(cache=True, nogil=True, parallel=True)(func))


prange = cast(Callable[..., range], numba.prange)
"""``range`` whose iterations a :func:`njit_parallel` function runs in parallel."""


def _popcount(typingctx: object, x: object) -> tuple[object, Callable[..., object]]:
    def codegen(context: Any, builder: Any, signature: object, args: list[Any]) -> object:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


def _lowest_bit(typingctx: object, x: object) -> tuple[object, Callable[..., object]]:
    def codegen(context: Any, builder: Any, signature: object, args: list[Any]) -> object:
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return types.int64(types.int64), codegen


popcount = cast(Callable[[int], int], intrinsic(_popcount))
"""The number of set bits of an int64 (one ``popcnt`` instruction)."""
lowest_bit = cast(Callable[[int], int], intrinsic(_lowest_bit))
"""The index of the lowest set bit of a non-zero int64 (one ``tzcnt`` instruction)."""


@numba.njit(cache=True)  # not nogil: its objmode block takes the GIL for a moment (a search called it without it)
def now() -> float:
    """``time.perf_counter()`` from compiled code (a trip to the interpreter: call it every thousand nodes or so)."""
    with numba.objmode(t="float64"):
        t = time.perf_counter()
    return t
