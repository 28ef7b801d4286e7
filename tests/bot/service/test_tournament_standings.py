"""Tournament standings: tables worked out by hand (a Swiss of six over three rounds, a Swiss with byes, round
robins of four, an arena's streaks), then properties over random tournaments against tie-breaks recomputed here."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.service import (
    TIEBREAKS,
    Bye,
    Entrant,
    MatchKind,
    Pairing,
    PairingError,
    Round,
    RoundResult,
    StandingRow,
    TieBreak,
    Tournament,
    TournamentFormat,
    UserId,
    arena_points,
    arena_round,
    pair_round_robin,
    pair_swiss,
    tournament_standings,
)


def F(numerator: int, denominator: int = 1) -> Fraction:
    return Fraction(numerator, denominator)


BH, SB, WINS, H2H, PERF = (
    TieBreak.BUCHHOLZ_CUT1,
    TieBreak.SONNEBORN_BERGER,
    TieBreak.WINS,
    TieBreak.HEAD_TO_HEAD,
    TieBreak.PERFORMANCE,
)


def ids(names: str) -> list[UserId]:
    return [UserId(n) for n in names]


def table(rows: tuple[StandingRow, ...]) -> list[tuple[object, ...]]:
    """Rank, player, score and every tie-break of each row."""
    return [(r.rank, r.player, r.score, *(value for _, value in r.tiebreaks)) for r in rows]


def single(black: str, white: str, black_points: int) -> Pairing:
    return Pairing(UserId(black), UserId(white), (black_points,))


# -- Swiss, by hand ------------------------------------------------------------------------------------------------


def test_a_swiss_of_six_over_three_rounds() -> None:
    # A..F rated 2000..1500; the rounds are the ones pair_swiss gives (tests of the pairing show that)
    players = tuple(Entrant(p, 2000 - 100 * i) for i, p in enumerate(ids("ABCDEF")))
    rounds = (
        Round(1, (single("A", "D", 2), single("E", "B", 2), single("C", "F", 1))),
        Round(2, (single("E", "A", 1), single("B", "C", 2), single("F", "D", 0))),
        Round(3, (single("A", "B", 2), single("F", "E", 2), single("D", "C", 1))),
    )
    t = Tournament(TournamentFormat.SWISS, MatchKind.SINGLE, players, rounds=rounds)
    # scores: A 1+½+1 = 2½; B 0+1+0 = 1; C ½+0+½ = 1; D 0+1+½ = 1½; E 1+½+0 = 1½; F ½+0+1 = 1½
    # Buchholz: A D+E+B = 1½+1½+1, cut 1 -> 3; B E+C+A = 1½+1+2½ -> 4; C F+B+D = 1½+1+1½ -> 3;
    #           D A+F+C = 2½+1½+1 -> 4; E B+A+F = 1+2½+1½ -> 4; F C+D+E = 1+1½+1½ -> 3
    # Sonneborn-Berger: A D 1½ + E ½·1½ + B 1 = 3¼; B C 1 = 1; C F ½·1½ + D ½·1½ = 1½; D F 1½ + C ½·1 = 2;
    #                   E B 1 + A ½·2½ = 2¼; F E 1½ + C ½·1 = 2
    # 1½: D and E have Buchholz 4, F 3; E's Sonneborn-Berger beats D's. 1: B's Buchholz beats C's.
    assert table(tournament_standings(t)) == [
        (1, "A", F(5, 2), F(3), F(13, 4), F(2)),
        (2, "E", F(3, 2), F(4), F(9, 4), F(1)),
        (3, "D", F(3, 2), F(4), F(2), F(1)),
        (4, "F", F(3, 2), F(3), F(2), F(1)),
        (5, "B", F(1), F(4), F(1), F(1)),
        (6, "C", F(1), F(3), F(3, 2), F(0)),
    ]
    rows = {r.player: r for r in tournament_standings(t)}
    assert rows[UserId("E")].results == (
        RoundResult(1, UserId("B"), (2,)),
        RoundResult(2, UserId("A"), (1,)),
        RoundResult(3, UserId("F"), (0,)),
    )
    assert [r.points for r in rows[UserId("C")].results] == [F(1, 2), F(0), F(1, 2)]
    assert [k for k, _ in rows[UserId("A")].tiebreaks] == [BH, SB, WINS] == list(TIEBREAKS[TournamentFormat.SWISS])


def test_a_bye_counts_as_a_win_and_as_an_opponent_with_the_players_own_score() -> None:
    players = tuple(Entrant(p, 1500) for p in ids("XYZ"))
    rounds = (
        Round(1, (single("X", "Y", 2),), Bye(UserId("Z"), 2)),
        Round(2, (single("Z", "X", 1),), Bye(UserId("Y"), 2)),
        Round(3, (single("Y", "Z", 2),), Bye(UserId("X"), 2)),
    )
    t = Tournament(TournamentFormat.SWISS, MatchKind.SINGLE, players, rounds=rounds)
    # scores: X 1+½+1 = 2½, Y 0+1+1 = 2, Z 1+½+0 = 1½
    # Buchholz: X Y 2, Z 1½, bye 2½ -> cut 1½ -> 4½; Y X 2½, bye 2, Z 1½ -> 4½; Z bye 1½, X 2½, Y 2 -> 4½
    # (were a bye worth 0, X would have 3½); Sonneborn-Berger: X 2 + ½·1½ = 2¾, Y 1½, Z ½·2½ = 1¼; a bye is no win
    assert table(tournament_standings(t)) == [
        (1, "X", F(5, 2), F(9, 2), F(11, 4), F(1)),
        (2, "Y", F(2), F(9, 2), F(3, 2), F(1)),
        (3, "Z", F(3, 2), F(9, 2), F(5, 4), F(0)),
    ]
    assert tournament_standings(t)[0].results[2] == RoundResult(3, None, (2,))


def test_ballot_matches_count_both_games() -> None:
    players = tuple(Entrant(p, 1500) for p in ids("PQ"))
    match = Pairing(UserId("P"), UserId("Q"), (2, 1), ballot=3)  # P wins its Black game, draws its White one
    t = Tournament(TournamentFormat.SWISS, MatchKind.BALLOT, players, rounds=(Round(1, (match,)),))
    p, q = tournament_standings(t)
    assert (p.player, p.score, p.tiebreak(SB), p.tiebreak(WINS)) == ("P", F(3, 2), F(3, 4), F(1))
    assert (q.player, q.score, q.tiebreak(SB)) == ("Q", F(1, 2), F(3, 4))
    assert q.results == (RoundResult(1, UserId("P"), (0, 1)),)
    with pytest.raises(KeyError):
        p.tiebreak(PERF)


# -- round robin, by hand ------------------------------------------------------------------------------------------


def round_robin_of_four(results: tuple[int, ...]) -> Tournament:
    """Four players, the Berger rounds (1-4 2-3, 4-3 1-2, 2-4 3-1), ``results`` the half-points of each first."""
    t = Tournament(TournamentFormat.ROUND_ROBIN, MatchKind.SINGLE, tuple(Entrant(p, 1500) for p in ids("1234")))
    scores = iter(results)
    for _ in range(3):
        round_ = pair_round_robin(t)
        t = t.with_round(round_)
        for pairing in round_.pairings:
            t = t.with_result(round_.number, pairing.black, 0, next(scores))
    return t


def test_a_round_robin_breaks_ties_by_sonneborn_berger() -> None:
    # every first player loses: 4 beats 1, 3 beats 2; 3 beats 4, 2 beats 1; 4 beats 2, 1 beats 3
    # scores: 3 and 4 have 2, 1 and 2 have 1. Sonneborn-Berger: 3 beat 2 and 4 (1 + 2 = 3), 4 beat 1 and 2 (1 + 1),
    # 1 beat 3 (2), 2 beat 1 (1)
    rows = tournament_standings(round_robin_of_four((0, 0, 0, 0, 0, 0)))
    assert table(rows) == [
        (1, "3", F(2), F(3), F(0)),
        (2, "4", F(2), F(2), F(0)),
        (3, "1", F(1), F(2), F(0)),
        (4, "2", F(1), F(1), F(0)),
    ]


def test_a_round_robin_breaks_a_tie_of_score_and_sonneborn_berger_head_to_head() -> None:
    # 4 beats 1, 3 beats 2; 3 beats 4, 1 beats 2; 2-4 and 3-1 drawn: 1 and 4 have 1½ and SB 1¾; 4 beat 1
    rows = tournament_standings(round_robin_of_four((0, 0, 0, 2, 1, 1)))
    assert table(rows) == [
        (1, "3", F(5, 2), F(11, 4), F(0)),
        (2, "4", F(3, 2), F(7, 4), F(1)),
        (3, "1", F(3, 2), F(7, 4), F(0)),
        (4, "2", F(1, 2), F(3, 4), F(0)),
    ]


def test_players_equal_on_everything_share_a_rank() -> None:
    # 1 and 2 have 1 point and SB 1½ each, and drew each other
    rows = tournament_standings(round_robin_of_four((0, 1, 0, 1, 0, 1)))
    assert [(r.rank, r.player) for r in rows] == [(1, "3"), (2, "4"), (3, "1"), (3, "2")]
    assert rows[2].tiebreak(H2H) == rows[3].tiebreak(H2H) == F(1, 2)


# -- arena ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "points"),
    [
        ([], 0),
        ([2, 2], 4),  # two wins start the streak, they are not doubled themselves
        ([2, 2, 2, 2], 2 + 2 + 4 + 4),
        ([2, 2, 2, 1, 2, 2, 2, 0], 2 + 2 + 4 + 2 + 2 + 2 + 4 + 0),  # a draw in a streak counts 2 and ends it
        ([1, 2, 2, 1, 1], 1 + 2 + 2 + 2 + 1),
        ([2, 0, 2, 2, 0, 2], 2 + 0 + 2 + 2 + 0 + 2),
    ],
)
def test_arena_scoring(games: list[int], points: int) -> None:
    assert arena_points(games) == points


def test_arena_standings_by_score_then_performance() -> None:
    players = tuple(Entrant(p, r) for p, r in zip(ids("ABCD"), (1500, 1600, 1400, 1450), strict=True))
    rounds = (
        Round(1, (single("A", "B", 2),)),
        Round(2, (single("A", "C", 2),)),
        Round(3, (single("B", "A", 0),)),  # A's third win in a row: 4
        Round(4, (single("C", "A", 1),)),  # a draw in the streak: 2
        Round(5, (single("B", "C", 2),)),
        Round(6, (single("D", "C", 2),)),
    )
    t = Tournament(TournamentFormat.ARENA, MatchKind.SINGLE, players, rounds=rounds)
    # A: 2+2+4+2 = 10, performance (1600+1400+1600+1400 + 400·3) / 4 = 1800
    # D: 2, (1400 + 400) / 1 = 1800; B: 2, (1500+1500+1400 - 400) / 3 = 1333⅓;
    # C: 1 (three losses, a draw), (1500+1500+1600+1450 - 400·3) / 4 = 1212½
    assert table(tournament_standings(t)) == [
        (1, "A", F(10), F(1800)),
        (2, "D", F(2), F(1800)),
        (3, "B", F(2), F(4000, 3)),
        (4, "C", F(1), F(2425, 2)),
    ]


# -- properties ----------------------------------------------------------------------------------------------------


def simulate(seed: int, fmt: TournamentFormat, match: MatchKind, n: int, rounds: int) -> Tournament:
    rng = random.Random(seed)
    players = tuple(Entrant(UserId(f"p{i}"), rng.randrange(1200, 2200)) for i in range(n))
    t = Tournament(fmt, match, players, seed=seed)
    for _ in range(rounds):
        if fmt is TournamentFormat.SWISS and t.rounds:  # the next Swiss round wants the last one finished: draws
            last = t.rounds[-1]
            for pairing in last.pairings:
                for game, result in enumerate(pairing.results):
                    if result is None:
                        t = t.with_result(last.number, pairing.black, game, 1)
        try:
            if fmt is TournamentFormat.SWISS:
                round_: Round | None = pair_swiss(t)
            elif fmt is TournamentFormat.ROUND_ROBIN:
                round_ = pair_round_robin(t)
            else:
                round_ = arena_round(t, [e.id for e in t.players if rng.random() < 0.7])
        except PairingError:  # every pair met (or the earlier rounds left only pairs that did): the event is over
            break
        if round_ is None:
            continue
        t = t.with_round(round_)
        for pairing in round_.pairings:
            for game in range(pairing.games):
                if rng.random() < 0.9:  # now and then a game is not over yet
                    t = t.with_result(round_.number, pairing.black, game, rng.choice((0, 1, 2)))
    return t


def referee(t: Tournament) -> dict[str, dict[str, F]]:
    """Score, Buchholz cut-1, Sonneborn-Berger and wins of a Swiss, recomputed game by game."""
    games: list[tuple[str, str, int]] = []  # (player, opponent, half-points), each game from both sides
    byes: dict[str, list[int]] = {e.id: [] for e in t.players}
    opponents: dict[str, list[str | None]] = {e.id: [] for e in t.players}
    for round_ in t.rounds:
        for pairing in round_.pairings:
            played = [r for r in pairing.results if r is not None]
            if played:
                opponents[pairing.black].append(pairing.white)
                opponents[pairing.white].append(pairing.black)
            for r in played:
                games += [(pairing.black, pairing.white, r), (pairing.white, pairing.black, 2 - r)]
        if round_.bye:
            byes[round_.bye.player].append(round_.bye.half_points)
            opponents[round_.bye.player].append(None)
    score = {p: F(sum(h for q, _, h in games if q == p) + sum(byes[p]), 2) for p in byes}
    out = {}
    for p in byes:
        values = sorted(score[p] if o is None else score[o] for o in opponents[p])
        out[p] = {
            "score": score[p],
            "bh": sum(values[1:], F(0)),
            "sb": sum((score[o] * F(h, 2) for q, o, h in games if q == p), F(0)),
            "wins": F(sum(1 for q, _, h in games if q == p and h == 2)),
        }
    return out


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    fmt=st.sampled_from(list(TournamentFormat)),
    match=st.sampled_from(list(MatchKind)),
    n=st.integers(2, 12),
    rounds=st.integers(0, 8),
)
def test_standings_agree_with_the_games(
    seed: int, fmt: TournamentFormat, match: MatchKind, n: int, rounds: int
) -> None:
    t = simulate(seed, fmt, match, n, rounds)
    rows = tournament_standings(t)
    assert sorted(r.player for r in rows) == sorted(e.id for e in t.players)
    kinds = TIEBREAKS[fmt]
    keys = [(r.score, *(r.tiebreak(k) for k in kinds)) for r in rows]
    assert keys == sorted(keys, reverse=True), "the rows are not best first"
    for i, row in enumerate(rows):
        assert row.rank == (rows[i - 1].rank if i and keys[i] == keys[i - 1] else i + 1)
        assert [k for k, _ in row.tiebreaks] == list(kinds)
        half = sum(sum(r.results) for r in row.results)
        if fmt is TournamentFormat.ARENA:
            assert half <= row.score <= 2 * half
        else:
            assert row.score == F(half, 2)
    games = sum(len([x for x in p.results if x is not None]) for r in t.rounds for p in r.pairings)
    byes = sum(r.bye.half_points for r in t.rounds if r.bye)
    if fmt is not TournamentFormat.ARENA:
        assert sum(r.score for r in rows) == games + F(byes, 2)
    if fmt is TournamentFormat.SWISS:
        expected = referee(t)
        for row in rows:
            mine = expected[row.player]
            assert (row.score, row.tiebreak(BH), row.tiebreak(SB), row.tiebreak(WINS)) == (
                mine["score"],
                mine["bh"],
                mine["sb"],
                mine["wins"],
            ), row.player


@settings(max_examples=150, deadline=None)
@given(games=st.lists(st.sampled_from((0, 1, 2)), max_size=30))
def test_arena_points_follow_the_streak_rule(games: list[int]) -> None:
    expected = 0
    on_fire = False
    wins_running = 0
    for g in games:
        expected += g * 2 if on_fire else g
        wins_running = wins_running + 1 if g == 2 else 0
        on_fire = wins_running >= 2
    assert arena_points(games) == expected
