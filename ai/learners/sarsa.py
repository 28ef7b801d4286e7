"""``sarsa``: a reinforcement learner, linear SARSA over eight state-action features.

Q(s, a) = w·φ(s, a), with φ the features of :func:`ai.learners.features.sarsa_features`: agent men, agent kings,
opponent men and opponent kings in s; the change from s to s' (the board after action a) in opponent men, opponent kings
and opponent pieces; and the agent's pieces attacked by the opponent in s'.

**Normalisation.** Every feature is divided by the number of men a side starts with (12, or 6 on the mini board), so
each lies in [−1, 1]. Q stays linear in the original features (this only rescales the weights), but the step size no
longer depends on the board size and the update is stable with rewards of ±500.

The agent acts in s, the opponent replies in s', and the agent is to move again in s''. The reward of (s, a)
(:func:`reward`) is:

- −0.4 × (agent men in s − agent men in s''), −0.5 × (agent kings in s − agent kings in s''),
  +0.2 × (opponent men in s − opponent men in s''), +0.3 × (opponent kings in s − opponent kings in s'');
- +500 if the agent has won in s' or s'', −500 if it has lost;
- a living reward of −0.1 if all of the above are 0 (each term, not their sum).

Then (:func:`sarsa_update`), with a'' the action chosen in s'' (ε-greedy while training)::

    w ← w + α (r + γ Q(s'', a'') − Q(s, a)) φ(s, a)

and at the end of the game, where there is no s'' to act in, Q(s'', a'') = 0.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ai.learners import FrozenPlayer, argmax, epsilon_greedy, result_for, schedule_value, shipped_model
from ai.learners.features import men_kings, sarsa_features_after
from core import Board, Color, Move, Outcome

NAME = "sarsa"
N_FEATURES = 8

ALPHA = 0.01
"""Learning rate α at the start of training (it decays to :data:`ALPHA_END`)."""
ALPHA_END = 0.001
GAMMA = 0.9
"""Discount γ."""
EPSILON = 0.2
"""Probability of a random action at the start of training (it decays to :data:`EPSILON_END`)."""
EPSILON_END = 0.02
WIN_REWARD = 500.0
LIVING_REWARD = -0.1

Counts = tuple[int, int, int, int]
"""(agent men, agent kings, opponent men, opponent kings)."""
Features = tuple[float, ...]


def counts(board: Board, color: Color) -> Counts:
    own_men, own_kings = men_kings(board, color)
    opp_men, opp_kings = men_kings(board, color.opponent)
    return own_men, own_kings, opp_men, opp_kings


def reward(s: Counts, s2: Counts, result: int = 0) -> float:
    """The reward of an action taken in s, the agent being next to move in s'' (``s2``); ``result`` is +1 if
    the agent has won in s' or s'', −1 if it has lost, 0 otherwise. The living reward applies when every term is 0
    (terms that cancel out, such as a man lost for two taken, give a reward of 0, not the living reward)."""
    terms = (
        -0.4 * (s[0] - s2[0]),
        -0.5 * (s[1] - s2[1]),
        +0.2 * (s[2] - s2[2]),
        +0.3 * (s[3] - s2[3]),
        WIN_REWARD * result,
    )
    if not any(terms):
        return LIVING_REWARD
    return sum(terms)


def q_value(weights: Sequence[float], phi: Features) -> float:
    """Q(s, a) = w·φ(s, a)."""
    return sum(w * x for w, x in zip(weights, phi, strict=True))


def sarsa_update(
    weights: Sequence[float], phi: Features, r: float, q_next: float, alpha: float, gamma: float
) -> list[float]:
    """The update w ← w + α(r + γ·Q(s'', a'') − Q(s, a))·φ(s, a), with Q(s, a) = w·φ; the new weights."""
    delta = r + gamma * q_next - q_value(weights, phi)
    return [w + alpha * delta * x for w, x in zip(weights, phi, strict=True)]


def action_features(board: Board, moves: Sequence[Move], color: Color) -> list[Features]:
    """φ(s, a) for each action a in s = ``board``, each feature divided by the men a side starts with (see the
    module's note on normalisation)."""
    g = board.variant.geometry
    scale = 1.0 / (g.start_rows * g.per_row)
    s = counts(board, color)
    out = []
    for move in moves:
        board.push(move)
        try:
            out.append(tuple(x * scale for x in sarsa_features_after(s, board, color)))
        finally:
            board.pop()
    return out


@dataclass
class SarsaModel:
    """The weight vector w and the rates used to learn it."""

    weights: list[float] = field(default_factory=lambda: [0.0] * N_FEATURES)
    alpha: float = ALPHA
    gamma: float = GAMMA
    epsilon: float = EPSILON

    def to_model(self) -> dict[str, Any]:
        return {"weights": [round(w, 6) for w in self.weights], "gamma": self.gamma, "scale": "men per side"}

    @classmethod
    def from_model(cls, model: dict[str, Any] | None) -> SarsaModel:
        if not model or "weights" not in model:
            return cls()
        weights = [float(w) for w in model["weights"]]
        if len(weights) != N_FEATURES:
            raise ValueError(f"a sarsa model has {N_FEATURES} weights, not {len(weights)}")
        return cls(weights, gamma=float(model.get("gamma", GAMMA)))


class SarsaEpisode:
    """One side's game: remembers φ(s, a) and the counts of s until s'' and a'' are known."""

    def __init__(self, model: SarsaModel, color: Color) -> None:
        self.model = model
        self.color = color
        self.last: tuple[Features, Counts] | None = None

    def act(self, board: Board, rng: random.Random) -> Move:
        model = self.model
        moves = board.legal_moves
        phis = action_features(board, moves, self.color)
        values = [q_value(model.weights, phi) for phi in phis]
        index = epsilon_greedy(values, model.epsilon, rng)
        now = counts(board, self.color)
        if self.last is not None:
            phi, before = self.last
            model.weights = sarsa_update(
                model.weights, phi, reward(before, now), values[index], model.alpha, model.gamma
            )
        self.last = (phis[index], now)
        return moves[index]

    def finish(self, board: Board, outcome: Outcome) -> None:
        if self.last is None:
            return
        model = self.model
        phi, before = self.last
        r = reward(before, counts(board, self.color), result_for(outcome, self.color))
        model.weights = sarsa_update(model.weights, phi, r, 0.0, model.alpha, model.gamma)
        self.last = None


class SarsaLearner:
    """The SARSA learner: a :class:`SarsaModel` shared by the episodes of its games."""

    name = NAME

    def __init__(self, model: SarsaModel | None = None) -> None:
        self.model = model if model is not None else SarsaModel()

    def new_game(self, variant: str) -> Board:
        return Board(variant=variant)

    def episode(self, color: Color) -> SarsaEpisode:
        return SarsaEpisode(self.model, color)

    def schedule(self, progress: float) -> None:
        self.model.alpha = schedule_value(ALPHA, ALPHA_END, progress)
        self.model.epsilon = schedule_value(EPSILON, EPSILON_END, progress)

    def player(self) -> SarsaPlayer:
        return SarsaPlayer(SarsaModel(list(self.model.weights), gamma=self.model.gamma, epsilon=0.0))

    def to_model(self) -> dict[str, Any]:
        return self.model.to_model()


class SarsaPlayer(FrozenPlayer[SarsaModel]):
    """The greedy ``sarsa`` player: the action of highest Q(s, a)."""

    def best(self, model: SarsaModel, board: Board, rng: random.Random) -> tuple[Move, float]:
        moves = board.legal_moves
        values = [q_value(model.weights, phi) for phi in action_features(board, moves, board.turn)]
        index = argmax(values, rng)
        return moves[index], values[index]

    def parse(self, model: dict[str, Any] | None) -> SarsaModel:
        return SarsaModel.from_model(model)

    def load_shipped(self, variant: str) -> SarsaModel:
        return SarsaModel.from_model(shipped_model(NAME, variant))
