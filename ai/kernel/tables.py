"""A variant's constants as one int64 array for the compiled kernel: rules, Zobrist keys and the evaluation.

The kernel keeps ``core``'s layout: square ``n`` at bit ``n - 1 + (n - 1) // (2 * per_row)`` with a ghost bit after
every two rows, Black moving towards higher bits. Bitboards are int64 rather than uint64: the highest square is bit 34,
and numba turns arithmetic that mixes uint64 with int64 (every literal) into floating point, so signed words are the
safe choice. Zobrist keys are ``core.zobrist``'s, reinterpreted as int64, so the kernel's hash is ``core``'s.

The array is built here with numpy only (no numba), once per variant; the ``*_AT`` names are offsets into it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ai.features import KERNEL_WEIGHTS_FILE, Masks, rounded_weights, tuned_weights
from core import Variant, zobrist
from core.geometry import Geometry
from core.variants import BlockedRule

Constants = npt.NDArray[np.int64]

# Rules.
SHORT = 0
LONG = 1
VALID = 2
BLACK_CROWN = 3
"""The squares where a black man crowns (White's home row), 0 without kings."""
WHITE_CROWN = 4
MULTI_JUMP = 5
PASSES = 6
COUNT_WINS = 7
"""When neither side can move, the side with more pieces wins (mini); otherwise a blocked game is drawn."""
MOVE_LIMIT = 8
GROUP = 9
"""Bits per pair of rows, ghost included: the square index of bit ``b`` is ``b - b // GROUP``."""

# Evaluation: masks (a pair is White's then Black's), then the weights in :data:`ai.features.FEATURES` order.
CENTRE = 16
EDGE = 17
BACK = 18
MIDDLE = 20
ADVANCED = 22
BEFORE_CROWN = 24
CROWN_ROW = 26
START_PIECES = 28
PATTERN_ON = 29
"""1 where the pattern evaluation (:mod:`ai.kernel.patterns`) is added to the features' (English draughts with the
shipped weights), else 0 and the table ends at :data:`SIZE`."""
NETWORK_AT = 30
"""Where the small network's block (:mod:`ai.kernel.network`) starts in the table, or 0 without one (``master``)."""
WEIGHTS = 32

# Zobrist keys: four rows of 64 (black men, black kings, white men, white kings) by bit, then the side key.
ZOBRIST = 64
SIDE_KEY = ZOBRIST + 4 * 64
SIZE = SIDE_KEY + 1

# The pattern evaluation, after SIZE where it is on: the base-3 digits of each byte, then the weights by phase, group
# and configuration (:mod:`ai.patterns.regions`).
PATTERN_TERNARY = SIZE
PATTERN_WEIGHTS = PATTERN_TERNARY + 256


def signed(key: int) -> int:
    """A 64-bit unsigned key as the int64 the kernel uses."""
    return key - (1 << 64) if key >= 1 << 63 else key


def unsigned(key: int) -> int:
    """The kernel's int64 key as ``core``'s unsigned hash."""
    return key & ((1 << 64) - 1)


def _evaluation(g: Geometry, table: list[int], weights: tuple[int, ...]) -> None:
    m = Masks(g)
    table[CENTRE], table[EDGE] = m.centre, m.edge
    for at, pair in (
        (BACK, m.back),
        (MIDDLE, m.middle),
        (ADVANCED, m.advanced),
        (BEFORE_CROWN, m.before_crown),
        (CROWN_ROW, m.crown),
    ):
        table[at], table[at + 1] = pair
    table[START_PIECES] = m.start_pieces
    table[WEIGHTS : WEIGHTS + len(weights)] = weights


NO_PATTERNS = np.zeros(0, dtype=np.int64)
"""``patterns`` for :func:`build`: none (the features alone)."""


def shipped_patterns() -> npt.NDArray[np.int64] | None:
    from ai.patterns.weights import shipped

    return shipped()


def build(
    variant: Variant,
    weights: tuple[int, ...] | None = None,
    patterns: npt.NDArray[np.int64] | None = None,
    network: npt.NDArray[np.int64] | None = None,
) -> Constants:
    """The constant table of ``variant`` with the evaluation's ``weights`` (default: ``master``'s) and, in English
    draughts, the pattern weights ``patterns`` (default: the shipped ones, if any) and a network's block as the kernel
    reads it (:func:`ai.patterns.network.packed`; none by default)."""
    g = variant.geometry
    table = [0] * SIZE
    table[SHORT], table[LONG], table[VALID] = g.short, g.long, g.valid
    table[BLACK_CROWN] = g.white_home if variant.kings else 0
    table[WHITE_CROWN] = g.black_home if variant.kings else 0
    table[MULTI_JUMP] = int(variant.multi_jump)
    table[PASSES] = int(variant.passes)
    table[COUNT_WINS] = int(variant.blocked is BlockedRule.PASSES_COUNT)
    table[MOVE_LIMIT] = variant.move_limit
    table[GROUP] = 2 * g.per_row + 1
    _evaluation(g, table, rounded_weights(tuned_weights(KERNEL_WEIGHTS_FILE)) if weights is None else weights)
    keys = (zobrist.BLACK_MAN, zobrist.BLACK_KING, zobrist.WHITE_MAN, zobrist.WHITE_KING)
    for row, kind in enumerate(keys):
        for mask, key in kind.items():
            table[ZOBRIST + 64 * row + mask.bit_length() - 1] = signed(key)
    table[SIDE_KEY] = signed(zobrist.WHITE_TO_MOVE)
    blocks = [np.array(table, dtype=np.int64)]
    if variant.name == "american":
        if patterns is None:
            patterns = shipped_patterns()
        if patterns is not None and patterns.size:
            from ai.patterns.regions import TERNARY

            blocks[0][PATTERN_ON] = 1
            blocks += [np.array(TERNARY, dtype=np.int64), patterns.reshape(-1).astype(np.int64)]
        if network is not None:
            blocks[0][NETWORK_AT] = sum(block.size for block in blocks)
            blocks.append(network.astype(np.int64))
    return np.concatenate(blocks)


_BUILT: dict[tuple[str, tuple[int, ...] | None, bool, bool], Constants] = {}


def of(
    variant: Variant, weights: tuple[int, ...] | None = None, patterns: bool = True, network: bool = False
) -> Constants:
    """The constant table of ``variant`` with the evaluation's ``weights`` (default: ``master``'s), the shipped
    pattern weights unless ``patterns`` is false and the shipped network if ``network`` (English draughts), built once
    per process (do not write to it)."""
    key = (variant.name, weights, patterns, network)
    table = _BUILT.get(key)
    if table is None:
        block = None
        if network:
            from ai.patterns.network import packed, quantized, shipped_network

            block = packed(quantized(shipped_network()))
        table = _BUILT[key] = build(variant, weights, None if patterns else NO_PATTERNS, block)
    return table
