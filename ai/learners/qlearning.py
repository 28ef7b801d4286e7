"""``qlearning``: a reinforcement learner, Q-learning over transitions between abstract states.

A board is reduced to seven characteristics (:func:`ai.learners.features.q_state`, from the learner's own point of
view). The learner keeps a value T(s, s') for each *transition* from the state s it is to move in to the state s' its
move leads to, in a dictionary of the transitions it has discovered (an unknown transition is worth 0). It moves to the
transition of highest value (:func:`greedy`); while training it moves at random with probability ε.

With s_n the state before its move, s_{n+1} the state after it, and s_{n+2} the state at its next turn (after the
opponent's reply), its two updates are, with R the reward of :func:`reward`:

- just before its turn, if it has moved before in this game and the game is not over (:func:`q_update`)::

      T(s_n, s_{n+1}) ← T(s_n, s_{n+1}) + α (R(s_n, s_{n+2}) + λ max_m T(s_{n+2}, s_m) − T(s_n, s_{n+1}))

  where m runs over the moves it can make in s_{n+2};
- when the game is over, with s_{n+2} the final state (:func:`q_terminal_update`)::

      T(s_n, s_{n+1}) ← T(s_n, s_{n+1}) + α R(s_n, s_{n+2})

The abstraction is coarse: on average only about two different transitions are open from a position, so several moves
usually share the highest value (they lead to the same state) and the method does not say which to play. Picking one at
random (as this level first did) often leaves a piece to be taken, and the level won only about 73% of its games
against ``easy``. Among the moves of highest value :func:`greedy` prefers the one after which the opponent's best
transition, valued by the same table, is worth least; the value of the move itself still comes first, and nothing
looks further than the opponent's reply. That tie-break is used in training as well as in play.

Training (see :mod:`ai.training`) keeps these formulas and lets α decay: the n-th update of a transition uses
α = max(:data:`ALPHA_FLOOR`, 1/n), so each value is the running average of its targets (a table that does not count
its updates uses the fixed :data:`ALPHA`). ε falls from :data:`EPSILON` to :data:`EPSILON_END` over the run. The
shipped tables (:data:`SHIPPED_FILE`) were learnt with::

    kingme train qlearning --games 20000 --seed 4 --opponent self,easy --eval-games 0 --out qlearning.json
    kingme train qlearning --games 10000 --seed 4 --opponent self,easy --eval-games 0 --out qlearning.json \
        --variant mini
    gzip -9n qlearning.json   # then move qlearning.json.gz to ai/data/weights/

and the ``american`` one scores about 90% against ``easy`` (see the tests).
"""

from __future__ import annotations

import gzip
import json
import math
import random
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ai.learners import FALLBACK_VARIANT, FrozenPlayer, schedule_value, shipped_model, successors
from ai.learners.features import QState, q_state
from core import Board, Color, Move, Outcome

NAME = "qlearning"

ALPHA = 0.1
"""Learning rate α of a table that does not count its updates (see :attr:`QTable.visit_rate`)."""
ALPHA_FLOOR = 0.0
"""The least α of an update in training, where the n-th update of a transition has α = max(ALPHA_FLOOR, 1/n)."""
LAMBDA = 0.99
"""Discount rate λ."""
EPSILON = 0.2
"""Probability of a random move at the start of training (it decays to :data:`EPSILON_END`)."""
EPSILON_END = 0.02
VISIT_RATE = True
"""Whether training uses the per-transition rate of :meth:`QTable.rate`."""
DECIMALS = 2
"""A model keeps each value rounded to this many decimals (the rewards are whole pieces)."""
MIN_UPDATES = 2
"""A model keeps only the transitions updated at least this often in training (when the table counts its updates):
a value learnt from a single target is mostly noise, and leaving these out makes the shipped table several times
smaller for a few points of score against ``easy``."""
SHIPPED_FILE = f"{NAME}.json.gz"
"""The shipped weights: a weights file (see :mod:`ai.learners`) compressed with gzip, in ``ai/data/weights``."""

Transition = tuple[QState, QState]


def reward(before: QState, after: QState) -> float:
    """The reward R(s_a, s_b) = ΔU_s − ΔU_o + 2(ΔK_s − ΔK_o): U are men, K kings, s own and o the opponent's, and Δ
    the change from ``before`` to ``after``."""
    d_own_men = after[0] - before[0]
    d_opp_men = after[1] - before[1]
    d_own_kings = after[2] - before[2]
    d_opp_kings = after[3] - before[3]
    return float(d_own_men - d_opp_men + 2 * (d_own_kings - d_opp_kings))


