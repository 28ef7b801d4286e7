"""The fit of the pattern weights: logistic regression of the game's outcome on the evaluation, by Adam in numpy.

The model is the kernel's evaluation: ``v = features + patterns`` (hundredths of a man, the side to move's), where the
hand-picked features keep their weights (``ai/data/kernel_weights.json``) and the patterns are fitted as what they miss.
The probability it gives the side to move is ``sigmoid(c * v)``, ``c`` the features' own fitted scale (their logit
per man / 100). The target mixes the game's result for the side to move (1, ½, 0) with the search's score in the same
scale, ``mix * result + (1 - mix) * sigmoid(c * score)``; the loss is the cross-entropy with an L2 penalty on the
weights. The last :attr:`Options.validation` share of the positions (the last games played) is held out and reported.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple, TextIO, cast

import numpy as np
import numpy.typing as npt

from ai.features import KERNEL_WEIGHTS_FILE
from ai.pattern_training.selfplay import load
from ai.patterns.regions import CONFIGURATIONS, FULL, GROUPS, PHASES, TERNARY
from ai.patterns.weights import ABOUT_FILE, DATA, WEIGHTS_FILE, Weights, about, checksum, write

__all__ = ["ABOUT_FILE", "WEIGHTS_FILE", "Options", "describe", "fit", "fit_files"]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass
class Options:
    epochs: int = 200
    l2: float = 1e-10
    """The penalty on each weight's square (per position, weights in hundredths of a man)."""
    mix: float = 0.7
    lr: float = 2.0
    """Adam's step, in hundredths of a man."""
    validation: float = 0.1
    seed: int = 0


def _elementwise(function: Callable[[int], int]) -> Callable[[Ints], Ints]:
    """A compiled kernel function of bit operations alone, as the plain Python it was compiled from: on numpy arrays,
    it computes element by element what the kernel computes (one definition for both)."""
    return cast(Callable[[Ints], Ints], getattr(function, "py_func", function))


_TERNARY = np.array(TERNARY, dtype=np.int64)


def group_indices(black: Ints, white: Ints, kings: Ints, black_moves: npt.NDArray[np.bool_]) -> Ints:
    """Each position's flat index (``group * CONFIGURATIONS + configuration``) in every group: shape (n, GROUPS)."""
    from ai.kernel.egdb import compact
    from ai.kernel.patterns import reverse32

    _compact, _reverse32 = _elementwise(compact), _elementwise(reverse32)
    me = np.where(black_moves, black, white) & ~kings
    opp = np.where(black_moves, white, black) & ~kings
    mine = np.where(black_moves, _compact(me), _reverse32(_compact(me)))
    theirs = np.where(black_moves, _compact(opp), _reverse32(_compact(opp)))
    out = np.empty((len(black), GROUPS), dtype=np.int64)
    for q in range(7):
        out[:, q] = _TERNARY[(mine >> (4 * q)) & 0xFF] + 2 * _TERNARY[(theirs >> (4 * q)) & 0xFF]
    for q in range(5):
        m0, m2 = (mine >> (4 * q)) & 0xFF, (mine >> (4 * q + 8)) & 0xFF
        o0, o2 = (theirs >> (4 * q)) & 0xFF, (theirs >> (4 * q + 8)) & 0xFF
        out[:, 7 + 2 * q] = _TERNARY[(m0 & 0x33) | ((m2 & 0x33) << 2)] + 2 * _TERNARY[(o0 & 0x33) | ((o2 & 0x33) << 2)]
        out[:, 8 + 2 * q] = _TERNARY[((m0 & 0xCC) >> 2) | (m2 & 0xCC)] + 2 * _TERNARY[((o0 & 0xCC) >> 2) | (o2 & 0xCC)]
    return out + np.arange(GROUPS, dtype=np.int64) * CONFIGURATIONS


def pattern_inputs(black: Ints, white: Ints, kings: Ints, black_moves: npt.NDArray[np.bool_]) -> tuple[Ints, Floats]:
    """What the patterns read of each position: its :func:`group_indices` and its phase, the share of a full board's
    pieces it has (the weight of the full board's tables against the empty board's)."""
    share: Floats = np.minimum(np.array([int(x).bit_count() for x in black | white]), FULL) / FULL
    return group_indices(black, white, kings, black_moves), share


def base_values(black: Ints, white: Ints, kings: Ints, black_moves: npt.NDArray[np.bool_]) -> Floats:
    """The kernel's evaluation without patterns (the features and the ending's drive), for the side to move."""
    from ai.kernel import tables
    from ai.kernel.evaluation import drive, evaluate
    from core import AMERICAN

    k = tables.of(AMERICAN, patterns=False)
    out = np.empty(len(black), dtype=np.float64)
    for i in range(len(black)):
        b, w, kg, bm = int(black[i]), int(white[i]), int(kings[i]), bool(black_moves[i])
        me, opp = (b, w) if bm else (w, b)
        out[i] = evaluate(me, opp, kg, bm, k) + drive(me, opp, kg, k)
    return out


def scale() -> float:
    """``c``: the features' logit per hundredth of a man."""
    data = json.loads((DATA / KERNEL_WEIGHTS_FILE).read_text(encoding="utf-8"))
    return float(data["logit_per_man"]) / 100.0


