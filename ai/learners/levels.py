"""The learner levels (seed 000's Q-learning, seed 001's LMS, seed 003's SARSA), each playing greedily with the
weights shipped in ``ai/data/weights``. ``ai.levels`` imports this module to register them."""

from __future__ import annotations

import ai.levels  # noqa: F401  (the built-in levels first: the learners come after them in the registry)
from ai.api import Level, Limits, register
from ai.learners.lms import LmsPlayer
from ai.learners.qlearning import QLearningPlayer
from ai.learners.sarsa import SarsaPlayer

register(
    Level(
        "qlearning",
        "Learnt by Q-learning over seven board characteristics (seed 000); plays the move of highest learnt value.",
        QLearningPlayer,
        Limits(),
        max_time=1.0,
    )
)
register(
    Level(
        "lms",
        "A linear evaluation of pieces, kings and threats learnt by LMS in self-play (seed 001); looks one move ahead.",
        LmsPlayer,
        Limits(),
        max_time=1.0,
    )
)
register(
    Level(
        "sarsa",
        "Learnt by linear SARSA over eight move features (seed 003); plays the move of highest learnt value.",
        SarsaPlayer,
        Limits(),
        max_time=1.0,
    )
)
