"""Game review (``ai/review.py``): a deliberate blunder is found, a forced move is never judged, the same game always
gets the same review, and the thresholds, the result thrown away and the accuracy follow their documented formulas."""

from __future__ import annotations

import random

import pytest

from ai.player import GameInput
from ai.review import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    GameReview,
    Judgement,
    PositionEval,
    evaluate_position,
    expected,
    judge_move,
    move_accuracy,
    review_game,
)
from ai.tt import MATE_BOUND
from core import Board, Color

START = Board().initial_fen
HANGS_A_MAN = ("11-15", "23-19", "12-16", "19x12")
"""Black's 12-16 walks into 19x12 (White's only move) and loses a man for nothing."""


def game(*moves: str, fen: str = START, variant: str = "american") -> GameInput:
    return GameInput(variant, fen, moves)


def test_a_hung_man_is_a_blunder_with_the_better_move_and_its_line() -> None:
    review = review_game(game(*HANGS_A_MAN))
    blunder = review.moves[2]
    assert (blunder.move, blunder.mover, blunder.judgement) == ("12-16", "black", Judgement.BLUNDER)
    assert blunder.loss >= BLUNDER
    assert blunder.best is not None and blunder.best != "12-16"
    assert blunder.line[0] == blunder.best and len(blunder.line) > 1
    board = game(*HANGS_A_MAN[:2]).board()
    for text in blunder.line:  # the line is legal from the position before the blunder
        board.push_text(text)
    assert review.key_moments == (blunder,)
    assert (review.black.blunders, review.white.blunders) == (1, 0)
    assert review.black.accuracy is not None and review.black.accuracy < 75
    assert review.moves[3].judgement is Judgement.FORCED  # 19x12 was White's only move


def test_forced_moves_are_never_judged() -> None:
    rng = random.Random(7)
    board = Board()
    for _ in range(30):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves))
    played = GameInput.from_board(board)
    review = review_game(played, nodes=2_000)
    replay = Board()
    forced = 0
    for move in review.moves:
        single = len(replay.legal_moves) == 1
        assert (move.judgement is Judgement.FORCED) == single, move
        forced += single
        replay.push_text(move.move)
    assert forced, "the random game should have had a forced capture"
    assert len(review.positions) == len(played.moves) + 1
    assert [p.ply for p in review.positions] == list(range(len(played.moves) + 1))


def test_opening_theory_is_not_judged_nor_counted_in_accuracy() -> None:
    review = review_game(game(*HANGS_A_MAN))
    assert [m.judgement for m in review.moves[:2]] == [Judgement.BOOK, Judgement.BOOK]  # 11-15 23-19: the deck's line
    assert review.moves[2].judgement is Judgement.BLUNDER  # 12-16 is not theory
    black = review.player(Color.BLACK)
    assert black.accuracy == round(move_accuracy(review.moves[2].loss), 1)  # 12-16 is Black's only judged move


def test_a_review_is_reproducible_and_reads_back() -> None:
    played = game(*HANGS_A_MAN)
    first = review_game(played, nodes=5_000)
    evaluate_position(game("9-13", "22-18"), 2, nodes=30_000)  # other work in between leaves no trace
    assert review_game(played, nodes=5_000) == first
    assert GameReview.from_json(first.to_json()) == first


def test_a_position_with_one_legal_move_is_evaluated_through_it() -> None:
    after_hang = game(*HANGS_A_MAN[:3])
    position = evaluate_position(after_hang, 3)
    assert position.legal == 1 and position.best == "19x12" and position.line[0] == "19x12"
    assert position.score < -50, "White is a man up once it takes"


def test_a_finished_game_scores_its_result() -> None:
    won = evaluate_position(game("6x15", fen="W:W:B6,K10"), 0)  # White to move has no pieces: Black has won
    assert won.score > MATE_BOUND and won.expected == 1.0 and won.best is None


@pytest.mark.parametrize(
    ("loss", "judgement"),
    [
        (0.0, Judgement.GOOD),
        (INACCURACY - 0.001, Judgement.GOOD),
        (INACCURACY, Judgement.INACCURACY),
        (MISTAKE, Judgement.MISTAKE),
        (BLUNDER, Judgement.BLUNDER),
        (0.9, Judgement.BLUNDER),
    ],
)
def test_thresholds(loss: float, judgement: Judgement) -> None:
    before = PositionEval(0, 0, 0.5, best="9-13", line=("9-13",), legal=7)
    after = PositionEval(1, 0, 0.5 - loss)
    assert judge_move(1, "11-15", Color.BLACK, before, after).judgement is judgement
    # the same from White's side: White's expected score is one minus Black's
    flipped = judge_move(
        2, "22-18", Color.WHITE, PositionEval(1, 0, 0.5, "24-19", legal=7), PositionEval(2, 0, 0.5 + loss)
    )
    assert flipped.judgement is judgement


def test_the_best_move_loses_nothing_and_a_forced_one_is_not_judged() -> None:
    before = PositionEval(0, 0, 0.5, best="9-13", line=("9-13",), legal=7)
    assert judge_move(1, "9-13", Color.BLACK, before, PositionEval(1, 0, 0.2)).judgement is Judgement.BEST
    only = PositionEval(0, 0, 0.5, best="9-13", legal=1)
    forced = judge_move(1, "9-13", Color.BLACK, only, PositionEval(1, 0, 0.0))
    assert forced.judgement is Judgement.FORCED and forced.loss == 0.0


@pytest.mark.parametrize(
    ("before", "after", "threw"),
    [(0.9, 0.5, "win"), (0.9, 0.1, "win"), (0.5, 0.1, "draw"), (0.9, 0.72, None), (0.5, 0.35, None)],
)
def test_a_result_thrown_away_shows_the_best_line(before: float, after: float, threw: str | None) -> None:
    start = PositionEval(0, 0, before, best="9-13", line=("9-13", "22-18"), legal=7)
    verdict = judge_move(1, "11-15", Color.BLACK, start, PositionEval(1, 0, after))
    assert verdict.threw_away == threw
    assert (verdict.best, verdict.line) == ("9-13", ("9-13", "22-18"))


def test_expected_score_and_accuracy_formulas() -> None:
    assert expected(0) == 0.5 and expected(100) == pytest.approx(0.731, abs=1e-3)
    assert expected(-MATE_BOUND - 5) == 0.0 and expected(MATE_BOUND + 5) == 1.0
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert move_accuracy(BLUNDER) == pytest.approx(50.0, abs=1.0)
    assert move_accuracy(1.0) == 0.0
