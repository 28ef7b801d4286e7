"""The levels' ratings: the Elo fit to a round robin, and the shipped file that says how they were measured."""

from __future__ import annotations

import itertools
import math

import pytest

from ai.api import levels
from ai.strength import LEVELS_FILE, Measurement, PairResult, fit_ratings, measured


def expected(rating: float, opponent: float) -> float:
    """The Elo rule's expected score."""
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / 400))


def test_two_levels_are_as_far_apart_as_their_score_says() -> None:
    # 3 points of 4 is 75%, which the Elo rule puts 400·log10(3) = 190.8 points apart.
    ratings = fit_ratings([PairResult("easy", "b", 1, 0, 3)], prior_draws=0)
    assert ratings["easy"] == 1000
    assert ratings["b"] == pytest.approx(1000 + 400 * math.log10(3))


def test_the_fit_is_the_maximum_likelihood_one() -> None:
    # At the maximum each level's expected points, summed over its games, equal the points it scored.
    results = [
        PairResult("easy", "b", 1, 2, 5),
        PairResult("easy", "c", 0, 1, 7),
        PairResult("b", "c", 2, 3, 3),
        PairResult("c", "d", 1, 1, 6),
        PairResult("b", "d", 0, 4, 4),
    ]
    ratings = fit_ratings(results, prior_draws=0)
    for name in ratings:
        scored = expect = 0.0
        for r in results:
            if name in (r.a, r.b):
                me, them = (r.a, r.b) if name == r.a else (r.b, r.a)
                scored += (r.wins if me == r.a else r.losses) + r.draws / 2
                expect += r.games * expected(ratings[me], ratings[them])
        assert expect == pytest.approx(scored, abs=1e-6), name
    assert ratings["easy"] == 1000 and ratings["easy"] < ratings["b"] < ratings["c"] < ratings["d"]


def test_a_clean_sweep_gets_a_finite_rating_from_the_virtual_draws() -> None:
    sweep = [PairResult("easy", "b", 0, 0, 4)]
    with pytest.raises(ValueError, match="no finite rating"):
        fit_ratings(sweep, prior_draws=0)
    # 4 wins and one virtual draw: 4.5 of 5, 90%.
    assert fit_ratings(sweep)["b"] == pytest.approx(1000 + 400 * math.log10(9))


def test_levels_with_no_chain_of_games_to_the_anchor_are_refused() -> None:
    with pytest.raises(ValueError, match="no chain of matches joins c, d to easy"):
        fit_ratings([PairResult("easy", "b", 1, 1, 1), PairResult("c", "d", 1, 1, 1)])
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings([PairResult("b", "c", 1, 1, 1)])


def test_the_shipped_file_rates_every_level_and_says_how() -> None:
    shipped = measured()
    assert shipped is not None, f"{LEVELS_FILE} is missing"
    assert set(levels()) <= set(shipped.ratings)
    assert shipped.ratings[shipped.anchor] == shipped.anchor_rating == 1000 and shipped.anchor == "easy"
    assert shipped.command.startswith("python -m benchmarks.strength ")
    assert f"--games {shipped.games_per_pair} " in shipped.command
    assert shipped.time_per_move is not None and f"--time {shipped.time_per_move:g} " in shipped.command
    played = {frozenset((r.a, r.b)) for r in shipped.results}
    assert played == {frozenset(pair) for pair in itertools.combinations(shipped.ratings, 2)}
    assert all(r.games == shipped.games_per_pair for r in shipped.results)


def test_the_shipped_ratings_are_the_fit_of_the_shipped_results() -> None:
    shipped = measured()
    assert shipped is not None
    fitted = fit_ratings(shipped.results, shipped.anchor, shipped.anchor_rating, shipped.prior_draws)
    assert {name: round(rating) for name, rating in fitted.items()} == dict(shipped.ratings)


def test_the_file_reads_back_what_was_written() -> None:
    shipped = measured()
    assert shipped is not None
    assert Measurement.from_json(shipped.to_json()) == shipped
    with pytest.raises(ValueError, match="not a levels file"):
        Measurement.from_json('{"format": 1, "ratings": {}}')
