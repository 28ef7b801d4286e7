"""Training the learners (:mod:`ai.learners`) and measuring them against other levels.

:func:`train` plays ``games`` training games and returns the learnt weights with a learning curve: every
``eval_every`` games, the learner's player with the weights of the moment plays a few games against ``easy`` and
``greedy``. Everything random comes from one ``random.Random(seed)``, so the same arguments give the same weights (as
long as the training opponents are themselves deterministic for a given generator: self-play and ``easy`` are).

The opponent of a training game is ``self`` (self-play: both sides are episodes of the learner, sharing its weights) or
the name of a level; a comma-separated list such as ``self,easy`` takes them in turn, one game each. The learner plays
Black in even games and White in odd ones.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ai.learners import Episode, Learner, move_by_text, result_for
from ai.learners.lms import LinearModel, LmsLearner, LmsPlayer
from ai.learners.qlearning import QLearner, QLearningPlayer, QTable
from ai.learners.sarsa import SarsaLearner, SarsaModel, SarsaPlayer
from ai.levels import UnknownLevelError, get_level, levels, merge_limits
from ai.player import Limits, Player
from core import Board, Color, Move, Outcome, Termination, get_variant

LEARNERS: dict[str, Callable[[], Learner]] = {"qlearning": QLearner, "lms": LmsLearner, "sarsa": SarsaLearner}
"""The learners by level name, each built with its untrained starting weights."""

PLAYERS: dict[str, Callable[[dict[str, Any]], Player]] = {
    "qlearning": lambda model: QLearningPlayer(QTable.from_model(model)),
    "lms": lambda model: LmsPlayer(LinearModel.from_model(model)),
    "sarsa": lambda model: SarsaPlayer(SarsaModel.from_model(model)),
}
"""Greedy players from a model (as :func:`train` returns it), by learner name."""

EVAL_OPPONENTS = ("easy", "greedy")
"""The levels of the learning curve (those not registered are left out)."""
MAX_PLIES = 500
"""A safety net: a game still going after this many plies is scored a draw (the draw rules end games long before)."""

Mover = Callable[[Board], Move]


@dataclass(frozen=True)
class Score:
    """Results of a match from one player's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def score(self) -> float:
        """Points per game: a win 1, a draw ½."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def add(self, result: int) -> Score:
        return Score(self.wins + (result > 0), self.draws + (result == 0), self.losses + (result < 0))


@dataclass(frozen=True)
class CurvePoint:
    """The learner's results after ``games`` training games, by evaluation opponent."""

    games: int
    scores: dict[str, Score] = field(default_factory=dict)

    def win_rates(self) -> dict[str, float]:
        return {name: s.win_rate for name, s in self.scores.items()}


ProgressCallback = Callable[[int, CurvePoint | None], None]
"""Called after each training game with the number of games done, and the curve point if one was measured."""


def learner_names() -> list[str]:
    return list(LEARNERS)


def new_learner(name: str) -> Learner:
    try:
        return LEARNERS[name]()
    except KeyError:
        raise UnknownLevelError(f"unknown learner {name!r}: choose one of {', '.join(LEARNERS)}") from None


def player_from_model(name: str, model: dict[str, Any]) -> Player:
    """The greedy player of learner ``name`` with the weights ``model``."""
    try:
        return PLAYERS[name](model)
    except KeyError:
        raise UnknownLevelError(f"unknown learner {name!r}: choose one of {', '.join(PLAYERS)}") from None


def parse_opponents(spec: str) -> list[str]:
    """The training opponents of ``spec`` (``self``, a level name, or a comma-separated list), checked."""
    names = [part.strip().lower() for part in spec.split(",") if part.strip()]
    if not names:
        raise UnknownLevelError("no training opponent given")
    for name in names:
        if name != "self":
            get_level(name)
    return names


def level_mover(name: str, rng: random.Random) -> Mover:
    """A function playing the level ``name``'s move, drawing its randomness from ``rng``."""
    level = get_level(name)
    player: Player = level.factory()
    limits = merge_limits(level, None)
    return lambda board: move_by_text(board, player.choose(board, limits, rng).move)


