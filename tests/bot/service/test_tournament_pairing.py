"""The pure tournament pairings: Swiss (Dutch essentials), round robin (Berger tables), arena, the ballots of the
rounds, and the tournament's JSON form.

Hand-worked pairings first, then properties over random fields and results. The properties check the absolute rules
with their own arithmetic (not the module's), and compare the Swiss pairing and the arena against a brute force
over every pairing of small fields: a legal pairing is found whenever one exists."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai.ballots import ACF_DECK_SIZE, acf_deck
from bot.service import (
    ArenaWaiting,
    Bye,
    Entrant,
    MatchKind,
    Pairing,
    PairingError,
    Round,
    Tournament,
    TournamentError,
    TournamentFormat,
    TournamentRecordError,
    UserId,
    arena_round,
    ballot_of,
    berger_table,
    pair_arena,
    pair_round_robin,
    pair_swiss,
    round_ballot,
)

FAST = settings(max_examples=150, deadline=None)


def field(n: int, fmt: TournamentFormat = TournamentFormat.SWISS, match: MatchKind = MatchKind.SINGLE) -> Tournament:
    """``n`` players p00, p01, ... rated 2000, 1990, ... (so the seeded order is the rating order)."""
    players = tuple(Entrant(UserId(f"p{i:02}"), 2000 - 10 * i) for i in range(n))
    return Tournament(fmt, match, players)


def play(tournament: Tournament, round_: Round, rng: random.Random) -> Tournament:
    """``tournament`` with ``round_`` added and every game of it scored at random."""
    tournament = tournament.with_round(round_)
    for pairing in round_.pairings:
        for game in range(pairing.games):
            tournament = tournament.with_result(round_.number, pairing.black, game, rng.choice((0, 1, 2)))
    return tournament


def pairs(round_: Round) -> list[tuple[str, str]]:
    return [(p.black, p.white) for p in round_.pairings]


# -- the absolute rules, computed here -----------------------------------------------------------------------------


def colours(tournament: Tournament) -> dict[str, list[str]]:
    """Each player's colours (``B``/``W``) in the single games so far."""
    seen: dict[str, list[str]] = {e.id: [] for e in tournament.players}
    for round_ in tournament.rounds:
        for pairing in round_.pairings:
            if pairing.games == 1:
                seen[pairing.black].append("B")
                seen[pairing.white].append("W")
    return seen


def colour_ok(history: Sequence[str]) -> bool:
    difference = history.count("B") - history.count("W")
    return abs(difference) <= 2 and all(history[i : i + 3] not in (["B"] * 3, ["W"] * 3) for i in range(len(history)))


def met(tournament: Tournament) -> set[frozenset[str]]:
    return {frozenset(p.players) for r in tournament.rounds for p in r.pairings}


def had_bye(tournament: Tournament) -> set[str]:
    return {r.bye.player for r in tournament.rounds if r.bye is not None}


