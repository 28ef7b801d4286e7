"""The shipped pattern weights: ``ai/data/patterns.npz`` (int16, ``[phase][group][index]``), described by
``ai/data/patterns.json`` (how they were made, the fit's figures, the file's size and SHA-256)."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ai.patterns.regions import CONFIGURATIONS, GROUPS, PHASES

DATA = Path(__file__).resolve().parent.parent / "data"
WEIGHTS_FILE = DATA / "patterns.npz"
ABOUT_FILE = DATA / "patterns.json"

Weights = npt.NDArray[np.int64]


def read(path: Path) -> Weights:
    """The weights in a file, as int64 ``[phase][group][index]``."""
    with np.load(path) as data:
        weights = np.asarray(data["weights"], dtype=np.int64)
    if weights.shape != (PHASES, GROUPS, CONFIGURATIONS):
        raise ValueError(f"{path}: weights of shape {weights.shape}")
    return weights


def write(weights: Weights, path: Path, about: dict[str, Any]) -> dict[str, Any]:
    """Save ``weights`` (rounded to int16) and, beside it as ``.json``, ``about`` with the file's size and SHA-256."""
    clipped = np.clip(np.rint(weights), -32000, 32000).astype(np.int16)
    with path.open("wb") as sink:
        np.savez_compressed(sink, weights=clipped)
    blob = path.read_bytes()
    about = about | {"file": path.name, "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}
    path.with_suffix(".json").write_text(json.dumps(about, indent=1) + "\n", encoding="utf-8")
    return about


def checksum(path: Path = WEIGHTS_FILE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def about(path: Path = ABOUT_FILE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def shipped() -> Weights | None:
    """The shipped weights, read once per process; None if the package has none."""
    if not WEIGHTS_FILE.exists():
        return None
    return read(WEIGHTS_FILE)
