"""The network candidate of ``master``'s learned evaluation (:mod:`ai.pattern_training.network`): its input is the board
from the side to move's view, its gradients are the loss's, and its fit lowers the cross-entropy it is compared on."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ai.pattern_training import __main__ as command
from ai.pattern_training.network import INPUTS, NetOptions, Network, fit_network, inputs
from core import Color
from tests.ai.positions import columns, random_positions


def test_the_input_is_each_piece_once_on_its_square_from_the_side_to_moves_view() -> None:
    boards = random_positions(200, 1, most_plies=80)
    x = inputs(*columns(boards))
    assert x.shape == (200, INPUTS)
    for board, row in zip(boards, x, strict=True):
        expected = np.zeros(INPUTS, dtype=np.uint8)
        for square in range(1, 33):
            piece = board.piece_at(square)
            if piece is None:
                continue
            mine = piece.color is board.turn
            seen = square if board.turn is Color.BLACK else 33 - square  # White's view: the board turned half a turn
            expected[32 * ((0 if mine else 2) + (1 if piece.king else 0)) + seen - 1] = 1
        assert np.array_equal(row, expected), board.fen()


def test_the_gradients_are_those_of_the_output() -> None:
    rng = np.random.default_rng(3)
    net = Network((6, 5), rng)
    for p in net.params:
        p += rng.standard_normal(p.shape).astype(np.float32) * 0.3  # no ReLU left dead at zero by the start
    x = (rng.random((7, INPUTS)) < 0.2).astype(np.float32)
    weights = rng.standard_normal(7).astype(np.float32)
    _, cache = net.forward(x)
    grads = net.backward(weights, cache)  # the gradient of sum(weights * out)
    for i, param in enumerate(net.params):
        flat = param.reshape(-1)
        for j in rng.choice(flat.size, size=min(5, flat.size), replace=False):
            keep = float(flat[j])
            flat[j] = keep + 1e-2
            up = float(np.dot(weights, net.forward(x)[0]))
            flat[j] = keep - 1e-2
            down = float(np.dot(weights, net.forward(x)[0]))
            flat[j] = keep
            numeric = (up - down) / 2e-2
            assert grads[i].reshape(-1)[j] == pytest.approx(numeric, rel=2e-2, abs=0.5), (i, j)


def test_the_fit_lowers_the_cross_entropy_on_positions_it_can_learn() -> None:
    """A target the features cannot see (the side to move's men on its back row are worth a quarter of a man each)."""
    rng = np.random.default_rng(5)
    x = (rng.random((4000, INPUTS)) < 0.15).astype(np.uint8)
    truth = 25.0 * x[:, :4].sum(axis=1) - 25.0 * x[:, 64:68].sum(axis=1)
    base = np.zeros(len(x))
    c = 0.01
    y = 1.0 / (1.0 + np.exp(-c * truth))

    def loss(value: np.ndarray) -> float:  # type: ignore[type-arg]
        p = np.clip(1.0 / (1.0 + np.exp(-c * value)), 1e-9, 1 - 1e-9)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))

    for anneal in (False, True):
        options = NetOptions(hidden=(8, 8), epochs=15, batch=256, lr=3e-3, seed=1, anneal=anneal)
        net = fit_network(x, base, y, c, options)
        assert loss(net.value(x)) < loss(base) - 0.0005
        assert loss(net.value(x)) - loss(truth) < 0.3 * (loss(base) - loss(truth)), f"anneal={anneal}"


def test_annealing_lowers_the_step_to_its_floor() -> None:
    """With the step annealed, the last epochs barely move the weights: a tiny last step changes less than a plain
    one from the same start."""
    rng = np.random.default_rng(6)
    x = (rng.random((512, INPUTS)) < 0.15).astype(np.uint8)
    y = rng.random(len(x))
    base = np.zeros(len(x))
    moved = {}
    for anneal in (False, True):
        options = NetOptions(hidden=(4, 4), epochs=1, batch=512, lr=1e-2, seed=2, anneal=anneal)
        start = Network(options.hidden, np.random.default_rng(options.seed))
        net = fit_network(x, base, y, 0.01, options)
        moved[anneal] = float(np.abs(net.params[0] - start.params[0]).max())
    assert moved[True] == pytest.approx(moved[False], rel=1e-3), "one step: annealing starts at the full step"
    twice = {}
    for anneal in (False, True):
        options = NetOptions(hidden=(4, 4), epochs=2, batch=512, lr=1e-2, seed=2, anneal=anneal)
        one = fit_network(x, base, y, 0.01, NetOptions(hidden=(4, 4), epochs=1, batch=512, lr=1e-2, seed=2))
        net = fit_network(x, base, y, 0.01, options)
        twice[anneal] = float(np.abs(net.params[0] - one.params[0]).max())
    assert twice[True] < 0.05 * twice[False], "the second of two steps is 2% of the first"


def test_compare_reports_every_candidate_on_generated_positions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "positions.npz"
    assert command.main(["generate", "--out", str(data), "--games", "4", "--nodes", "300", "--seed", "11"]) == 0
    capsys.readouterr()
    assert command.main(["compare", str(data), "--epochs", "2", "--hidden", "8", "8"]) == 0
    report = json.loads(capsys.readouterr().out)
    held = report["held_out_cross_entropy"]
    assert set(held) == {"features", "shipped_patterns", "patterns_fitted_here", "network", "patterns_and_network"}
    assert all(0 < value < 1.5 for value in held.values())
    assert report["held_out"] + report["train"] == report["positions"] > 100


