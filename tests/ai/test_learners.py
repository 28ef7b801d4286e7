"""The three learners: their update rules on hand-computed numbers, their features, training and the shipped
weights."""

from __future__ import annotations

import json
import math
import pickle
import random
import zlib
from pathlib import Path

import pytest

from ai.api import Limits, get_level
from ai.learners import shipped_model
from ai.learners.features import lms_features, q_state, sarsa_features, threatened
from ai.learners.lms import INITIAL_WEIGHTS, Critic, Generalizer, LinearModel, LmsPlayer
from ai.learners.qlearning import (
    QEpisode,
    QLearningPlayer,
    QTable,
    load_shipped_model,
    q_terminal_update,
    q_update,
    reply_value,
    reward,
)
from ai.learners.sarsa import SarsaPlayer, q_value, sarsa_update
from ai.learners.sarsa import reward as sarsa_reward
from ai.training import LEARNERS, evaluate, player_from_model, train
from core import PASS, Board, Color, Outcome, Termination
from tests.ai.positions import random_positions

LEARNER_NAMES = ("qlearning", "lms", "sarsa")

# Black men on 5 (left edge) and 14, a Black king on 27; a White man on 23 and a White king on 31. The White king can
# jump the Black king (31x24) and the Black king can jump the White man (27x18, Black's only move).
FEN = "B:W23,K31:B5,14,K27"


# -- features -------------------------------------------------------------------------------------------------------


def test_q_state_on_a_known_position() -> None:
    board = Board(FEN)
    # Black: 2 men, 1 man, 1 king, 1 king, 1 piece on an edge (5), centre of mass rows (1+3+6)//3 = 3, White's
    # (5+7)//2 = 6.
    assert q_state(board, Color.BLACK) == (2, 1, 1, 1, 1, 3, 6)
    # White counts rows from its own back row: its pieces at 2 and 0 -> 1; Black's at 6, 4 and 1 -> 11//3 = 3.
    assert q_state(board, Color.WHITE) == (1, 2, 1, 1, 0, 1, 3)


def test_lms_and_threat_features_on_a_known_position() -> None:
    board = Board(FEN)
    assert threatened(board, Color.BLACK) == 1  # the king on 27 (31x24)
    assert threatened(board, Color.WHITE) == 1  # the man on 23 (27x18)
    assert lms_features(board, Color.BLACK) == (1.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0)
    assert lms_features(board, Color.WHITE) == (1.0, 2.0, 3.0, 1.0, 1.0, 1.0, 1.0)
    assert threatened(Board(), Color.BLACK) == 0


def test_sarsa_features_on_a_known_position() -> None:
    board = Board(FEN)
    assert [m.text() for m in board.legal_moves] == ["27x18"]
    after = board.copy()
    after.push(board.legal_moves[0])
    # s: 2 men, 1 king, 1 man, 1 king; s -> s': White loses its man (-1 man, 0 kings, -1 piece); in s' the White king
    # can no longer jump anything.
    assert sarsa_features(board, after, Color.BLACK) == (2.0, 1.0, 1.0, 1.0, -1.0, 0.0, -1.0, 0.0)


# -- Q-learning -----------------------------------------------------------------------------------------------------


def test_q_reward_is_the_material_change() -> None:
    # Own men 8 -> 7, opponent men 9 -> 6, own kings 1 -> 2 (a crowning), opponent kings 2 -> 1:
    # ΔU_s − ΔU_o + 2(ΔK_s − ΔK_o) = −1 − (−3) + 2(1 − (−1)) = 6.
    assert reward((8, 9, 1, 2, 0, 3, 4), (7, 6, 2, 1, 0, 3, 4)) == 6.0


def test_q_update_formulas() -> None:
    # T ← T + α(R + λ max T' − T) = 0.5 + 0.1 (1 + 0.9 × 2 − 0.5) = 0.73
    assert q_update(0.5, 1.0, 2.0, alpha=0.1, lam=0.9) == pytest.approx(0.73)
    # T ← T + α R = 0.5 + 0.1 × (−2) = 0.3
    assert q_terminal_update(0.5, -2.0, alpha=0.1) == pytest.approx(0.3)


