"""``lms``: a learning system in four modules, a linear board evaluation fitted by the LMS rule.

V̂(b) = w0 + w1·x1 + … + w6·x6 over the features of :func:`ai.learners.features.lms_features` (own pieces, opponent
pieces, own kings, opponent kings, own pieces threatened by the opponent, opponent pieces threatened by own), always
from the learner's side. The system's four modules are the four classes below:

- :class:`PerformanceSystem` plays with V̂: it moves to the successor board of highest V̂ (one ply of lookahead; a
  successor that ends the game is worth +100, −100 or 0).
- :class:`Critic` turns a game's trace into training examples: V_train(b) = V̂(Successor(b)), and +100 (won), −100
  (lost) or 0 (drawn) for the final board. The trace holds the boards the learner's moves led to, the very boards its
  performance system compares, so Successor(b) is the board its next move led to (or the final board). Valuing the
  boards where the learner is to move instead would teach V̂ on positions the performance system never scores: its
  own threatened pieces (x5) matter little when it is to move and a lot when the opponent is.
- :class:`Generalizer` updates the weights with the LMS rule wi ← wi + η(V_train(b) − V̂(b))·xi (x0 = 1).
- :class:`ExperimentGenerator` sets up the next training game: the start position, and how often the performance system
  explores with a random move instead of the best one (ε).

Training plays games against itself (the training experience: self-play) or another level, see :mod:`ai.training`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ai.learners import FrozenPlayer, argmax, epsilon_greedy, result_for, schedule_value, shipped_model
from ai.learners.features import lms_features
from core import Board, Color, Move, Outcome

NAME = "lms"

INITIAL_WEIGHTS: tuple[float, ...] = (0.5, 1.0, -1.0, 2.0, -0.5, -1.0, 1.5)
"""The weights w0..w6 training starts from: those of the worked example of the LMS rule (see ``docs/ai.md``)."""
WIN, LOSS, DRAW = 100.0, -100.0, 0.0
"""V(b) of a final board: won, lost, drawn."""
ETA = 0.002
"""Learning rate η at the start of training (it decays to :data:`ETA_END`). The source's worked example uses 0.1; with
raw piece counts up to 12 and final values of ±100, LMS needs η·|x|² < 2 to stay stable, hence the smaller rate."""
ETA_END = 0.0002
EPSILON = 0.15
"""Probability of an exploring random move at the start of training (it decays to :data:`EPSILON_END`)."""
EPSILON_END = 0.02

Features = tuple[float, ...]


@dataclass
class LinearModel:
    """The weights w0..w6 of V̂."""

    weights: list[float] = field(default_factory=lambda: list(INITIAL_WEIGHTS))

    def value(self, x: Features) -> float:
        """V̂ = Σ wi·xi (with x0 = 1 for w0)."""
        return sum(w * xi for w, xi in zip(self.weights, x, strict=True))

    def to_model(self) -> dict[str, Any]:
        return {"weights": [round(w, 6) for w in self.weights]}

    @classmethod
    def from_model(cls, model: dict[str, Any] | None) -> LinearModel:
        if not model or "weights" not in model:
            return cls()
        weights = [float(w) for w in model["weights"]]
        if len(weights) != len(INITIAL_WEIGHTS):
            raise ValueError(f"an lms model has {len(INITIAL_WEIGHTS)} weights, not {len(weights)}")
        return cls(weights)


def final_value(outcome: Outcome, color: Color) -> float:
    """V(b) of a final board for ``color``: +100 won, −100 lost, 0 drawn."""
    return (DRAW, WIN, LOSS)[result_for(outcome, color)]


class PerformanceSystem:
    """Plays with V̂: the move to the successor of highest value (one ply of lookahead)."""

    def __init__(self, model: LinearModel) -> None:
        self.model = model

    def successor_values(self, board: Board, moves: Sequence[Move], color: Color) -> list[float]:
        """V̂ of the board after each move, for ``color`` (the side to move); exact ±100/0 where the move ends the
        game."""
        out = []
        for move in moves:
            board.push(move)
            try:
                outcome = board.outcome()
                if outcome is not None:
                    out.append(final_value(outcome, color))
                else:
                    out.append(self.model.value(lms_features(board, color)))
            finally:
                board.pop()
        return out

    def choose(self, board: Board, rng: random.Random, epsilon: float = 0.0) -> tuple[Move, float]:
        """The move to play (a random one with probability ``epsilon``) and the value of its successor."""
        moves = board.legal_moves
        values = self.successor_values(board, moves, board.turn)
        index = epsilon_greedy(values, epsilon, rng) if epsilon else argmax(values, rng)
        return moves[index], values[index]


class Critic:
    """Training examples (b, V_train(b)) from a game's trace."""

    def __init__(self, model: LinearModel) -> None:
        self.model = model

    def v_train(self, successor: Features) -> float:
        """V_train(b) = V̂(Successor(b))."""
        return self.model.value(successor)

    def examples(self, trace: Sequence[Features], final: Features, final_v: float) -> list[tuple[Features, float]]:
        """One example for each board of ``trace`` (each the board a move of the learner led to), whose successor is
        the next board of the trace or, for the last one, the final board valued ``final_v``; and the final board with
        ``final_v``."""
        out = []
        for i, x in enumerate(trace):
            target = self.v_train(trace[i + 1]) if i + 1 < len(trace) else final_v
            out.append((x, target))
        out.append((final, final_v))
        return out


