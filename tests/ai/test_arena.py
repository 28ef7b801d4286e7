"""The opening ballots and the arena: legal distinct ballots, paired games with colours swapped, Elo maths, PDN."""

from __future__ import annotations

import math
import random

import pytest

from ai import levels as registry
from ai.api import Level, Limits, SearchResult, UnknownLevelError
from ai.arena import ADJUDICATED, MatchGame, elo_estimate, elo_from_score, play_game, run_match
from ai.ballots import (
    ACF_DECK_SIZE,
    ACF_NUMBERED,
    Ballot,
    BallotStatus,
    acf_deck,
    acf_openings,
    enumerate_openings,
    openings,
)
from core import Board, Color, RulesError, perft
from core.pdn import read_pdn

# The 18 barred ACF openings and the 12 added in 2003, by ACF number, as both public sources list them.
BARRED = {3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171}
ADDED = {6, 9, 16, 21, 34, 60, 61, 62, 105, 141, 153, 174}


def _number(ballot: Ballot) -> int:
    return int(ballot.name.removeprefix("ACF "))


# -- ballots ----------------------------------------------------------------------------------------------------------


def test_acf_list_numbers_174_openings_and_the_deck_is_156() -> None:
    table = acf_openings()
    assert len(table) == ACF_NUMBERED == 174
    assert [_number(b) for b in table] == list(range(1, 175))
    assert {_number(b) for b in table if b.status is BallotStatus.BARRED} == BARRED
    assert {_number(b) for b in table if b.status is BallotStatus.ADDED} == ADDED
    deck = acf_deck()
    assert len(deck) == ACF_DECK_SIZE == 156
    assert len({b.moves for b in deck}) == 156
    assert all(b.dealt for b in deck)
    assert openings("american") == deck == openings("capture-all")


def test_acf_openings_spot_checks() -> None:
    table = {_number(b): b.text() for b in acf_openings()}
    assert table[1] == "9-13 21-17 5-9"
    assert table[46] == "9-14 23-18 14x23"  # the Double Cross
    assert table[120] == "11-15 22-18 15x22"
    assert table[174] == "12-16 24-20 10-15"


@pytest.mark.parametrize("variant", ["american", "capture-all"])
def test_every_acf_opening_is_three_legal_plies_as_written(variant: str) -> None:
    positions = set()
    for ballot in acf_openings():
        board = Board(None, variant)
        assert len(ballot.moves) == 3
        for text, side in zip(ballot.moves, (Color.BLACK, Color.WHITE, Color.BLACK), strict=True):
            assert board.turn is side
            move = board.parse_move(text)
            assert move.text() == text, ballot
            board.push(move)
        assert board.outcome() is None
        positions.add(board.fen())
    assert len(positions) == 174


def test_acf_openings_are_among_the_engines_three_ply_sequences() -> None:
    every = {b.moves for b in enumerate_openings("american", 3)}
    assert len(every) == perft(Board(), 3) == 302
    assert {b.moves for b in acf_openings()} <= every


def test_mini_openings_are_every_legal_two_ply_opening() -> None:
    ballots = openings("mini")
    assert len(ballots) == perft(Board(None, "mini"), 2) == 25
    assert len({b.moves for b in ballots}) == 25
    for ballot in ballots:
        board = ballot.board("mini")
        assert len(board.move_stack) == 2 and board.turn is Color.BLACK


def test_illegal_ballot_is_refused() -> None:
    with pytest.raises(RulesError):
        Ballot("bad", ("9-13", "9-14")).board()
    with pytest.raises(ValueError, match="not legal"):
        run_match("easy", "easy", 2, ballots=[Ballot("bad", ("21-17",))])


# -- games and matches ------------------------------------------------------------------------------------------------


class _FirstMove:
    """Always plays the first legal move."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        return SearchResult(move=board.legal_moves[0].text())


class _Cheat:
    """Answers with a move that is never legal."""

    def choose(self, board: Board, limits: Limits, rng: random.Random) -> SearchResult:
        return SearchResult(move="1-32")


@pytest.fixture
def test_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two extra levels, registered for this test only (in this process: use jobs=1)."""
    monkeypatch.setitem(registry._LEVELS, "t-first", Level("t-first", "first legal move", _FirstMove))
    monkeypatch.setitem(registry._LEVELS, "t-cheat", Level("t-cheat", "illegal moves", _Cheat))


def test_two_game_match_swaps_colours_on_the_same_opening() -> None:
    seen: list[MatchGame] = []
    result = run_match("easy", "easy", games=2, jobs=1, seed=7, on_game=seen.append)
    assert [g.number for g in result.games] == [1, 2]
    assert len(seen) == 2
    first, second = result.games
    assert (first.a_color, second.a_color) == (Color.BLACK, Color.WHITE)
    assert first.record.opening == second.record.opening
    assert first.record.opening.startswith("ACF ")
    ballot = next(b for b in acf_deck() if b.name == first.record.opening)
    for game in result.games:
        record = game.record
        assert record.moves[:3] == ballot.moves
        assert record.opening_plies == 3
        assert record.result in ("1-0", "0-1", "1/2-1/2")
        final = record.board()  # replays every move: all legal
        if record.termination != ADJUDICATED:
            outcome = final.outcome()
            assert outcome is not None and outcome.result() == record.result
    assert result.wins + result.draws + result.losses == 2
    assert result.points == pytest.approx(sum(g.a_score for g in result.games))