def test_q_episode_applies_both_updates_to_the_remembered_transition() -> None:
    board = Board(FEN)
    s2 = q_state(board, Color.BLACK)  # s_{n+2}: Black is to move again
    s_n = (3, 1, 1, 1, 1, 3, 6)  # Black has lost a man since then
    s_n1 = (3, 1, 1, 1, 1, 4, 6)
    after = board.copy()
    after.push(board.legal_moves[0])
    s_m = q_state(after, Color.BLACK)
    table = QTable({(s_n, s_n1): 0.5, (s2, s_m): 2.0}, alpha=0.1, lam=0.9, epsilon=0.0)
    episode = QEpisode(table, Color.BLACK)
    episode.last = (s_n, s_n1)
    move = episode.act(board, random.Random(0))
    assert move.text() == "27x18"
    # R(s_n, s_{n+2}) = −1 − 0 = −1; max_m T(s_{n+2}, s_m) = 2: 0.5 + 0.1 (−1 + 1.8 − 0.5) = 0.53
    assert table.values[(s_n, s_n1)] == pytest.approx(0.53)
    assert episode.last == (s2, s_m)
    # The game ends with White having lost its man: R(s2, final) = −(−1) = 1, so T(s2, s_m) = 2 + 0.1 × 1.
    episode.finish(after, Outcome(Termination.NO_MOVES, Color.BLACK))
    assert table.values[(s2, s_m)] == pytest.approx(2.1)


# Black men on 5 and 13, a White man on 14. Both Black moves (5-9 and 13-17) lead to the same state for Black, so to
# transitions of the same value; after 5-9 White must take (14x5), after 13-17 it cannot take anything.
SAME_STATE_FEN = "B:W14:B5,13"


