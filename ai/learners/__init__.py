"""The learning players: three reinforcement learners (``docs/ai.md`` tells whose ideas they follow).

- ``qlearning`` (:mod:`ai.learners.qlearning`): values of transitions between abstract states.
- ``lms`` (:mod:`ai.learners.lms`): a linear board evaluation V̂(b) fitted by the LMS rule.
- ``sarsa`` (:mod:`ai.learners.sarsa`): linear SARSA over state-action features.

Each learner has two faces. The *player* (a :class:`ai.player.Player`) plays greedily from frozen weights; by default it
loads the weights shipped in ``ai/data/weights/<name>.json``. The *learner* (:class:`Learner`) owns weights that
change: :mod:`ai.training` gives it one :class:`Episode` per side and game (two in self-play, sharing the weights), asks
the episode for a move whenever its side is to move, and tells it when the game is over.

A weights file is JSON: ``{"learner": name, "format": 1, "models": {variant: model}}``; each model is the learner's
own dictionary (it keeps a ``"meta"`` entry on how it was trained). A player on a variant with no model of its own
uses the ``american`` model, and with no file at all an untrained one. A player given the models of a weights file
(:func:`read_weights`, as ``kingme train`` writes them) plays those instead of the shipped ones.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from ai.player import Limits, Player, SearchResult
from core import Board, Color, Move, Outcome

T = TypeVar("T")
M = TypeVar("M")

WEIGHTS_FORMAT = 1
FALLBACK_VARIANT = "american"


class Episode(Protocol):
    """One side of one training game."""

    def act(self, board: Board, rng: random.Random) -> Move:
        """The move to play (the side is to move in ``board``, which has a legal move); learn from what happened since
        the side's last move. ``board`` must be left as it was."""
        ...

    def finish(self, board: Board, outcome: Outcome) -> None:
        """The game is over in ``board``: make the final update."""
        ...


class Learner(Protocol):
    """Weights being learnt, and how to play training games with them."""

    name: str

    def new_game(self, variant: str) -> Board:
        """The board a training game starts from."""
        ...

    def episode(self, color: Color) -> Episode:
        """A new game's episode for ``color``."""
        ...

    def schedule(self, progress: float) -> None:
        """Set the exploration and learning rates for the point ``progress`` (0 to 1) of the training run."""
        ...

    def player(self) -> Player:
        """A greedy player with a frozen copy of the current weights."""
        ...

    def to_model(self) -> dict[str, Any]:
        """The weights as JSON-able data (the value of one variant in a weights file's ``models``)."""
        ...


_SHIPPED: dict[tuple[type, str], Any] = {}
"""The shipped weights by player class and variant, loaded once per process and shared by the players (which never
change them)."""


class FrozenPlayer(Generic[M]):
    """A learner's level: it plays greedily with frozen weights of type ``M``, its own or, by default, the weights
    shipped for the variant."""

    def __init__(self, model: M | None = None, *, models: Mapping[str, dict[str, Any]] | None = None) -> None:
        """``model``: the weights for every variant; ``models``: a weights file's models by variant (see
        :func:`read_weights`); neither: the shipped weights."""
        self._model = model
        self._models = models

    def model_for(self, variant: str) -> M:
        """The weights it plays ``variant`` with."""
        if self._model is not None:
            return self._model
        if self._models is not None:
            self._model = self.parse(self._models.get(variant, self._models.get(FALLBACK_VARIANT)))
            return self._model
        key = (type(self), variant)
        if key not in _SHIPPED:
            _SHIPPED[key] = self.load_shipped(variant)
        model: M = _SHIPPED[key]
        return model

    def best(self, model: M, board: Board, rng: random.Random) -> tuple[Move, float]:
        """The move to play in ``board`` with ``model`` and its learnt value (``board`` left as it was)."""
        raise NotImplementedError

    def load_shipped(self, variant: str) -> M:
        """The shipped weights for ``variant`` (or untrained ones if there are none)."""
        raise NotImplementedError

    def parse(self, model: dict[str, Any] | None) -> M:
        """The weights of one model of a weights file (untrained ones for None)."""
        raise NotImplementedError

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        move, value = self.best(self.model_for(board.variant.name), board, rng)
        text = move.text()
        return SearchResult(move=text, score=value, depth=1, pv=(text,), nodes=len(board.legal_moves))


def argmax(values: Sequence[float], rng: random.Random) -> int:
    """The index of the largest value, ties broken at random with ``rng`` (which is not used when there is no tie)."""
    best = max(values)
    ties = [i for i, v in enumerate(values) if v >= best - 1e-12]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


def epsilon_greedy(values: Sequence[float], epsilon: float, rng: random.Random) -> int:
    """A random index with probability ``epsilon``, else :func:`argmax`."""
    if epsilon > 0.0 and len(values) > 1 and rng.random() < epsilon:
        return rng.randrange(len(values))
    return argmax(values, rng)


def result_for(outcome: Outcome, color: Color) -> int:
    """+1 if ``color`` won, −1 if it lost, 0 for a draw."""
    if outcome.winner is None:
        return 0
    return 1 if outcome.winner is color else -1


def schedule_value(start: float, end: float, progress: float) -> float:
    """Linear interpolation from ``start`` (progress 0) to ``end`` (progress 1)."""
    progress = min(1.0, max(0.0, progress))
    return start + (end - start) * progress


@cache
def _shipped_file(name: str) -> dict[str, Any]:
    try:
        text = resources.files("ai").joinpath("data", "weights", f"{name}.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def shipped_model(name: str, variant: str) -> dict[str, Any] | None:
    """The shipped model of learner ``name`` for ``variant`` (or the ``american`` one), or None if there is none."""
    models = _shipped_file(name).get("models", {})
    if not isinstance(models, dict):
        return None
    model = models.get(variant, models.get(FALLBACK_VARIANT))
    return model if isinstance(model, dict) else None


def weights_document(name: str, models: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A weights file's content."""
    return {"learner": name, "format": WEIGHTS_FORMAT, "models": models}


class WeightsFileError(ValueError):
    """A weights file that cannot be read, or that holds another learner's weights."""


def read_weights(path: Path, learner: str) -> dict[str, dict[str, Any]]:
    """The models by variant of the ``learner`` weights file at ``path``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WeightsFileError(f"cannot read the weights file {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise WeightsFileError(f"{path} is not a weights file: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise WeightsFileError(f"{path} is not a weights file")
    if data.get("learner") != learner:
        raise WeightsFileError(f"{path} holds {data.get('learner')} weights, not {learner} weights")
    return {str(variant): model for variant, model in data["models"].items() if isinstance(model, dict)}


def move_by_text(board: Board, text: str) -> Move:
    """The legal move whose PDN text is ``text`` (falling back to the board's parser for other spellings)."""
    for move in board.legal_moves:
        if move.text() == text:
            return move
    return board.parse_move(text)


def successors(board: Board, moves: Sequence[Move], measure: Callable[[Board], T]) -> list[T]:
    """``measure(board)`` after each move (pushed, measured and popped in turn)."""
    out: list[T] = []
    for move in moves:
        board.push(move)
        try:
            out.append(measure(board))
        finally:
            board.pop()
    return out