def q_update(value: float, r: float, best_next: float, alpha: float, lam: float) -> float:
    """The non-terminal update: T + α(R + λ·max_m T(s_{n+2}, s_m) − T)."""
    return value + alpha * (r + lam * best_next - value)


def q_terminal_update(value: float, r: float, alpha: float) -> float:
    """The terminal update: T + α·R."""
    return value + alpha * r


@dataclass
class QTable:
    """The transition values T and the rates used to learn them."""

    values: dict[Transition, float] = field(default_factory=dict)
    alpha: float = ALPHA
    lam: float = LAMBDA
    epsilon: float = EPSILON
    visit_rate: bool = False
    """Use α = max(alpha, 1/n) for the n-th update of a transition (a per-transition decaying rate: the values become
    running averages of their targets early on, and ``alpha`` is the floor)."""
    visits: dict[Transition, int] = field(default_factory=dict)

    def value(self, transition: Transition) -> float:
        return self.values.get(transition, 0.0)

    def rate(self, transition: Transition) -> float:
        """The learning rate α for the next update of ``transition`` (and count the update)."""
        if not self.visit_rate:
            return self.alpha
        n = self.visits.get(transition, 0) + 1
        self.visits[transition] = n
        return max(self.alpha, 1.0 / n)

    def discover(self, state: QState, nexts: list[QState]) -> list[float]:
        """Add the transitions from ``state`` to each of ``nexts`` that are not known yet (value 0); their values."""
        values = self.values
        out = []
        for nxt in nexts:
            key = (state, nxt)
            v = values.get(key)
            if v is None:
                values[key] = v = 0.0
            out.append(v)
        return out

    def to_model(self) -> dict[str, Any]:
        """``{"transitions": {s: {s': T}}}``, each state written as its seven characteristics joined by commas, in
        order. Values are rounded to :data:`DECIMALS`; transitions worth 0 once rounded are left out (an unknown
        transition is worth 0 anyway), and so are those updated fewer than :data:`MIN_UPDATES` times when the table
        counts its updates."""
        counted = bool(self.visits)
        nested: dict[str, dict[str, float]] = {}
        for (s, t), v in sorted(self.values.items()):
            rounded = round(v, DECIMALS)
            if rounded == 0.0 or (counted and self.visits.get((s, t), 0) < MIN_UPDATES):
                continue
            nested.setdefault(_key(s), {})[_key(t)] = rounded
        return {"alpha": self.alpha, "lambda": self.lam, "transitions": nested}

    @classmethod
    def from_model(cls, model: dict[str, Any] | None) -> QTable:
        table = cls()
        if not model:
            return table
        for s, row in model.get("transitions", {}).items():
            state = _state(s)
            for t, v in row.items():
                table.values[(state, _state(t))] = float(v)
        return table


def _key(state: QState) -> str:
    return ",".join(str(x) for x in state)


def _state(key: str) -> QState:
    a, b, c, d, e, f, g = (int(x) for x in key.split(","))
    return (a, b, c, d, e, f, g)


TIE = 1e-12
"""Values closer than this are equal."""


def reply_value(table: QTable, board: Board, color: Color) -> float:
    """The value of the opponent's best reply transition in ``board``, where ``color`` has just moved: the largest
    T(s', s'') over the opponent's moves, its states seen from its own side (the table is colour-independent, so it
    values the opponent's transitions as it values its own). A finished game has no reply: −∞ if ``color`` has won,
    +∞ if it has lost, and 0 (the value of an unknown transition) for a draw."""
    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return -math.inf if outcome.winner is color else math.inf
    opponent = color.opponent
    state = q_state(board, opponent)
    nexts = successors(board, board.legal_moves, lambda b: q_state(b, opponent))
    return max(table.value((state, nxt)) for nxt in nexts)


def greedy(table: QTable, board: Board, moves: list[Move], values: list[float], rng: random.Random) -> int:
    """The greedy choice: the index of a move whose transition has the highest value.

    Several moves often share that value, mostly because they lead to the same abstract state (about two different
    transitions are open from a position on average). The method does not say how to choose among them; they are told
    apart by :func:`reply_value`, the smaller the better (the move after which the opponent's best transition is worth
    least to the opponent), and what is still tied at random with ``rng``. A move with a higher transition value is
    always preferred, whatever its reply value.
    """
    best = max(values)
    ties = [i for i, v in enumerate(values) if v >= best - TIE]
    if len(ties) > 1:
        color = board.turn
        replies = []
        for i in ties:
            board.push(moves[i])
            try:
                replies.append(reply_value(table, board, color))
            finally:
                board.pop()
        least = min(replies)
        ties = [i for i, r in zip(ties, replies, strict=True) if r <= least + TIE]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


