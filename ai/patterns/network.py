"""The small network's weights (:mod:`ai.pattern_training.network` fits them, :mod:`ai.kernel.network` plays them):
``ai/data/network.npz`` (float32 ``w1 b1 w2 b2 w3 b3``), described by ``ai/data/network.json`` (how they were fitted,
the file's size and SHA-256). ``master`` plays them on top of the features and the pattern tables, whose misses they
were fitted on."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ai.patterns.weights import DATA

NETWORK_FILE = DATA / "network.npz"
NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")

Params = list[npt.NDArray[np.float32]]

# The kernel's integer layout of the network (:mod:`ai.kernel.network`).
INPUTS, H1, H2 = 128, 32, 32
Q = 1024
SHIFT = 10
"""``Q`` is ``1 << SHIFT``."""
OUT_SCALE = 100
"""One unit of the output is a man: 100 hundredths."""
W1_AT = 0
B1_AT = W1_AT + INPUTS * H1
W2_AT = B1_AT + H1
B2_AT = W2_AT + H1 * H2
W3_AT = B2_AT + H2
B3_AT = W3_AT + H2
BLOCK = B3_AT + 1
"""The network's words in the constant table."""


def quantized(params: Params) -> npt.NDArray[np.int64]:
    """The block of the constant table for float parameters ``[W1 (128x32), b1, W2 (32x32), b2, W3 (32x1), b3]``."""
    parts = [np.rint(np.asarray(p, dtype=np.float64) * Q).astype(np.int64).reshape(-1) for p in params]
    block = np.concatenate(parts)
    if block.size != BLOCK:
        raise ValueError(f"a network of {block.size} weights, not {BLOCK} (128 -> 32 -> 32 -> 1)")
    return block


PIECES_MAX = 24
"""The most pieces a position of English draughts holds (a bound of the first layer's sums)."""
SUMS_BITS = 31
"""A second-layer unit's sum must stay below ``2 ** SUMS_BITS`` in size: the kernel adds its products in 32 bits."""


def second_layer_bound(block: npt.NDArray[np.int64]) -> int:
    """An upper bound of the size of any second-layer unit's sum, over every position: each first-layer unit at its
    largest (its bias and the largest positive weights of :data:`PIECES_MAX` squares, one piece a square), through
    ReLU, times the size of its weights."""
    w1 = block[W1_AT : W1_AT + INPUTS * H1].reshape(4, 32, H1).max(axis=0)  # a square holds one kind of piece
    top = np.sort(np.clip(w1, 0, None), axis=0)[-PIECES_MAX:].sum(axis=0)
    first = np.clip(block[B1_AT : B1_AT + H1] + top, 0, None)
    w2 = np.abs(block[W2_AT : W2_AT + H1 * H2].reshape(H1, H2))
    return int((first[:, None] * w2).sum(axis=0).max())


def packed(block: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The block as the kernel reads it: the same, except the second layer's weights, which are 32-bit integers, two
    to a word from ``W2_AT`` on (the words after them zero), read through a 32-bit view of the table. Raises
    :class:`ValueError` when a unit's sum could reach 32 bits (:func:`second_layer_bound`)."""
    bound = second_layer_bound(block)
    if bound >= 2**SUMS_BITS:
        raise ValueError(f"a second-layer sum could reach {bound}, past 32 bits: the kernel cannot add it exactly")
    out = block.copy()
    words = np.zeros(H1 * H2, dtype=np.int64)
    words.view(np.int32)[: H1 * H2] = block[W2_AT : W2_AT + H1 * H2]
    out[W2_AT : W2_AT + H1 * H2] = words
    return out


def read(path: Path) -> Params:
    with np.load(path) as data:
        return [np.asarray(data[name], dtype=np.float32) for name in NAMES]


def write(params: Params, path: Path, about: dict[str, Any]) -> dict[str, Any]:
    """Save ``params`` and, beside them as ``.json``, ``about`` with the file's size and SHA-256."""
    with path.open("wb") as sink:
        np.savez_compressed(sink, **dict(zip(NAMES, params, strict=True)))  # type: ignore[arg-type]
    blob = path.read_bytes()
    about = about | {"file": path.name, "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    path.with_suffix(".json").write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")
    return about


@cache
def shipped_network() -> Params:
    """The shipped network, read once per process."""
    return read(NETWORK_FILE)
