"""``master-net``: ``master`` with the small network (:mod:`ai.kernel.network`, fitted by ``python -m
ai.pattern_training network``) in place of the pattern tables, to choose between the two evaluations by matches
(``python benchmarks/match.py master-net master --games 80 --time-a 0.2 --time-b 0.2 --jobs 2``). Importing this
module registers it as a hidden level (worker processes forked after the import know it too); it is not shipped."""

from __future__ import annotations

from ai.api import Level, Limits, register
from ai.book import WithBook
from ai.kernel import KernelPlayer

MASTER_NET = Level(
    "master-net",
    "Master with the small network in place of the pattern tables (a benchmark).",
    lambda: WithBook(KernelPlayer(endgames=True, patterns=False, network=True)),
    Limits(time=2.0),
    hidden=True,
)

register(MASTER_NET)