def _sigmoid(x: Floats) -> Floats:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 40.0)))


def _cross_entropy(p: Floats, y: Floats) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _pattern_value(w: Floats, flat: Ints, share: Floats) -> Floats:
    full = w[0].ravel()[flat].sum(axis=1)
    empty = w[1].ravel()[flat].sum(axis=1)
    out: Floats = full * share + empty * (1.0 - share)
    return out


class Targets(NamedTuple):
    """What a fit reads of its positions: the boards, the features' value, the target and where the held-out share
    begins (the last positions, the newest games)."""

    black: Ints
    white: Ints
    kings: Ints
    black_moves: npt.NDArray[np.bool_]
    base: Floats
    """The features' value for the side to move (:func:`base_values`)."""
    c: float
    """:func:`scale`."""
    y: Floats
    """The target probability for the side to move: the result and the search's score mixed by ``options.mix``."""
    cut: int


def targets(data: dict[str, npt.NDArray[Any]], options: Options) -> Targets:
    """The :class:`Targets` of saved positions (:func:`~ai.pattern_training.selfplay.load`)."""
    black, white, kings = data["black"], data["white"], data["kings"]
    black_moves = data["black_moves"].astype(bool)
    base = base_values(black, white, kings, black_moves)
    c = scale()
    result = np.where(black_moves, data["result"], 1.0 - data["result"]).astype(np.float64)
    y = options.mix * result + (1 - options.mix) * _sigmoid(c * data["score"].astype(np.float64))
    return Targets(black, white, kings, black_moves, base, c, y, int(len(y) * (1 - options.validation)))


def fit(
    data: dict[str, npt.NDArray[Any]], options: Options, log: TextIO | None = None
) -> tuple[Weights, dict[str, Any]]:
    """The fitted weights and the fit's figures."""
    started = time.perf_counter()
    black, white, kings, black_moves, base, c, y, cut = targets(data, options)
    flat, share = pattern_inputs(black, white, kings, black_moves)
    n = len(y)
    train, held = slice(0, cut), slice(cut, n)
    w = np.zeros((PHASES, GROUPS, CONFIGURATIONS))
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    size = GROUPS * CONFIGURATIONS
    f_train, s_train, b_train, y_train = flat[train], share[train], base[train], y[train]
    rows = f_train.ravel()
    beta1, beta2 = 0.9, 0.999
    for epoch in range(1, options.epochs + 1):
        p = _sigmoid(c * (b_train + _pattern_value(w, f_train, s_train)))
        g = c * (p - y_train) / len(y_train)
        grad = np.stack([
            np.bincount(rows, weights=np.repeat(g * s_train, GROUPS), minlength=size).reshape(GROUPS, CONFIGURATIONS),
            np.bincount(rows, weights=np.repeat(g * (1 - s_train), GROUPS), minlength=size).reshape(
                GROUPS, CONFIGURATIONS
            ),
        ]) + 2 * options.l2 * w  # fmt: skip
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        w -= options.lr * (m / (1 - beta1**epoch)) / (np.sqrt(v / (1 - beta2**epoch)) + 1e-12)
        if log is not None and (epoch % 25 == 0 or epoch == options.epochs):
            loss = _cross_entropy(p, y_train)
            print(f"epoch {epoch}: train cross-entropy {loss:.5f}", file=log, flush=True)
    w = np.rint(w)
    figures: dict[str, Any] = {"positions": n, "train": cut, "held_out": n - cut}
    for name, part in (("train", train), ("held_out", held)):
        if part.stop - part.start == 0:
            continue
        before = _cross_entropy(_sigmoid(c * base[part]), y[part])
        after = _cross_entropy(_sigmoid(c * (base[part] + _pattern_value(w, flat[part], share[part]))), y[part])
        figures[f"{name}_cross_entropy"] = {"features": round(before, 5), "with_patterns": round(after, 5)}
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["nonzero_weights"] = int(np.count_nonzero(w))
    figures["largest_weight"] = int(np.abs(w).max())
    return w.astype(np.int64), figures


def fit_files(paths: list[Path], options: Options, out: Path, log: TextIO | None = None) -> str:
    """Fit on the positions of ``paths`` and write the weights to ``out`` (and its ``.json``); a one-line report."""
    data = load(paths)
    weights, figures = fit(data, options, log)
    note = write(weights, out, {"options": asdict(options), "fit": figures, "data": [p.name for p in paths]})
    held = figures.get("held_out_cross_entropy", {})
    return (
        f"{figures['positions']} positions, fitted in {figures['seconds']} s; held-out cross-entropy "
        f"{held.get('features', math.nan)} -> {held.get('with_patterns', math.nan)}; {note['bytes']} bytes, "
        f"sha256 {note['sha256'][:16]}… -> {out}"
    )


def describe() -> str:
    """The shipped weights: file, size, checksum (checked) and fit."""
    if not WEIGHTS_FILE.exists():
        return "no pattern weights are shipped"
    info = about(ABOUT_FILE)
    ok = "matches" if checksum(WEIGHTS_FILE) == info.get("sha256") else "DOES NOT MATCH"
    return json.dumps(info, indent=1) + f"\nthe file's SHA-256 {ok} the recorded one"