def _transition_after(fen: str, black: str, white: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """White's transition (in White's states) when Black plays ``black`` and White replies ``white``."""
    board = Board(fen)
    board.push_text(black)
    before = q_state(board, Color.WHITE)
    board.push_text(white)
    return before, q_state(board, Color.WHITE)


def test_moves_of_equal_value_are_told_apart_by_the_opponents_best_reply() -> None:
    board = Board(SAME_STATE_FEN)
    states = set()
    for move in board.legal_moves:
        board.push(move)
        states.add(q_state(board, Color.BLACK))
        board.pop()
    assert len(states) == 1  # a tie for the greedy choice
    take = _transition_after(SAME_STATE_FEN, "5-9", "14x5")
    # The table values White's capture at 1: after 5-9 White's best transition is worth 1, after 13-17 0 (unknown).
    player = QLearningPlayer(QTable({take: 1.0}))
    assert {player.choose(board, Limits(), random.Random(seed)).move for seed in range(10)} == {"13-17"}
    # The choice follows the table, not a rule about captures: valued at −1, the capture is what Black leaves White.
    player = QLearningPlayer(QTable({take: -1.0}))
    assert {player.choose(board, Limits(), random.Random(seed)).move for seed in range(10)} == {"5-9"}
    # With nothing to tell them apart, the tie is broken at random.
    player = QLearningPlayer(QTable())
    assert {player.choose(board, Limits(), random.Random(seed)).move for seed in range(20)} == {"5-9", "13-17"}


def test_the_value_of_the_move_comes_before_the_reply() -> None:
    # Black men on 8 and 12, a White man on 19: 8-11 and 12-16 lead to different states, and after 12-16 White takes
    # (19x12x3). Black's transition of 12-16 is worth 0.5, so it is played, however much White's capture is worth.
    fen = "B:W19:B8,12"
    board = Board(fen)
    board.push_text("12-16")
    after = q_state(board, Color.BLACK)
    board.pop()
    table = QTable({(q_state(board, Color.BLACK), after): 0.5, _transition_after(fen, "12-16", "19x12x3"): 3.0})
    assert QLearningPlayer(table).choose(board, Limits(), random.Random(0)).move == "12-16"


def test_reply_value_of_a_finished_game() -> None:
    board = Board("B:W18:B14")
    board.push_text("14x23")  # White has no piece left: Black has won
    assert reply_value(QTable(), board, Color.BLACK) == -math.inf
    assert reply_value(QTable(), board, Color.WHITE) == math.inf


def test_shipped_qlearning_level_beats_easy() -> None:
    # The acceptance bar of the level: 80% of the points against easy, colours alternated.
    score = evaluate(get_level("qlearning").factory(), "easy", 100, seed=2024)
    assert score.score >= 0.8


# -- LMS -----------------------------------------------------------------------------------------------------------


def test_lms_worked_example() -> None:
    model = LinearModel(list(INITIAL_WEIGHTS))
    b1 = (1.0, 7.0, 6.0, 2.0, 1.0, 0.0, 3.0)  # x0 = 1, then x1..x6 of b1
    v_train = Critic(model).v_train(b1)
    assert v_train == pytest.approx(9.5)
    b0 = (1.0, 8.0, 7.0, 2.0, 1.0, 1.0, 2.0)
    error = Generalizer(eta=0.1).update(model, b0, v_train, v_hat=8.0)
    assert error == pytest.approx(1.5)
    assert model.weights[1] == pytest.approx(2.2)  # 1.0 + 0.1 × 1.5 × 8
    assert model.weights[0] == pytest.approx(0.5 + 0.15)
    assert model.weights[2] == pytest.approx(-1.0 + 0.15 * 7)
    assert model.weights[6] == pytest.approx(1.5 + 0.15 * 2)


def test_lms_critic_examples() -> None:
    model = LinearModel([0.0, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    trace = [(1.0, 12.0, 12.0, 0.0, 0.0, 0.0, 0.0), (1.0, 12.0, 10.0, 0.0, 0.0, 0.0, 0.0)]
    final = (1.0, 12.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    examples = Critic(model).examples(trace, final, 100.0)
    assert [target for _, target in examples] == [2.0, 100.0, 100.0]


# -- SARSA ---------------------------------------------------------------------------------------------------------


def test_sarsa_reward() -> None:
    # Agent (men, kings, opp men, opp kings) 10, 1, 9, 2 in s and 9, 1, 7, 1 in s'':
    # −0.4 × 1 − 0.5 × 0 + 0.2 × 2 + 0.3 × 1 = 0.3
    assert sarsa_reward((10, 1, 9, 2), (9, 1, 7, 1)) == pytest.approx(0.3)
    assert sarsa_reward((10, 1, 9, 2), (10, 1, 9, 2)) == pytest.approx(-0.1)  # the living reward
    assert sarsa_reward((10, 1, 9, 2), (9, 1, 7, 2)) == pytest.approx(0.0)  # −0.4 + 0.4: terms not all 0
    assert sarsa_reward((10, 1, 1, 0), (10, 1, 0, 0), 1) == pytest.approx(500.2)
    assert sarsa_reward((1, 0, 5, 0), (1, 0, 5, 0), -1) == pytest.approx(-500.0)


def test_sarsa_update_formula() -> None:
    w = [1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, -1.0]
    phi = (0.5, 0.0, 0.0, 0.0, -0.25, 0.0, 0.0, 0.5)
    assert q_value(w, phi) == pytest.approx(0.5 - 0.5 - 0.5)
    # δ = r + γ Q(s'', a'') − Q(s, a) = 1 + 0.9 × 2 − (−0.5) = 3.3; w ← w + 0.1 × 3.3 × φ
    new = sarsa_update(w, phi, r=1.0, q_next=2.0, alpha=0.1, gamma=0.9)
    assert new == pytest.approx([1.165, 0.0, 0.0, 0.0, 1.9175, 0.0, 0.0, -0.835])


# -- training -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LEARNER_NAMES)
def test_training_is_deterministic_per_seed(name: str) -> None:
    first, _ = train(name, 12, seed=5, eval_games=0)
    again, _ = train(name, 12, seed=5, eval_games=0)
    other, _ = train(name, 12, seed=6, eval_games=0)
    assert first == again
    assert first != other


@pytest.mark.parametrize("name", ["lms", "sarsa"])
def test_a_short_training_run_beats_easy_more_often(name: str) -> None:
    untrained = LEARNERS[name]().player()
    model, _ = train(name, 60, seed=11, eval_games=0)
    trained = player_from_model(name, model)
    before = evaluate(untrained, "easy", 30, seed=3)
    after = evaluate(trained, "easy", 30, seed=3)
    assert after.wins > before.wins
    assert after.wins >= 25


def test_learning_curve_points() -> None:
    _, curve = train("sarsa", 20, seed=1, eval_every=10, eval_games=4, eval_against=("easy", "no-such-level"))
    assert [p.games for p in curve] == [0, 10, 20]
    assert all(set(p.scores) == {"easy"} and p.scores["easy"].games == 4 for p in curve)


# -- the levels -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lms", "sarsa"])
def test_shipped_weights_load(name: str) -> None:
    model = shipped_model(name, "american")
    assert model is not None
    assert model.get("meta", {}).get("games", 0) > 0


@pytest.mark.parametrize("variant", ["american", "mini", "capture-all"])
def test_shipped_qlearning_weights_load_from_the_compressed_file(variant: str) -> None:
    model = load_shipped_model(variant)
    assert model is not None
    assert model["meta"]["variant"] == ("mini" if variant == "mini" else "american")
    assert model["meta"]["games"] > 0
    assert QTable.from_model(model).values


@pytest.mark.parametrize("variant", ["american", "capture-all", "mini"])
@pytest.mark.parametrize("name", LEARNER_NAMES)
def test_learners_play_legal_moves(name: str, variant: str) -> None:
    rng = random.Random(zlib.crc32(f"{name}/{variant}".encode()))
    player = get_level(name).factory()
    for board in random_positions(15, rng, most_plies=60, variant=variant):
        fen = board.fen()
        result = player.choose(board, Limits(), rng)
        assert board.fen() == fen
        assert result.move in {m.text() for m in board.legal_moves}
    pickle.loads(pickle.dumps(player))


@pytest.mark.parametrize("name", LEARNER_NAMES)
def test_learners_pass_when_blocked(name: str) -> None:
    board = Board("B:W9,14:B5", "capture-all")
    assert board.legal_moves == [PASS]
    assert get_level(name).factory().choose(board, Limits(), random.Random(0)).move == "pass"


def test_players_with_given_weights() -> None:
    board = Board(FEN)
    assert LmsPlayer(LinearModel()).choose(board, Limits(), random.Random(0)).move == "27x18"
    assert SarsaPlayer().choose(board, Limits(), random.Random(0)).move == "27x18"


def test_train_command_writes_weights_and_prints_the_curve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    out = tmp_path / "lms.json"
    args = ["train", "lms", "--games", "4", "--eval-every", "2", "--eval-games", "2", "--quiet", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "vs easy" in printed
    assert [line.split()[0] for line in printed.splitlines()[2:5]] == ["0", "2", "4"]
    data = json.loads(out.read_text())
    assert data["learner"] == "lms" and data["models"]["american"]["meta"]["games"] == 4
    assert main([*args[:4], "--variant", "mini", "--eval-games", "0", "--quiet", "--out", str(out)]) == 0
    assert set(json.loads(out.read_text())["models"]) == {"american", "mini"}
    assert main(["train", "lms", "--games", "0"]) == 2
    assert main(["train", "sarsa", "--games", "2", "--opponent", "nobody"]) == 2