def perfect_matchings(players: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for tail in perfect_matchings(rest[:i] + rest[i + 1 :]):
            yield [(first, other), *tail]


def some_legal_round(tournament: Tournament) -> bool:
    """Whether any legal next round exists, by trying every bye and every pairing (small fields)."""
    active = [e.id for e in tournament.active]
    done, byes, history = met(tournament), had_bye(tournament), colours(tournament)
    single = tournament.match is MatchKind.SINGLE

    def legal(a: str, b: str) -> bool:
        if frozenset((a, b)) in done:
            return False
        return not single or any(
            colour_ok([*history[a], x]) and colour_ok([*history[b], y]) for x, y in (("B", "W"), ("W", "B"))
        )

    for bye in [p for p in active if p not in byes] if len(active) % 2 else [None]:
        rest = [p for p in active if p != bye]
        if any(all(legal(a, b) for a, b in m) for m in perfect_matchings(rest)):
            return True
    return False


# -- Swiss, by hand ------------------------------------------------------------------------------------------------


def test_swiss_round_one_pairs_the_top_half_with_the_bottom_half_and_alternates_colours() -> None:
    round_ = pair_swiss(field(6))
    # p00 v p03, p01 v p04, p02 v p05; the higher-ranked has Black on board 1 (seed 0), White on board 2, ...
    assert pairs(round_) == [("p00", "p03"), ("p04", "p01"), ("p02", "p05")]
    assert round_.bye is None and round_.number == 1
    assert all(p.games == 1 and p.ballot is None and p.results == (None,) for p in round_.pairings)


def test_swiss_floats_a_score_group_that_cannot_pair_and_gives_colours_by_preference() -> None:
    t = field(6)  # A..F = p00..p05
    t = t.with_round(pair_swiss(t))
    t = t.with_result(1, UserId("p00"), 0, 2).with_result(1, UserId("p04"), 0, 2).with_result(1, UserId("p02"), 0, 1)
    # scores: p00 1, p04 1, p02 ½, p05 ½ (they met), p01 0, p03 0
    second = pair_swiss(t)
    # p00 v p04 (both had Black: the higher-ranked p00 gets White); the ½ group cannot pair (p02 met p05), so both
    # float: p02 meets the top of the 0 group, p01 (who had White: Black now), and p05 meets p03
    assert pairs(second) == [("p04", "p00"), ("p01", "p02"), ("p05", "p03")]


def test_swiss_keeps_a_pair_only_if_the_rest_can_still_be_paired() -> None:
    a, b, c, d, e, f = (UserId(f"p0{i}") for i in range(6))
    t = field(6)
    t = t.with_round(Round(1, (Pairing(a, d, (2,)), Pairing(e, b, (2,)), Pairing(c, f, (1,)))))
    t = t.with_round(Round(2, (Pairing(e, a, (1,)), Pairing(b, c, (2,)), Pairing(f, d, (0,)))))
    # scores: A 1½, E 1½, B 1, D 1, C ½, F ½. A and E met: A floats to B. Then E's first choices, D and C, would
    # leave C v F or D v F, pairs that already met: E meets F, and D meets C.
    third = pair_swiss(t)
    assert {frozenset(p.players) for p in third.pairings} == {frozenset(x) for x in ((a, b), (e, f), (d, c))}
    # E had Black twice and D White twice: each must change, whatever it prefers
    assert pairs(third) == [(a, b), (f, e), (d, c)]


def test_the_swiss_bye_goes_to_the_lowest_ranked_player_without_one_and_scores_a_win() -> None:
    t = field(5, match=MatchKind.BALLOT)
    first = pair_swiss(t)
    assert first.bye == Bye(UserId("p04"), 4)  # a ballot match won: two games, 2 half-points each
    t = t.with_round(first)
    for pairing in first.pairings:  # every game drawn: the scores stay level, but p04 is ahead by its bye
        t = t.with_result(1, pairing.black, 0, 1).with_result(1, pairing.black, 1, 1)
    second = pair_swiss(t)
    assert second.bye == Bye(UserId("p03"), 4)
    assert all(p.games == 2 and p.ballot == round_ballot(0, 2) for p in second.pairings)


def test_withdrawn_players_are_not_paired() -> None:
    t = field(5).withdraw(UserId("p01"))
    round_ = pair_swiss(t)
    assert "p01" not in round_.players and round_.bye is None
    assert pairs(round_) == [("p00", "p03"), ("p04", "p02")]


def test_swiss_refuses_a_round_that_cannot_be_paired() -> None:
    t = field(4, match=MatchKind.BALLOT)
    rng = random.Random(1)
    for _ in range(3):
        t = play(t, pair_swiss(t), rng)
    with pytest.raises(PairingError, match="no legal pairing of round 4"):
        pair_swiss(t)
    unfinished = field(4).with_round(pair_swiss(field(4)))
    with pytest.raises(PairingError, match="round 1 is not finished"):
        pair_swiss(unfinished)
    with pytest.raises(PairingError):
        pair_swiss(field(1))
    assert isinstance(PairingError("x"), ValueError) and PairingError.code == "tournament.pairing"


def test_a_large_swiss_is_paired() -> None:
    t = field(256)
    rng = random.Random(7)
    for _ in range(9):
        round_ = pair_swiss(t)
        assert len(round_.pairings) == 128
        t = play(t, round_, rng)
    assert len(met(t)) == 9 * 128


# -- Swiss, properties ---------------------------------------------------------------------------------------------


@FAST
@given(
    n=st.integers(2, 10),
    rounds=st.integers(1, 9),
    ballot=st.booleans(),
    seed=st.integers(0, 2**32),
    withdrawals=st.lists(st.tuples(st.integers(1, 9), st.integers(0, 9)), max_size=3),
)
def test_swiss_rounds_keep_the_absolute_rules(
    n: int, rounds: int, ballot: bool, seed: int, withdrawals: list[tuple[int, int]]
) -> None:
    rng = random.Random(seed)
    players = tuple(Entrant(UserId(f"p{i:02}"), rng.randrange(1000, 2000)) for i in range(n))
    match = MatchKind.BALLOT if ballot else MatchKind.SINGLE
    t = Tournament(TournamentFormat.SWISS, match, players, seed=seed)
    for number in range(1, rounds + 1):
        for when, who in withdrawals:
            if when == number and who < n:
                t = t.withdraw(players[who].id)
        possible = len(t.active) >= 2 and some_legal_round(t)
        try:
            round_ = pair_swiss(t)
        except PairingError:
            assert not possible, "a legal round exists, and pair_swiss found none"
            return
        assert possible, "a round was paired where no legal one exists"
        before_met, before_byes = met(t), had_bye(t)
        active = {e.id for e in t.active}
        listed = [p for pairing in round_.pairings for p in pairing.players]
        assert sorted(listed + ([round_.bye.player] if round_.bye else [])) == sorted(active)
        assert not any(frozenset(p.players) in before_met for p in round_.pairings), "a pair met twice"
        if round_.bye is None:
            assert len(active) % 2 == 0
        else:
            assert len(active) % 2 == 1 and round_.bye.player not in before_byes
            assert round_.bye.half_points == 2 * match.games
        assert all(p.games == match.games for p in round_.pairings)
        assert len({p.ballot for p in round_.pairings}) <= 1
        t = play(t, round_, rng)
        assert all(colour_ok(history) for history in colours(t).values()), colours(t)
    assert set(Counter(r.bye.player for r in t.rounds if r.bye).values()) <= {1}, "a second bye"


# -- round robin ---------------------------------------------------------------------------------------------------


def test_berger_tables_are_fides() -> None:
    assert berger_table(4) == (((1, 4), (2, 3)), ((4, 3), (1, 2)), ((2, 4), (3, 1)))
    assert berger_table(6) == (
        ((1, 6), (2, 5), (3, 4)),
        ((6, 4), (5, 3), (1, 2)),
        ((2, 6), (3, 1), (4, 5)),
        ((6, 5), (1, 4), (2, 3)),
        ((3, 6), (4, 2), (5, 1)),
    )
    assert berger_table(3) == berger_table(4)  # table number 4 is the dummy


def test_a_round_robin_of_five_gives_each_player_one_round_off() -> None:
    t = field(5, TournamentFormat.ROUND_ROBIN, MatchKind.BALLOT)
    rounds = []
    for _ in range(5):
        round_ = pair_round_robin(t)
        rounds.append(round_)
        t = t.with_round(round_)
    # round 1 is 1-6 (6 the dummy: table number 1, p00, sits out), 2-5, 3-4; the dummy meets 1, 4, 2, 5, 3
    assert pairs(rounds[0]) == [("p01", "p04"), ("p02", "p03")]
    assert [r.bye.player for r in rounds if r.bye] == ["p00", "p03", "p01", "p04", "p02"]
    assert all(r.bye is not None and r.bye.half_points == 0 for r in rounds)
    with pytest.raises(PairingError, match="has 5 rounds"):
        pair_round_robin(t)


def test_a_withdrawn_players_round_robin_games_are_not_played() -> None:
    t = field(4, TournamentFormat.ROUND_ROBIN).withdraw(UserId("p03"))
    assert pairs(pair_round_robin(t)) == [("p01", "p02")]  # round 1: 1-4 (withdrawn), 2-3


@FAST
@given(n=st.integers(2, 16), ballot=st.booleans())
def test_everyone_meets_everyone_exactly_once(n: int, ballot: bool) -> None:
    t = field(n, TournamentFormat.ROUND_ROBIN, MatchKind.BALLOT if ballot else MatchKind.SINGLE)
    while True:
        try:
            round_ = pair_round_robin(t)
        except PairingError:
            break
        t = t.with_round(round_)
    meetings = Counter(frozenset(p.players) for r in t.rounds for p in r.pairings)
    assert set(meetings.values()) == {1}
    assert len(meetings) == n * (n - 1) // 2
    assert len(t.rounds) == n - 1 + n % 2
    assert sorted(r.bye.player for r in t.rounds if r.bye) == (sorted(e.id for e in t.players) if n % 2 else [])
    if ballot:  # a different ballot each round
        assert len({r.pairings[0].ballot for r in t.rounds}) == len(t.rounds)


# -- arena ---------------------------------------------------------------------------------------------------------


def waiting(*rows: tuple[str, int, str | None]) -> list[ArenaWaiting]:
    return [ArenaWaiting(UserId(name), score, 1500, UserId(last) if last else None) for name, score, last in rows]


def test_the_arena_pairs_neighbours_in_rank() -> None:
    assert pair_arena(waiting(("d", 1, None), ("a", 9, None), ("c", 3, None), ("b", 5, None))) == (
        ("a", "b"),
        ("c", "d"),
    )


def test_the_arena_never_pairs_last_opponents_but_pairs_everyone_it_can() -> None:
    # a and b met last, and so did c and d: a takes the nearest other one, c, and b meets d
    rows = waiting(("a", 9, "b"), ("b", 7, "a"), ("c", 5, "d"), ("d", 3, "c"))
    assert pair_arena(rows) == (("a", "c"), ("b", "d"))
    assert pair_arena(waiting(("a", 1, "b"), ("b", 1, "a"))) == ()
    # three waiting: the lowest-ranked waits for the next wave
    assert pair_arena(waiting(("a", 3, None), ("b", 2, None), ("c", 1, None))) == (("a", "b"),)
    with pytest.raises(PairingError):
        pair_arena(waiting(("a", 1, None), ("a", 1, None)))


def test_an_arena_wave_leaves_out_players_still_playing_and_withdrawn_ones() -> None:
    t = field(6, TournamentFormat.ARENA)
    first = arena_round(t, [UserId(f"p0{i}") for i in range(4)])
    assert first is not None and pairs(first) == [("p00", "p01"), ("p02", "p03")]
    t = t.with_round(first).with_result(1, UserId("p00"), 0, 2).withdraw(UserId("p05"))
    # p02 and p03 still play; p00 (2 points) must not meet p01 again: p04 is the only one it may meet
    second = arena_round(t, [UserId(p) for p in ("p00", "p01", "p02", "p03", "p04", "p05")])
    assert second is not None and {frozenset(p.players) for p in second.pairings} == {frozenset(("p00", "p04"))}
    assert arena_round(t.with_round(second), [UserId("p01")]) is None


@FAST
@given(
    rows=st.lists(st.tuples(st.integers(0, 20), st.integers(1000, 2000), st.integers(-1, 9)), min_size=0, max_size=10)
)
def test_arena_pairs_are_never_last_opponents_and_as_many_as_possible(rows: list[tuple[int, int, int]]) -> None:
    ids = [UserId(f"p{i}") for i in range(len(rows))]
    people = [
        ArenaWaiting(ids[i], score, rating, ids[last] if 0 <= last < len(ids) and last != i else None)
        for i, (score, rating, last) in enumerate(rows)
    ]
    result = pair_arena(people)
    last = {w.id: w.last_opponent for w in people}
    paired = [p for pair in result for p in pair]
    assert len(paired) == len(set(paired))
    assert all(last[a] != b and last[b] != a for a, b in result)

    def allowed(a: str, b: str) -> bool:
        return last[UserId(a)] != b and last[UserId(b)] != a

    def most(players: list[str]) -> int:
        if len(players) < 2:
            return 0
        first, rest = players[0], players[1:]
        best = most(rest)
        for i, other in enumerate(rest):
            if allowed(first, other):
                best = max(best, 1 + most(rest[:i] + rest[i + 1 :]))
        return best

    assert len(result) == most(list(ids))


@FAST
@given(seed=st.integers(0, 2**32), n=st.integers(2, 12), waves=st.integers(1, 12))
def test_arena_waves_never_repeat_a_players_last_game(seed: int, n: int, waves: int) -> None:
    rng = random.Random(seed)
    t = field(n, TournamentFormat.ARENA, rng.choice(list(MatchKind)))
    last: dict[str, str] = {}
    for _ in range(waves):
        present = [e.id for e in t.players if rng.random() < 0.8]
        round_ = arena_round(t, present)
        if round_ is None:
            continue
        for pairing in round_.pairings:
            assert set(pairing.players) <= set(present)
            assert last.get(pairing.black) != pairing.white and last.get(pairing.white) != pairing.black
            last[pairing.black], last[pairing.white] = pairing.white, pairing.black
        t = play(t, round_, rng)


# -- ballots -------------------------------------------------------------------------------------------------------


def test_each_round_plays_a_different_ballot_drawn_from_the_seed() -> None:
    drawn = [round_ballot(42, r) for r in range(1, ACF_DECK_SIZE + 1)]
    assert sorted(drawn) == list(range(ACF_DECK_SIZE))  # the whole deck before any ballot comes again
    assert round_ballot(42, ACF_DECK_SIZE + 1) == drawn[0]
    assert drawn == [round_ballot(42, r) for r in range(1, ACF_DECK_SIZE + 1)]
    assert [round_ballot(43, r) for r in range(1, 11)] != drawn[:10]
    assert ballot_of(drawn[0]) == acf_deck()[drawn[0]] and ballot_of(drawn[0]).dealt
    with pytest.raises(ValueError):
        round_ballot(42, 0)


# -- the JSON form -------------------------------------------------------------------------------------------------


def played(seed: int, fmt: TournamentFormat, match: MatchKind, rounds: int) -> Tournament:
    rng = random.Random(seed)
    t = Tournament(fmt, match, tuple(Entrant(UserId(f"u{i}"), rng.randrange(3000)) for i in range(7)), seed=seed)
    for _ in range(rounds):
        if fmt is TournamentFormat.SWISS:
            round_: Round | None = pair_swiss(t)
        elif fmt is TournamentFormat.ROUND_ROBIN:
            round_ = pair_round_robin(t)
        else:
            round_ = arena_round(t, [e.id for e in t.players])
        assert round_ is not None
        t = play(t, round_, rng)
    if rng.random() < 0.5:
        t = t.withdraw(t.players[0].id)
    return t


@FAST
@given(
    seed=st.integers(0, 2**32),
    fmt=st.sampled_from(list(TournamentFormat)),
    match=st.sampled_from(list(MatchKind)),
    rounds=st.integers(0, 4),
)
def test_a_tournament_reads_back_from_its_json(seed: int, fmt: TournamentFormat, match: MatchKind, rounds: int) -> None:
    t = played(seed, fmt, match, rounds)
    assert Tournament.from_json(t.to_json()) == t
    assert Tournament.from_json(t.to_json().encode()) == t


GOOD = played(5, TournamentFormat.SWISS, MatchKind.BALLOT, 2).to_json()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: "not json", "not JSON"),
        (lambda d: [d], "must be a JSON object"),
        (lambda d: {k: v for k, v in d.items() if k != "seed"}, "misses 'seed'"),
        (lambda d: {**d, "seed": "7"}, "'seed' must be int"),
        (lambda d: {**d, "seed": True}, "'seed' must be int"),
        (lambda d: {**d, "format": "knockout"}, "is no TournamentFormat"),
        (lambda d: {**d, "players": [*d["players"], d["players"][0]]}, "entered twice"),
        (lambda d: {**d, "players": [{"id": "", "rating": 1, "withdrawn": False}]}, "non-empty"),
        (lambda d: {**d, "players": d["players"][1:]}, "not entered"),
        (lambda d: {**d, "match": "single"}, "wrong match length|two games and a ballot"),
        (lambda d: {**d, "rounds": d["rounds"][1:]}, "stored as round 1"),
        (lambda d: _set_result(d, 3), "scores 0, 1 or 2"),
        (lambda d: _set_result(d, 1.0), "integer or null"),
        (lambda d: _set_result(d, "1"), "integer or null"),
        (lambda d: {**d, "rounds": [{**d["rounds"][0], "bye": {"player": "u1"}}]}, "misses 'half_points'"),
        (lambda d: {**d, "rounds": [{**d["rounds"][0], "pairings": [7]}]}, "a pairing must be a JSON object"),
    ],
)
def test_a_malformed_record_raises_a_record_error(change: Callable[[dict[str, Any]], object], words: str) -> None:
    changed = change(json.loads(GOOD))
    text = changed if isinstance(changed, str) else json.dumps(changed)
    with pytest.raises(TournamentRecordError, match=words):
        Tournament.from_json(text)