def test_results_are_scored_from_a_side_with_colours_swapped(test_levels: None) -> None:
    result = run_match("t-first", "t-cheat", games=4, jobs=1, seed=1)
    assert [g.record.black for g in result.games] == ["t-first", "t-cheat", "t-first", "t-cheat"]
    assert [g.record.white for g in result.games] == ["t-cheat", "t-first", "t-cheat", "t-first"]
    assert [g.record.result for g in result.games] == ["1-0", "0-1", "1-0", "0-1"]
    assert all(g.record.termination.startswith("forfeit: t-cheat") for g in result.games)
    assert (result.wins, result.draws, result.losses) == (4, 0, 0)
    assert result.score == 1.0
    assert result.elo().elo == math.inf
    # the same pair scored from the other side
    reverse = run_match("t-cheat", "t-first", games=2, jobs=1, seed=1)
    assert (reverse.wins, reverse.draws, reverse.losses) == (0, 0, 2)
    assert [g.record.opening for g in result.games[:2]] == [g.record.opening for g in reverse.games]


def test_ply_cap_adjudicates_a_draw() -> None:
    record = play_game("easy", "easy", ("11-15", "23-19", "8-11"), "american", None, seed=3, max_plies=10)
    assert record.termination == ADJUDICATED
    assert record.result == "1/2-1/2"
    assert len(record.moves) == 10 and record.moves[:3] == ("11-15", "23-19", "8-11")


def test_play_game_refuses_an_illegal_opening() -> None:
    with pytest.raises(RulesError):
        play_game("easy", "easy", ("11-15", "11-15"))


def test_match_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="even"):
        run_match("easy", "easy", games=3)
    with pytest.raises(UnknownLevelError):
        run_match("easy", "no-such-level", games=2)


def test_worker_processes_play_the_same_games_as_one_process() -> None:
    one = run_match("easy", "easy", games=4, jobs=1, seed=11)
    two = run_match("easy", "easy", games=4, jobs=2, seed=11)
    assert one == two
    # another seed deals other games
    assert run_match("easy", "easy", games=4, jobs=1, seed=12) != one


@pytest.mark.parametrize("variant", ["mini", "capture-all"])
def test_house_variants_play_matches(variant: str) -> None:
    result = run_match("easy", "easy", games=2, jobs=1, seed=2, variant=variant)
    assert all(g.record.variant == variant for g in result.games)
    names = {b.name for b in openings(variant)}
    assert {g.record.opening for g in result.games} <= names


def test_pdn_of_a_match_reads_back() -> None:
    result = run_match("easy", "easy", games=2, jobs=1, seed=5)
    games = read_pdn(result.pdn(date="2025.01.02"))
    assert len(games) == 2
    for parsed, game in zip(games, result.games, strict=True):
        assert tuple(m.text() for m in parsed.board.move_stack) == game.record.moves
        assert parsed.result == game.record.result
        assert parsed.headers["Black"] == game.record.black
        assert parsed.headers["Opening"] == game.record.opening
        assert parsed.headers["Round"] == str(game.number)
        assert parsed.headers["Date"] == "2025.01.02"


def test_mini_pdn_reads_back_as_mini() -> None:
    record = run_match("easy", "easy", games=2, variant="mini", seed=4).games[0].record
    (parsed,) = read_pdn(record.pdn())
    assert parsed.board.variant.name == "mini"
    assert tuple(m.text() for m in parsed.board.move_stack) == record.moves


# -- Elo --------------------------------------------------------------------------------------------------------------


def test_elo_from_score() -> None:
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf


def test_elo_confidence_interval_on_known_records() -> None:
    even = elo_estimate(10, 0, 10)  # s = 0.5, per-game sd 0.5, sd of the mean 0.5/sqrt(20)
    assert even.elo == 0.0
    assert even.high == pytest.approx(163.32, abs=0.05)
    assert even.low == pytest.approx(-163.32, abs=0.05)
    assert even.margin == pytest.approx(163.32, abs=0.05)
    mixed = elo_estimate(6, 3, 1)  # s = 0.75, variance 0.1125
    assert mixed.elo == pytest.approx(190.85, abs=0.01)
    assert mixed.low == pytest.approx(29.33, abs=0.05)
    assert mixed.high == pytest.approx(542.75, abs=0.05)
    assert elo_estimate(0, 8, 0).margin == 0.0
    assert "+191" in mixed.describe()


def test_elo_interval_clamps_at_zero_and_hundred_percent() -> None:
    small = elo_estimate(1, 0, 1)  # s ± 0.69: both ends clamp
    assert (small.low, small.elo, small.high) == (-math.inf, 0.0, math.inf)
    assert small.margin == math.inf
    assert small.describe() == "+0 (95% CI unbounded both ways: too few games)"
    perfect = elo_estimate(5, 0, 0)
    assert perfect.elo == perfect.high == math.inf
    assert perfect.low == pytest.approx(elo_from_score(0.05 ** (1 / 5)))  # won all 5: 95% sure the rate is > 54.9%
    assert perfect.describe() == f"at least +{round(perfect.low)} (95% confidence: every game won, so no upper bound)"
    hopeless = elo_estimate(0, 0, 20)
    assert hopeless.low == hopeless.elo == -math.inf
    assert hopeless.high == pytest.approx(-elo_from_score(0.05 ** (1 / 20)))
    assert hopeless.describe().startswith("at most -")
    assert "inf" not in perfect.describe() + hopeless.describe() + small.describe()
    two = elo_estimate(2, 0, 0)  # won both: 95% sure only that the rate is > 22%, a bound below even
    assert two.low < 0 and two.describe().endswith("too few games to tell which side is stronger)")
    assert "too few" not in perfect.describe() and "too few" not in hopeless.describe()
    assert elo_estimate(0, 0, 2).describe().endswith("too few games to tell which side is stronger)")
    one_sided = elo_estimate(9, 1, 0)  # s = 0.95: the interval's top clamps at 100%
    assert one_sided.describe().endswith("and above, no upper bound)")
    with pytest.raises(ValueError):
        elo_estimate(0, 0, 0)
