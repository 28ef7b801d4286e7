"""The other candidate for ``master``'s learned evaluation: a small network, fitted on the same positions and targets as
the pattern tables, to choose between them by measurement.

The network adds to the same hand-picked features (:func:`~ai.pattern_training.fit.base_values`) what they miss, as
the patterns do: ``v = features + net(x)``, in hundredths of a man, for the side to move. Its input ``x`` is the board
from the side to move's view, as the patterns read it (White's board turned half a turn): four planes of 32 squares
(its men, its kings, the opponent's men, the opponent's kings), 128 inputs of which at most 24 are set. The layers are
``128 -> h1 -> h2 -> 1`` with ReLU between (``h1 = h2 = 32`` by default: the shape GuiNN measured for checkers, a little
wider), fitted by Adam in minibatches on the same cross-entropy as the patterns (:mod:`~ai.pattern_training.fit`). In
a kernel its first layer would be an accumulator (a row added or taken away for each piece a move changes, NNUE's
way); here only the fit is measured: :func:`compare` reports the held-out cross-entropy of the features alone, of the
shipped patterns, of patterns fitted on these positions, of the network, and of both (a network fitted on what the
features and the shipped patterns miss), on the same held-out positions (the last
:attr:`~ai.pattern_training.fit.Options.validation` share, the newest games), with what each costs an evaluation.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from ai.pattern_training.fit import (
    Options,
    _cross_entropy,
    _elementwise,
    _pattern_value,
    _sigmoid,
    pattern_inputs,
    targets,
)
from ai.pattern_training.fit import fit as fit_patterns
from ai.pattern_training.selfplay import load
from ai.patterns.regions import GROUPS
from ai.patterns.weights import shipped

Floats = npt.NDArray[np.float32]
INPUTS = 128


@dataclass
class NetOptions:
    hidden: tuple[int, int] = (32, 32)
    epochs: int = 12
    batch: int = 1024
    lr: float = 1e-3
    """Adam's step on the weights (the output is in hundredths of a man, scaled by :data:`OUT_SCALE`)."""
    l2: float = 1e-6
    seed: int = 0
    anneal: bool = False
    """Lower the step along a half cosine, from ``lr`` to :data:`ANNEAL_FLOOR` of it at the last minibatch."""


ANNEAL_FLOOR = 0.02


OUT_SCALE = 100.0
"""The network's output unit: one output is a man (100 hundredths), so its weights stay near 1."""


def inputs(black: Any, white: Any, kings: Any, black_moves: Any) -> npt.NDArray[np.uint8]:
    """The network's input for every position: shape (n, 128), 0 or 1."""
    from ai.kernel.egdb import compact
    from ai.kernel.patterns import reverse32

    _compact, _reverse32 = _elementwise(compact), _elementwise(reverse32)
    me = np.where(black_moves, black, white)
    opp = np.where(black_moves, white, black)
    out = np.zeros((len(black), INPUTS), dtype=np.uint8)
    bits = np.arange(32, dtype=np.int64)
    for plane, mask in enumerate((me & ~kings, me & kings, opp & ~kings, opp & kings)):
        packed = np.where(black_moves, _compact(mask), _reverse32(_compact(mask)))
        out[:, 32 * plane : 32 * plane + 32] = (packed[:, None] >> bits) & 1
    return out


