"""``python-master``, the pure-Python search ``master`` played before the compiled kernel: a fixed benchmark of the
kernel's progress (``python -m benchmarks.match master python-master``), kept with the benchmarks, not shipped.
Importing this package registers it as a hidden level, so the benchmarks' matches and arenas can name it (worker
processes forked after the import know it too)."""

from __future__ import annotations

from ai.api import Level, Limits, register
from benchmarks.python_master.search import Engine, MasterPlayer, evaluator_for, table_for

__all__ = ["PYTHON_MASTER", "Engine", "MasterPlayer", "evaluator_for", "table_for"]

PYTHON_MASTER = Level(
    "python-master",
    "The pure-Python principal-variation search that master played before the compiled kernel, 2 s a move.",
    MasterPlayer,
    Limits(time=2.0),
    hidden=True,
)
"""The benchmark that measures the kernel's progress: not a public level."""

register(PYTHON_MASTER)
