"""``master-patterns``: ``master`` without its small network, the features and the pattern tables alone (``master``
until the network was measured on top of them), to measure the network by matches (``python benchmarks/match.py
master master-patterns --games 80 --time-a 0.2 --time-b 0.2 --jobs 2``). Importing this module registers it as a
hidden level (worker processes forked after the import know it too); it is not shipped."""

from __future__ import annotations

from ai.api import Level, Limits, register
from ai.book import WithBook
from ai.kernel import KernelPlayer

MASTER_PATTERNS = Level(
    "master-patterns",
    "Master with the pattern tables and no network (a benchmark).",
    lambda: WithBook(KernelPlayer(endgames=True)),
    Limits(time=2.0),
    hidden=True,
)

register(MASTER_PATTERNS)