def test_the_network_command_writes_weights_the_kernel_reads(tmp_path: Path) -> None:
    from ai.patterns import network as files
    from ai.patterns.network import BLOCK, quantized

    data = tmp_path / "positions.npz"
    assert command.main(["generate", "--out", str(data), "--games", "4", "--nodes", "300", "--seed", "12"]) == 0
    out = tmp_path / "net.npz"
    assert command.main(["network", str(data), "--out", str(out), "--epochs", "2"]) == 0
    params = files.read(out)
    assert [p.shape for p in params] == [(INPUTS, 32), (32,), (32, 32), (32,), (32, 1), (1,)]
    assert quantized(params).size == BLOCK
    about = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert about["bytes"] == out.stat().st_size and about["fit"]["train"] < about["fit"]["positions"]
    import hashlib

    assert about["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert about["on_patterns"] is True, "by default it fits what the features and the shipped patterns miss"
    alone = tmp_path / "alone.npz"
    assert command.main(["network", str(data), "--out", str(alone), "--epochs", "2", "--alone"]) == 0
    about_alone = json.loads(alone.with_suffix(".json").read_text(encoding="utf-8"))
    assert about_alone["on_patterns"] is False
    before = about["fit"]["held_out_cross_entropy"]["without_network"]
    assert before != about_alone["fit"]["held_out_cross_entropy"]["without_network"], "the patterns are in its base"
    tables = tmp_path / "tables.npz"
    assert command.main(["fit", str(data), "--out", str(tables), "--epochs", "3"]) == 0
    other = tmp_path / "other.npz"
    assert command.main(["network", str(data), "--out", str(other), "--epochs", "2", "--patterns", str(tables)]) == 0
    about_other = json.loads(other.with_suffix(".json").read_text(encoding="utf-8"))
    assert about_other["on_patterns"] is True and about_other["patterns"] == "tables.npz"
    assert "patterns" not in about, "the shipped tables are the default"
    beneath = about_other["fit"]["held_out_cross_entropy"]["without_network"]
    assert beneath not in (before, about_alone["fit"]["held_out_cross_entropy"]["without_network"]), "those tables"


def test_the_shipped_network_matches_its_checksum() -> None:
    import hashlib

    from ai.patterns import network as files

    about = json.loads(files.NETWORK_FILE.with_suffix(".json").read_text(encoding="utf-8"))
    assert about["sha256"] == hashlib.sha256(files.NETWORK_FILE.read_bytes()).hexdigest()
    assert about["bytes"] == files.NETWORK_FILE.stat().st_size
    assert about["on_patterns"] is True, "master plays it on top of the patterns"


def test_a_fit_goes_on_from_the_weights_it_starts_from(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--start``: with no step at all the network written is the one it started from, held-out figure and all; with
    a step, it moves from there; a network of another shape, or no file, is refused."""
    from ai.patterns import network as files

    data = tmp_path / "positions.npz"
    assert command.main(["generate", "--out", str(data), "--games", "4", "--nodes", "300", "--seed", "13"]) == 0
    first = tmp_path / "first.npz"
    assert command.main(["network", str(data), "--out", str(first), "--epochs", "2", "--seed", "1"]) == 0
    start = files.read(first)
    kept = [p.copy() for p in start]
    same = tmp_path / "same.npz"
    assert (
        command.main(["network", str(data), "--out", str(same), "--epochs", "1", "--lr", "0", "--start", str(first)])
        == 0
    )
    assert all(np.array_equal(a, b) for a, b in zip(files.read(same), start, strict=True))
    held = json.loads(same.with_suffix(".json").read_text(encoding="utf-8"))["fit"]["held_out_cross_entropy"]
    before = json.loads(first.with_suffix(".json").read_text(encoding="utf-8"))["fit"]["held_out_cross_entropy"]
    assert held["with_the_start"] == held["with_network"] == before["with_network"]
    import hashlib

    start_about = json.loads(same.with_suffix(".json").read_text(encoding="utf-8"))["start"]
    assert start_about["sha256"] == hashlib.sha256(first.read_bytes()).hexdigest()
    assert start_about["fitted"]["fit"]["held_out_cross_entropy"] == before, "how the start was fitted"
    on = tmp_path / "on.npz"
    assert command.main(["network", str(data), "--out", str(on), "--epochs", "1", "--start", str(first)]) == 0
    moved = files.read(on)
    assert all(np.array_equal(a, b) for a, b in zip(files.read(first), kept, strict=True)), "the start is left as it is"
    assert not np.array_equal(moved[0], kept[0])
    fresh = files.read(tmp_path / "first.npz")
    rng = np.random.default_rng(0)
    x = (rng.random((64, INPUTS)) < 0.15).astype(np.uint8)
    with pytest.raises(ValueError, match="not a network of"):
        fit_network(x, np.zeros(64), np.full(64, 0.5), 0.01, NetOptions(hidden=(8, 8), epochs=1), start=fresh)
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        command.main(["network", str(data), "--out", str(tmp_path / "x.npz"), "--start", str(tmp_path / "none.npz")])
    assert refused.value.code == 2 and "no network's weights" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
