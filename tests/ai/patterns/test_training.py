"""A small run of the pattern evaluation's training, as documented: self-play positions, the fit, the weights file."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from ai.pattern_training import __main__ as command
from ai.pattern_training.selfplay import load
from ai.patterns import weights as files
from ai.patterns.regions import CONFIGURATIONS, GROUPS, PHASES


def test_generate_then_fit_writes_weights_that_fit_the_positions_better(tmp_path: Path) -> None:
    data = tmp_path / "positions.npz"
    assert command.main(["generate", "--out", str(data), "--games", "6", "--nodes", "300", "--seed", "7"]) == 0
    positions = load([data])
    count = len(positions["black"])
    assert count > 100
    assert set(np.unique(positions["result"])) <= {0.0, 0.5, 1.0}
    assert np.all((positions["black"] & positions["white"]) == 0)
    # Quiet positions only, with more pieces than the shipped database covers (5).
    pieces = np.array([int(b | w).bit_count() for b, w in zip(positions["black"], positions["white"], strict=True)])
    assert pieces.min() > 5

    out = tmp_path / "weights.npz"
    assert command.main(["fit", str(data), "--out", str(out), "--epochs", "40"]) == 0
    weights = files.read(out)
    assert weights.shape == (PHASES, GROUPS, CONFIGURATIONS)
    assert np.count_nonzero(weights) > 0
    about = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert about["sha256"] == files.checksum(out)
    assert about["bytes"] == out.stat().st_size
    train = about["fit"]["train_cross_entropy"]
    assert train["with_patterns"] < train["features"]
    assert about["fit"]["positions"] == count


def test_the_same_seed_generates_the_same_positions(tmp_path: Path) -> None:
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    for out in (first, second):
        command.main(["generate", "--out", str(out), "--games", "2", "--nodes", "200", "--seed", "3"])
    a, b = load([first]), load([second])
    assert all(np.array_equal(a[name], b[name]) for name in a)


def test_the_shipped_weights_match_their_checksum() -> None:
    about = files.about()
    assert files.WEIGHTS_FILE.stat().st_size == about["bytes"]
    assert files.checksum() == about["sha256"]
    assert files.shipped() is not None


def test_relabel_searches_the_same_positions_again_at_the_new_budget(tmp_path: Path) -> None:
    from ai.kernel import KernelPlayer
    from ai.kernel.engine import forget
    from ai.pattern_training.selfplay import SCORE_CLIP, fen_of
    from ai.player import Limits
    from core import Board, Color

    data, again = tmp_path / "positions.npz", tmp_path / "again.npz"
    command.main(["generate", "--out", str(data), "--games", "2", "--nodes", "200", "--seed", "3"])
    assert command.main(["relabel", str(data), "--out", str(again), "--nodes", "3000", "--count", "40"]) == 0
    before, after = load([data]), load([again])
    assert len(after["black"]) == 40
    for name in ("black", "white", "kings", "black_moves", "result"):
        assert np.array_equal(after[name], before[name][:40])
    assert np.abs(after["score"]).max() <= SCORE_CLIP
    assert not np.array_equal(after["score"], before["score"][:40])  # a search ten times larger changes some scores

    # Each score is the search of the saved position itself: its FEN gives back the bitboards and the side to move,
    # and the first position, searched alone from an empty table at the same budget, gets the same score.
    black, white, kings = (int(after[name][0]) for name in ("black", "white", "kings"))
    board = Board(fen_of(black, white, kings, bool(after["black_moves"][0])))
    assert (board.black, board.white, board.kings) == (black, white, kings)
    assert (board.turn is Color.BLACK) == bool(after["black_moves"][0])
    forget()
    player = KernelPlayer(table_entries=1 << 16, endgames=True)
    assert int(player.choose(board, Limits(time=60.0, nodes=3000), random.Random(0)).score) == after["score"][0]
