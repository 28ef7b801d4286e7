"""A person's own puzzles: the positions of their finished games where the review found a blunder of theirs.

When a game's review is first computed (``/checkers analyse``, the Analyse button), each blunder of a person (not of
an AI) in an English-draughts game becomes a puzzle of theirs: the position before the blunder, the solver to move,
and the review's better move as the solution (one move: the review proves that move better, not that its line's later
moves are the only ones). They are served by ``/checkers puzzle source:mine``, not rated.
"""

from __future__ import annotations

import hashlib

from ai.puzzles import Puzzle
from ai.review import GameReview, Judgement
from bot.service._ids import UserId
from bot.service._models import GameState, replayed

VARIANT = "american"
"""The puzzles' rules (the shipped set's): blunders of other variants are not kept."""


def own_puzzles(game: GameState, review: GameReview) -> dict[UserId, list[Puzzle]]:
    """The puzzles each person of ``game`` gets from its review."""
    found: dict[UserId, list[Puzzle]] = {}
    if game.variant != VARIANT:
        return found
    for moment in review.moves:
        if moment.judgement is not Judgement.BLUNDER or moment.best is None:
            continue
        before = game.moves[: moment.ply - 1]
        board = replayed(game.initial_fen, game.variant, before)
        player = game.player(board.turn)
        if player.is_ai:
            continue
        fen = board.fen()
        pid = "m" + hashlib.sha256(fen.encode()).hexdigest()[:7]
        result = moment.threw_away if moment.threw_away in ("win", "draw") else "win"
        margin = max(0, round(moment.loss * 1000))
        puzzle = Puzzle(pid, fen, (moment.best,), (), 0, str(result), margin, 0, review.nodes)
        found.setdefault(UserId(player.id), []).append(puzzle)
    return found