class Network:
    """``128 -> h1 -> h2 -> 1``, ReLU, float32; :meth:`value` in hundredths of a man."""

    def __init__(self, hidden: tuple[int, int], rng: np.random.Generator) -> None:
        h1, h2 = hidden
        self.params: list[Floats] = [
            (rng.standard_normal((INPUTS, h1)) * np.sqrt(2.0 / 24)).astype(np.float32),
            np.zeros(h1, dtype=np.float32),
            (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(np.float32),
            np.zeros(h2, dtype=np.float32),
            (rng.standard_normal((h2, 1)) * np.sqrt(1.0 / h2) * 0.1).astype(np.float32),
            np.zeros(1, dtype=np.float32),
        ]

    def forward(self, x: Floats) -> tuple[Floats, tuple[Floats, ...]]:
        w1, b1, w2, b2, w3, b3 = self.params
        a1 = np.maximum(x @ w1 + b1, 0)
        a2 = np.maximum(a1 @ w2 + b2, 0)
        out = (a2 @ w3 + b3)[:, 0] * OUT_SCALE
        return out, (x, a1, a2)

    def backward(self, d_out: Floats, cache: tuple[Floats, ...]) -> list[Floats]:
        """The gradients of the parameters, given the loss's gradient on the output (hundredths of a man)."""
        x, a1, a2 = cache
        _, _, w2, _, w3, _ = self.params
        d = (d_out * OUT_SCALE)[:, None].astype(np.float32)
        g_w3, g_b3 = a2.T @ d, d.sum(axis=0)
        d2 = (d @ w3.T) * (a2 > 0)
        g_w2, g_b2 = a1.T @ d2, d2.sum(axis=0)
        d1 = (d2 @ w2.T) * (a1 > 0)
        g_w1, g_b1 = x.T @ d1, d1.sum(axis=0)
        return [g_w1, g_b1, g_w2, g_b2, g_w3, g_b3]

    def value(self, x: npt.NDArray[np.uint8], batch: int = 65536) -> Floats:
        parts = [self.forward(x[i : i + batch].astype(np.float32))[0] for i in range(0, len(x), batch)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    @property
    def size(self) -> int:
        return sum(p.size for p in self.params)


def fit_network(
    x: npt.NDArray[np.uint8],
    base: Any,
    y: Any,
    c: float,
    options: NetOptions,
    log: TextIO | None = None,
    start: list[Floats] | None = None,
) -> Network:
    """The network fitted on ``x`` (inputs), ``base`` (the features' value) and ``y`` (the target probability); from
    the weights ``start`` (a network of the same shape, left as it is) instead of random ones, to go on fitting a
    network on new positions."""
    rng = np.random.default_rng(options.seed)
    net = Network(options.hidden, rng)
    if start is not None:
        shapes = [p.shape for p in net.params]
        if [np.shape(p) for p in start] != shapes:
            raise ValueError(
                f"the starting weights are not a network of {INPUTS} -> {options.hidden[0]} -> {options.hidden[1]} -> 1"
            )
        net.params = [np.array(p, dtype=np.float32) for p in start]
    m = [np.zeros_like(p) for p in net.params]
    v = [np.zeros_like(p) for p in net.params]
    beta1, beta2, step = 0.9, 0.999, 0
    n = len(y)
    steps = options.epochs * -(-n // options.batch)
    for epoch in range(1, options.epochs + 1):
        order = rng.permutation(n)
        total = 0.0
        for first in range(0, n, options.batch):
            rows = order[first : first + options.batch]
            out, cache = net.forward(x[rows].astype(np.float32))
            p = _sigmoid(c * (base[rows] + out))
            total += _cross_entropy(p, y[rows]) * len(rows)
            grads = net.backward((c * (p - y[rows]) / len(rows)).astype(np.float32), cache)
            step += 1
            lr = options.lr
            if options.anneal:
                lr *= ANNEAL_FLOOR + (1 - ANNEAL_FLOOR) * 0.5 * (1 + np.cos(np.pi * (step - 1) / max(steps - 1, 1)))
            for i, g in enumerate(grads):
                g = g + options.l2 * net.params[i]
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                net.params[i] -= (lr * (m[i] / (1 - beta1**step)) / (np.sqrt(v[i] / (1 - beta2**step)) + 1e-8)).astype(
                    np.float32
                )
        if log is not None:
            print(f"epoch {epoch}: train cross-entropy {total / n:.5f}", file=log, flush=True)
    return net


def compare(
    data: dict[str, npt.NDArray[Any]],
    options: Options,
    net_options: NetOptions,
    log: TextIO | None = None,
    *,
    fit_tables: bool = True,
) -> dict[str, Any]:
    """Held-out cross-entropy of each candidate on the same positions, and the fits' figures."""
    started = time.perf_counter()
    black, white, kings, black_moves, base, c, y, cut = targets(data, options)
    n = len(y)
    held = slice(cut, n)
    report: dict[str, Any] = {"positions": n, "train": cut, "held_out": n - cut}
    held_out: dict[str, float] = {"features": _cross_entropy(_sigmoid(c * base[held]), y[held])}
    flat, share = pattern_inputs(black, white, kings, black_moves)
    weights = shipped()
    shipped_value = None
    if weights is not None:
        shipped_value = _pattern_value(weights.astype(np.float64), flat, share)
        held_out["shipped_patterns"] = _cross_entropy(_sigmoid(c * (base[held] + shipped_value[held])), y[held])
    if fit_tables:
        tables, figures = fit_patterns(data, options, log)
        value = _pattern_value(tables.astype(np.float64), flat[held], share[held])
        held_out["patterns_fitted_here"] = _cross_entropy(_sigmoid(c * (base[held] + value)), y[held])
        report["patterns_seconds"] = figures["seconds"]
    x = inputs(black, white, kings, black_moves)
    fitting = time.perf_counter()
    net = fit_network(x[:cut], base[:cut], y[:cut], c, net_options, log)
    report["network_seconds"] = round(time.perf_counter() - fitting, 1)
    held_out["network"] = _cross_entropy(_sigmoid(c * (base[held] + net.value(x[held]))), y[held])
    if shipped_value is not None:  # both: a network fitted on what the features and the shipped patterns miss
        both = base + shipped_value
        on_patterns = fit_network(x[:cut], both[:cut], y[:cut], c, net_options, log)
        value = both[held] + on_patterns.value(x[held])
        held_out["patterns_and_network"] = _cross_entropy(_sigmoid(c * value), y[held])
    report["held_out_cross_entropy"] = {name: round(value, 5) for name, value in held_out.items()}
    h1, h2 = net_options.hidden
    report["cost_per_evaluation"] = {
        "patterns": f"{GROUPS} table reads (two phases each)",
        "network": f"{net.size} weights; from scratch up to 24 x {h1} adds, then {h1 * h2 + h2} multiply-adds; with an "
        f"accumulator kept by the search, 2 to 4 x {h1} adds a move",
    }
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def fit_files(
    paths: list[Path],
    options: NetOptions,
    out: Path,
    log: TextIO | None = None,
    *,
    on_patterns: bool = True,
    patterns: Path | None = None,
    start: Path | None = None,
) -> str:
    """Fit the network on the positions of ``paths`` (all but the held-out share) and write it to ``out`` (and its
    ``.json``); a one-line report. It is fitted on what the features and the shipped patterns miss, as ``master``
    plays it, on top of them (without ``on_patterns``: on what the features alone miss; with ``patterns``, a weights
    file: on top of those tables, to fit a network for tables not shipped yet; with ``start``, a network's weights
    file: from those weights, to go on fitting it on new positions, the report giving their held-out cross-entropy
    too)."""
    from ai.patterns.network import read as read_network
    from ai.patterns.network import write
    from ai.patterns.weights import about as described
    from ai.patterns.weights import checksum, read

    fitting = Options()
    t = targets(load(paths), fitting)
    base, c, y, cut = t.base, t.c, t.y, t.cut
    if on_patterns:
        weights = shipped() if patterns is None else read(patterns)
        if weights is None:
            raise ValueError("no shipped patterns to fit the network on")
        flat, share = pattern_inputs(t.black, t.white, t.kings, t.black_moves)
        base = base + _pattern_value(weights.astype(np.float64), flat, share)
    x = inputs(t.black, t.white, t.kings, t.black_moves)
    held = slice(cut, len(y))
    initial = None if start is None else read_network(start)
    started = time.perf_counter()
    net = fit_network(x[:cut], base[:cut], y[:cut], c, options, log, start=initial)
    seconds = round(time.perf_counter() - started, 1)

    def held_out(params: list[Floats] | None) -> float:
        """The held-out cross-entropy of the base plus a network of these weights (none: the base alone)."""
        if params is None:
            return _cross_entropy(_sigmoid(c * base[held]), y[held])
        scored = Network(options.hidden, np.random.default_rng(0))
        scored.params = params
        return _cross_entropy(_sigmoid(c * (base[held] + scored.value(x[held]))), y[held])

    before, after = held_out(None), held_out(net.params)
    cross_entropy = {"without_network": round(before, 5), "with_network": round(after, 5)}
    if initial is not None:
        cross_entropy["with_the_start"] = round(held_out(initial), 5)
    figures = {"positions": len(y), "train": cut, "seconds": seconds, "held_out_cross_entropy": cross_entropy}
    about = {"options": asdict(options), "fit": figures, "data": [p.name for p in paths], "mix": fitting.mix}
    about["on_patterns"] = on_patterns
    if on_patterns and patterns is not None:
        about["patterns"] = patterns.name
    if start is not None:  # what it went on from: the file, its checksum and, from its description, how it was fitted
        description = start.with_suffix(".json")
        earlier = described(description) if description.is_file() else {}
        about["start"] = {
            "file": start.name,
            "sha256": checksum(start),
            "fitted": {key: earlier[key] for key in ("data", "options", "fit", "start") if key in earlier},
        }
    note = write(net.params, out, about)
    from_start = "" if initial is None else f" (the start {cross_entropy['with_the_start']:.5f})"
    return (
        f"{len(y)} positions, fitted in {seconds} s; held-out cross-entropy {before:.5f} -> {after:.5f}{from_start}; "
        f"{note['bytes']} bytes, sha256 {note['sha256'][:16]}… -> {out}"
    )