def player_mover(player: Player, rng: random.Random, limits: Limits | None = None) -> Mover:
    """A function playing ``player``'s move, drawing its randomness from ``rng``."""
    chosen = limits if limits is not None else Limits()
    return lambda board: move_by_text(board, player.choose(board, chosen, rng).move)


def play(board: Board, movers: dict[Color, Mover], max_plies: int = MAX_PLIES) -> Outcome:
    """Play ``board`` to its end with one mover per side; returns the outcome (a draw after ``max_plies``)."""
    for _ in range(max_plies):
        outcome = board.outcome()
        if outcome is not None:
            return outcome
        board.push(movers[board.turn](board))
    return board.outcome() or Outcome(Termination.MOVE_LIMIT, None)


def episode_mover(episode: Episode, rng: random.Random) -> Mover:
    return lambda board: episode.act(board, rng)


def play_training_game(learner: Learner, opponent: str, board: Board, color: Color, rng: random.Random) -> Outcome:
    """One training game from ``board``: the learner plays ``color`` against ``opponent`` (``self`` or a level)."""
    episodes = {color: learner.episode(color)}
    if opponent == "self":
        episodes[color.opponent] = learner.episode(color.opponent)
    movers: dict[Color, Mover] = {c: episode_mover(e, rng) for c, e in episodes.items()}
    if opponent != "self":
        movers[color.opponent] = level_mover(opponent, rng)
    outcome = play(board, movers)
    for episode in episodes.values():
        episode.finish(board, outcome)
    return outcome


def evaluate(
    player: Player,
    opponent: str,
    games: int,
    variant: str = "american",
    seed: int = 0,
) -> Score:
    """The results of ``games`` games of ``player`` against the level ``opponent``, colours alternated (``player``
    is Black in even games)."""
    rng = random.Random(seed)
    score = Score()
    for game in range(games):
        color = Color.BLACK if game % 2 == 0 else Color.WHITE
        movers = {color: player_mover(player, rng), color.opponent: level_mover(opponent, rng)}
        outcome = play(Board(variant=variant), movers)
        score = score.add(result_for(outcome, color))
    return score


def eval_opponents(names: Sequence[str] = EVAL_OPPONENTS) -> list[str]:
    """The evaluation opponents that are registered."""
    known = levels()
    return [name for name in names if name in known]


def train(
    agent_name: str,
    games: int,
    variant: str = "american",
    seed: int = 0,
    opponent: str = "self",
    eval_every: int = 0,
    on_progress: ProgressCallback | None = None,
    *,
    eval_games: int = 10,
    eval_against: Sequence[str] = EVAL_OPPONENTS,
) -> tuple[dict[str, Any], list[CurvePoint]]:
    """Train the learner ``agent_name`` from its starting weights for ``games`` games of ``variant``.

    Returns the weights (a model for a weights file's ``models``, with a ``meta`` entry) and the learning curve: a
    point before training and every ``eval_every`` games (0: only before and after), each ``eval_games`` games against
    each registered level of ``eval_against``.
    """
    if games < 0:
        raise ValueError("games must be 0 or more")
    variant = get_variant(variant).name
    learner = new_learner(agent_name)
    opponents = parse_opponents(opponent)
    against = eval_opponents(eval_against)
    rng = random.Random(seed)

    def measure(done: int) -> CurvePoint:
        scores = {
            name: evaluate(learner.player(), name, eval_games, variant, seed=seed * 1_000_003 + done)
            for name in against
        }
        return CurvePoint(done, scores)

    curve = [measure(0)] if eval_games > 0 else []
    for game in range(games):
        learner.schedule(game / games)
        color = Color.BLACK if game % 2 == 0 else Color.WHITE
        play_training_game(learner, opponents[game % len(opponents)], learner.new_game(variant), color, rng)
        done = game + 1
        point = None
        due = (eval_every > 0 and done % eval_every == 0) or done == games
        if eval_games > 0 and due and (not curve or curve[-1].games != done):
            point = measure(done)
            curve.append(point)
        if on_progress is not None:
            on_progress(done, point)
    model = learner.to_model()
    model["meta"] = {"games": games, "seed": seed, "opponent": ",".join(opponents), "variant": variant}
    return model, curve