class QEpisode:
    """One side's game: remembers (s_n, s_{n+1}) to update when s_{n+2} is known."""

    def __init__(self, table: QTable, color: Color) -> None:
        self.table = table
        self.color = color
        self.last: Transition | None = None

    def act(self, board: Board, rng: random.Random) -> Move:
        table = self.table
        color = self.color
        state = q_state(board, color)
        moves = board.legal_moves
        nexts = successors(board, moves, lambda b: q_state(b, color))
        values = table.discover(state, nexts)
        if self.last is not None:
            # Directly before its turn, having moved before and the game not over.
            old = table.value(self.last)
            alpha = table.rate(self.last)
            table.values[self.last] = q_update(old, reward(self.last[0], state), max(values), alpha, table.lam)
        if table.epsilon > 0.0 and len(values) > 1 and rng.random() < table.epsilon:
            index = rng.randrange(len(values))
        else:
            index = greedy(table, board, moves, values, rng)
        self.last = (state, nexts[index])
        return moves[index]

    def finish(self, board: Board, outcome: Outcome) -> None:
        if self.last is None:
            return
        final = q_state(board, self.color)
        old = self.table.value(self.last)
        alpha = self.table.rate(self.last)
        self.table.values[self.last] = q_terminal_update(old, reward(self.last[0], final), alpha)
        self.last = None


class QLearner:
    """The Q-learner: a :class:`QTable` shared by the episodes of its games."""

    name = NAME

    def __init__(self, table: QTable | None = None) -> None:
        if table is None:
            table = QTable(alpha=ALPHA_FLOOR if VISIT_RATE else ALPHA, lam=LAMBDA, visit_rate=VISIT_RATE)
        self.table = table

    def new_game(self, variant: str) -> Board:
        return Board(variant=variant)

    def episode(self, color: Color) -> QEpisode:
        return QEpisode(self.table, color)

    def schedule(self, progress: float) -> None:
        self.table.alpha = ALPHA_FLOOR if self.table.visit_rate else ALPHA
        self.table.epsilon = schedule_value(EPSILON, EPSILON_END, progress)

    def player(self) -> QLearningPlayer:
        return QLearningPlayer(QTable(dict(self.table.values), self.table.alpha, self.table.lam, 0.0))

    def to_model(self) -> dict[str, Any]:
        return self.table.to_model()


class QLearningPlayer(FrozenPlayer[QTable]):
    """The greedy ``qlearning`` player: the move whose transition has the highest value (unknown ones are worth 0)."""

    def best(self, model: QTable, board: Board, rng: random.Random) -> tuple[Move, float]:
        color = board.turn
        state = q_state(board, color)
        moves = board.legal_moves
        nexts = successors(board, moves, lambda b: q_state(b, color))
        values = [model.value((state, nxt)) for nxt in nexts]
        index = greedy(model, board, moves, values, rng)
        return moves[index], values[index]

    def parse(self, model: dict[str, Any] | None) -> QTable:
        return QTable.from_model(model)

    def load_shipped(self, variant: str) -> QTable:
        return QTable.from_model(load_shipped_model(variant))


@cache
def _shipped_models() -> dict[str, Any]:
    """The models of :data:`SHIPPED_FILE` by variant (empty if there is no such file)."""
    try:
        packed = resources.files("ai").joinpath("data", "weights", SHIPPED_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return {}
    data = json.loads(gzip.decompress(packed))
    models = data.get("models") if isinstance(data, dict) else None
    return models if isinstance(models, dict) else {}


def load_shipped_model(variant: str) -> dict[str, Any] | None:
    """The shipped model for ``variant`` (or the ``american`` one) from :data:`SHIPPED_FILE`, falling back to an
    uncompressed ``qlearning.json`` as the other learners ship theirs; None if there is none."""
    models = _shipped_models()
    if not models:
        return shipped_model(NAME, variant)
    model = models.get(variant, models.get(FALLBACK_VARIANT))
    return model if isinstance(model, dict) else None
