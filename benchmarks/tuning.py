"""Offline tuning of ``master``'s evaluation weights: self-play data, then logistic regression on the game results.

1. ``python -m benchmarks.tuning generate --games 600 --out /tmp/selfplay.jsonl``: fast self-play games of ``master``'s
   search (a small node budget a move) from the ACF ballots, with random moves mixed in (the first moves after the
   ballot and a share of the rest), recording the features (:mod:`ai.features`) of every quiet position (no capture
   pending) with the final result from the side to move's point of view (1 won, ½ drawn, 0 lost). With
   ``--engine kernel`` the games are the compiled kernel's, with the endgame databases (so endings are scored right).
2. ``python -m benchmarks.tuning fit --data /tmp/selfplay.jsonl``: fits ``P(win) = sigmoid(w · features)`` by Newton's
   method on the cross-entropy with a little L2, then scales the weights so that a man is worth 100 and writes
   ``ai/data/eval_weights.json`` (or ``--out``). The runtime reads the JSON: the pure-Python search plays those
   weights; ``master`` (the kernel) plays ``ai/data/kernel_weights.json``, the fitted weights with the changes that
   won matches on the kernel.
3. ``python -m benchmarks.refit --weights FILE``: a match of ``master`` with those weights against ``master``
   (``--against python-master``: against the pure-Python search).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from ai.ballots import openings
from ai.features import FEATURES, feature_function
from ai.kernel import KernelPlayer
from ai.player import Limits
from ai.rawgame import node_of
from benchmarks.python_master import Engine
from benchmarks.python_master.tt import TranspositionTable
from core import AMERICAN, Board, Color

WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "ai" / "data" / "eval_weights.json"
_KERNEL = KernelPlayer(table_entries=1 << 16, endgames=True)


def self_play(
    seed: int, nodes: int, random_plies: int, epsilon: float, engine: str = "python"
) -> tuple[list[tuple[int, ...]], list[float]]:
    """One game of ``engine`` (``python`` or ``kernel``): the features of its quiet positions and their results for
    the side to move."""
    rng = random.Random(seed)
    deck = [b for b in openings("american") if b.dealt]
    board = Board(None, AMERICAN)
    for text in rng.choice(deck).moves:
        board.push_text(text)
    features = feature_function(AMERICAN.geometry)
    table = TranspositionTable(1 << 16)
    rows: list[tuple[tuple[int, ...], Color]] = []
    plies = 0
    while board.outcome() is None and plies < 160:
        me, opp, kings, black = node_of(board)
        if not AMERICAN.generator.has_capture(me, opp, kings, black):
            rows.append((features(me, opp, kings, black), board.turn))
        legal = board.legal_moves
        if plies < random_plies or rng.random() < epsilon:
            move = rng.choice(legal)
        elif engine == "kernel":
            move = board.parse_move(_KERNEL.choose(board, Limits(time=5.0, nodes=nodes), rng).move)
        else:
            result = Engine(board, Limits(time=5.0, nodes=nodes), table).run(rng)
            move = board.parse_move(result.move)
        board.push(move)
        plies += 1
    outcome = board.outcome()
    winner = outcome.winner if outcome is not None else None
    labels = [0.5 if winner is None else float(winner is turn) for _, turn in rows]
    return [f for f, _ in rows], labels


def generate(games: int, out: Path, seed: int, nodes: int, engine: str = "python") -> None:
    start = time.perf_counter()
    with out.open("a", encoding="utf-8") as sink:
        for g in range(games):
            xs, ys = self_play(seed * 100_003 + g, nodes, random_plies=4, epsilon=0.08, engine=engine)
            for x, y in zip(xs, ys, strict=True):
                sink.write(json.dumps([*x, y]) + "\n")
            if g % 20 == 19:
                print(f"{g + 1} games, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def fit(data: Path, l2: float = 1e-3) -> dict[str, float]:
    import numpy as np  # here, not at the top: importing ai must not pay for numpy

    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    array = np.array(rows, dtype=float)
    x, y = array[:, :-1], array[:, -1]
    # Use each position twice, as itself and colour-flipped (features negate, result flips): the model stays odd.
    x = np.vstack([x, -x])
    y = np.concatenate([y, 1 - y])
    w = np.zeros(x.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / len(y) + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-7:
            break
    p = 1 / (1 + np.exp(-(x @ w)))
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    print(f"{len(rows)} positions, cross-entropy {loss:.4f}", file=sys.stderr)
    scale = 100.0 / w[0]
    return {name: round(float(v * scale), 1) for name, v in zip(FEATURES, w, strict=True)} | {
        "_logit_per_man": round(float(w[0]), 4)
    }


def write_weights(weights: dict[str, float], positions: int, path: Path = WEIGHTS_FILE) -> None:
    logit = weights.pop("_logit_per_man", 0.0)
    payload: dict[str, Any] = {
        "about": "the evaluation weights, fitted by benchmarks/tuning.py (logistic regression on self-play results)",
        "positions": positions,
        "logit_per_man": logit,
        "weights": weights,
    }
    path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    description = __doc__.splitlines()[0] if __doc__ else ""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tuning", description=description)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="play self-play games and append their positions to a JSONL file")
    gen.add_argument("--games", type=int, default=600)
    gen.add_argument("--nodes", type=int, default=400)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--out", type=Path, required=True)
    gen.add_argument("--engine", choices=("python", "kernel"), default="python", help="whose self-play")
    fitter = sub.add_parser("fit", help="fit the weights (needs numpy) and write ai/data/eval_weights.json")
    fitter.add_argument("--data", type=Path, nargs="+", required=True)
    fitter.add_argument("--out", type=Path, default=WEIGHTS_FILE, help="where to write the weights")
    args = parser.parse_args(argv)
    if args.command == "generate":
        generate(args.games, args.out, args.seed, args.nodes, args.engine)
    else:
        merged = Path("/tmp/kingme-tuning-merged.jsonl")
        merged.write_text("".join(p.read_text(encoding="utf-8") for p in args.data), encoding="utf-8")
        weights = fit(merged)
        positions = sum(1 for _ in merged.open(encoding="utf-8"))
        print(json.dumps(weights, indent=1))
        write_weights(weights, positions, args.out)


if __name__ == "__main__":
    main()