class Generalizer:
    """The LMS weight update."""

    def __init__(self, eta: float = ETA) -> None:
        self.eta = eta

    def update(self, model: LinearModel, x: Features, v_train: float, v_hat: float | None = None) -> float:
        """wi ← wi + η·(V_train(b) − V̂(b))·xi for every i; ``v_hat`` is V̂(b) (computed from the weights if not given,
        as the source's worked example gives it). Returns the error V_train − V̂."""
        predicted = model.value(x) if v_hat is None else v_hat
        error = v_train - predicted
        step = self.eta * error
        model.weights = [w + step * xi for w, xi in zip(model.weights, x, strict=True)]
        return error


class ExperimentGenerator:
    """The next training game: its start position and how much the performance system explores."""

    def __init__(self, epsilon: float = EPSILON) -> None:
        self.epsilon = epsilon

    def new_game(self, variant: str) -> Board:
        """The start position of ``variant``: every training game is a whole game from the start."""
        return Board(variant=variant)


class LmsEpisode:
    """One side's game: the trace of its boards, handed to the critic and the generalizer at the end."""

    def __init__(self, learner: LmsLearner, color: Color) -> None:
        self.learner = learner
        self.color = color
        self.trace: list[Features] = []

    def act(self, board: Board, rng: random.Random) -> Move:
        learner = self.learner
        move, _ = learner.performance.choose(board, rng, learner.generator.epsilon)
        board.push(move)
        self.trace.append(lms_features(board, self.color))
        board.pop()
        return move

    def finish(self, board: Board, outcome: Outcome) -> None:
        learner = self.learner
        examples = learner.critic.examples(
            self.trace, lms_features(board, self.color), final_value(outcome, self.color)
        )
        for x, target in examples:
            learner.generalizer.update(learner.model, x, target)
        self.trace = []


class LmsLearner:
    """The learning system: the model and its four modules."""

    name = NAME

    def __init__(self, model: LinearModel | None = None) -> None:
        self.model = model if model is not None else LinearModel()
        self.performance = PerformanceSystem(self.model)
        self.critic = Critic(self.model)
        self.generalizer = Generalizer()
        self.generator = ExperimentGenerator()

    def new_game(self, variant: str) -> Board:
        return self.generator.new_game(variant)

    def episode(self, color: Color) -> LmsEpisode:
        return LmsEpisode(self, color)

    def schedule(self, progress: float) -> None:
        self.generalizer.eta = schedule_value(ETA, ETA_END, progress)
        self.generator.epsilon = schedule_value(EPSILON, EPSILON_END, progress)

    def player(self) -> LmsPlayer:
        return LmsPlayer(LinearModel(list(self.model.weights)))

    def to_model(self) -> dict[str, Any]:
        return self.model.to_model()


class LmsPlayer(FrozenPlayer[LinearModel]):
    """The greedy ``lms`` player (the performance system with frozen weights)."""

    def best(self, model: LinearModel, board: Board, rng: random.Random) -> tuple[Move, float]:
        return PerformanceSystem(model).choose(board, rng)

    def parse(self, model: dict[str, Any] | None) -> LinearModel:
        return LinearModel.from_model(model)

    def load_shipped(self, variant: str) -> LinearModel:
        return LinearModel.from_model(shipped_model(NAME, variant))