def _set_result(data: dict[str, object], value: object) -> dict[str, object]:
    rounds = json.loads(json.dumps(data["rounds"]))
    rounds[0]["pairings"][0]["results"][0] = value
    return {**data, "rounds": rounds}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 300) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(path_seed=st.integers(0, 2**32), value=JSON_VALUES)
def test_any_damage_to_a_record_is_a_record_error_or_a_tournament(path_seed: int, value: object) -> None:
    data = json.loads(GOOD)
    rng = random.Random(path_seed)
    node: object = data
    while True:  # walk down to a random place of the record and put ``value`` there
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            break
        key = rng.choice(keys)
        child = node[key]  # type: ignore[index]
        if not isinstance(child, dict | list) or rng.random() < 0.3:
            node[key] = value  # type: ignore[index]
            break
        node = child
    try:
        result = Tournament.from_json(json.dumps(data))
    except TournamentRecordError:
        return
    assert isinstance(result, Tournament)
    assert Tournament.from_json(result.to_json()) == result


def test_results_are_recorded_for_the_player_who_reports_them() -> None:
    t = field(2).with_round(pair_swiss(field(2)))
    black = t.rounds[0].pairings[0].black
    white = t.rounds[0].pairings[0].white
    assert t.with_result(1, white, 0, 2).rounds[0].pairings[0].results == (0,)
    assert t.with_result(1, black, 0, 2).half_points() == {black: 2, white: 0}
    with pytest.raises(TournamentError):
        t.with_result(2, black, 0, 2)
    with pytest.raises(TournamentError):
        t.with_result(1, black, 1, 2)
    with pytest.raises(TournamentRecordError):
        t.with_result(1, black, 0, 3)
