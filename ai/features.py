"""The positional features of ``master``'s evaluation, on raw bitboards, and the evaluation built from tuned weights.

Each feature is the side to move's count minus the opponent's, so a position and its colour-flipped twin score as
negatives of each other. The weights are fitted on self-play data by ``benchmarks/tuning.py`` and shipped in
``ai/data/eval_weights.json``, the pure-Python search's; the compiled kernel's (``master``'s) are those with the changes
that won matches on the kernel, in ``ai/data/kernel_weights.json``. The runtime only reads those files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources

from core.geometry import Geometry

FEATURES = (
    "man",
    "king",
    "back_guard",
    "centre_man",
    "centre_king",
    "middle_man",
    "advanced_man",
    "edge",
    "king_mobility",
    "runaway",
    "trade",
)
"""Names of the features in the order :func:`feature_function` returns them.

- ``man``/``king``: material.
- ``back_guard``: men still on the own back row (they stop the opponent crowning).
- ``centre_man``/``centre_king``: pieces on the central squares.
- ``middle_man``/``advanced_man``: men advanced into the middle rows and into the opponent's half (before its back
  row): the advancement of men, and with it tempo.
- ``edge``: pieces on the side columns.
- ``king_mobility``: empty squares next to the own kings.
- ``runaway``: men one step from crowning with a free crowning square ahead.
- ``trade``: the piece difference times the number of pieces already taken (the side ahead likes trades).
"""

Features = tuple[int, ...]
FeatureFunction = Callable[[int, int, int, bool], Features]
Evaluate = Callable[[int, int, int, bool], int]


class Masks:
    """The square masks of one geometry, per side (index 0 for White's point of view, 1 for Black's).

    The one source of the evaluation's squares: :mod:`ai.kernel.tables` copies them into the compiled kernel's table.
    """

    def __init__(self, g: Geometry) -> None:
        size = g.size
        bit = g.bit_of_square

        def rel_rows(rows: range, black: bool) -> int:
            mask = 0
            for n in range(1, g.squares + 1):
                row = g.row_of_square[n] if black else size - 1 - g.row_of_square[n]
                if row in rows:
                    mask |= bit[n]
            return mask

        centre_range = range(size // 2 - 2, size // 2 + 2)
        self.centre = 0
        self.edge = 0
        for n in range(1, g.squares + 1):
            if g.row_of_square[n] in centre_range and g.col_of_square[n] in centre_range:
                self.centre |= bit[n]
            if g.col_of_square[n] in (0, size - 1):
                self.edge |= bit[n]
        self.back = (rel_rows(range(0, 1), False), rel_rows(range(0, 1), True))
        self.middle = (
            rel_rows(range(size // 2 - 1, size // 2 + 1), False),
            rel_rows(range(size // 2 - 1, size // 2 + 1), True),
        )
        self.advanced = (
            rel_rows(range(size // 2 + 1, size - 1), False),
            rel_rows(range(size // 2 + 1, size - 1), True),
        )
        self.before_crown = (rel_rows(range(size - 2, size - 1), False), rel_rows(range(size - 2, size - 1), True))
        self.crown = (rel_rows(range(size - 1, size), False), rel_rows(range(size - 1, size), True))
        self.valid = g.valid
        self.short, self.long = g.short, g.long
        self.start_pieces = 2 * g.start_rows * g.per_row


_FEATURE_FUNCTIONS: dict[int, FeatureFunction] = {}


def feature_function(g: Geometry) -> FeatureFunction:
    """The feature extractor for a board shape: ``f(me, opp, kings, black)`` -> the tuple of :data:`FEATURES`."""
    known = _FEATURE_FUNCTIONS.get(g.size)
    if known is None:
        known = _FEATURE_FUNCTIONS[g.size] = _build(g)
    return known


def _build(g: Geometry) -> FeatureFunction:
    m = Masks(g)
    centre, edge, valid, s, l, start = m.centre, m.edge, m.valid, m.short, m.long, m.start_pieces
    back, middle, advanced, before, crown = m.back, m.middle, m.advanced, m.before_crown, m.crown

    def runaways(men: int, empty: int, black: bool) -> int:
        near = men & before[black]
        if not near:
            return 0
        free = empty & crown[black]
        if black:
            return (((free >> s) | (free >> l)) & near).bit_count()
        return (((free << s) | (free << l)) & near).bit_count()

    def mobility(k: int, empty: int) -> int:
        if not k:
            return 0
        return ((((k << s) | (k << l)) | ((k >> s) | (k >> l))) & empty).bit_count()

    def features(me: int, opp: int, kings: int, black: bool) -> Features:
        empty = valid & ~(me | opp)
        my_k, op_k = me & kings, opp & kings
        my_m, op_m = me ^ my_k, opp ^ op_k
        nb = not black
        n_me, n_op = me.bit_count(), opp.bit_count()
        return (
            my_m.bit_count() - op_m.bit_count(),
            my_k.bit_count() - op_k.bit_count(),
            (my_m & back[black]).bit_count() - (op_m & back[nb]).bit_count(),
            (my_m & centre).bit_count() - (op_m & centre).bit_count(),
            (my_k & centre).bit_count() - (op_k & centre).bit_count(),
            (my_m & middle[black]).bit_count() - (op_m & middle[nb]).bit_count(),
            (my_m & advanced[black]).bit_count() - (op_m & advanced[nb]).bit_count(),
            (me & edge).bit_count() - (opp & edge).bit_count(),
            mobility(my_k, empty) - mobility(op_k, empty),
            runaways(my_m, empty, black) - runaways(op_m, empty, nb),
            (n_me - n_op) * (start - n_me - n_op),
        )

    return features


DEFAULT_WEIGHTS: dict[str, float] = {
    "man": 100,
    "king": 150,
    "back_guard": 8,
    "centre_man": 5,
    "centre_king": 5,
    "middle_man": 3,
    "advanced_man": 6,
    "edge": -3,
    "king_mobility": 3,
    "runaway": 30,
    "trade": 2,
}
"""Hand-set starting weights, used only to seed the self-play that the tuned weights are fitted on."""


WEIGHTS_FILE = "eval_weights.json"
"""The weights fitted on self-play by ``benchmarks/tuning.py``: ``steady``'s (and the benchmark ``python-master``'s)."""
KERNEL_WEIGHTS_FILE = "kernel_weights.json"
"""``master``'s weights, the compiled kernel's (:mod:`ai.kernel.tables`): the fitted ones with the changes that won
matches on the kernel (the file says which and what they scored)."""


@cache
def tuned_weights(file: str = WEIGHTS_FILE) -> dict[str, float]:
    """The shipped weights of ``file`` in ``ai/data``, or the hand-set ones if the file is missing."""
    try:
        text = resources.files("ai").joinpath("data", file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return dict(DEFAULT_WEIGHTS)
    data = json.loads(text)
    weights = data["weights"]
    return {name: float(weights.get(name, 0.0)) for name in FEATURES}


def rounded_weights(weights: dict[str, float] | None = None) -> tuple[int, ...]:
    """``weights`` (default: the tuned ones) rounded as the evaluation uses them, in :data:`FEATURES` order."""
    return tuple(round((weights or tuned_weights()).get(name, 0.0)) for name in FEATURES)


def make_evaluator(g: Geometry, weights: dict[str, float] | None = None) -> Evaluate:
    """The evaluation ``e(me, opp, kings, black)`` in hundredths of a man for the side to move."""
    f = feature_function(g)
    w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10 = rounded_weights(weights)

    def evaluate(me: int, opp: int, kings: int, black: bool) -> int:
        x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10 = f(me, opp, kings, black)
        return (
            w0 * x0
            + w1 * x1
            + w2 * x2
            + w3 * x3
            + w4 * x4
            + w5 * x5
            + w6 * x6
            + w7 * x7
            + w8 * x8
            + w9 * x9
            + w10 * x10
        )

    return evaluate
