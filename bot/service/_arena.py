"""The arena (lichess's): players finish a game and are paired again with someone waiting, of close rank, never
their last opponent; a game won scores 2, drawn 1, lost 0, and two wins running start a streak in which a win scores
4 and a draw 2, until a game is not won.

Each wave of pairings is recorded as one :class:`Round` of the tournament, so a player's games keep their order.
Pairing the waiting players maximises the number of pairs first (:class:`bot.service._matching.Matcher`: a waiting
player is left for the next wave only when no pairing of everyone avoids the last opponents), then takes them by
rank: the highest-ranked waiting player meets the nearest-ranked one it may meet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.service._ids import UserId
from bot.service._matching import Matcher
from bot.service._tournament_ballots import round_ballot
from bot.service._tournament_model import WIN, MatchKind, Pairing, PairingError, Round, Tournament

STREAK_AFTER = 2
"""Wins running that start a streak."""
STREAK_FACTOR = 2
"""What a streak multiplies a game's points by."""


def arena_points(results: Iterable[int]) -> int:
    """A player's arena score from its games' half-points in the order played (win 2, draw 1, loss 0: the
    half-points themselves, doubled during a streak)."""
    total = 0
    running = 0
    for result in results:
        total += result * (STREAK_FACTOR if running >= STREAK_AFTER else 1)
        running = running + 1 if result == WIN else 0
    return total


def arena_scores(tournament: Tournament) -> dict[UserId, int]:
    """Every player's arena score (games in round order, a ballot match's two games in their order)."""
    return {
        e.id: arena_points(r for _, p in tournament.matches_of(e.id) for r in p.results_of(e.id))
        for e in tournament.players
    }


@dataclass(frozen=True)
class ArenaWaiting:
    """A player waiting for a game: its arena score, its rating, and whom it played last."""

    id: UserId
    score: int
    rating: int
    last_opponent: UserId | None = None


def pair_arena(waiting: Sequence[ArenaWaiting]) -> tuple[tuple[UserId, UserId], ...]:
    """Pairs of waiting players, the higher-ranked first (rank: score, then rating, then id); who is in no pair waits.

    As many pairs as possible, never a player with its last opponent; within that, each pair is the highest-ranked
    player left with the nearest-ranked one it may meet."""
    ranked = sorted(waiting, key=lambda w: (-w.score, -w.rating, w.id))
    if len({w.id for w in ranked}) != len(ranked):
        raise PairingError("a player waits twice")

    def allowed(a: ArenaWaiting, b: ArenaWaiting) -> bool:
        return a.last_opponent != b.id and b.last_opponent != a.id

    n = len(ranked)
    neighbours = [{j for j in range(n) if j != i and allowed(ranked[i], ranked[j])} for i in range(n)]
    matcher = Matcher(neighbours)
    remaining = list(range(n))
    pairs = []
    while remaining:
        top = remaining[0]
        partner = next((q for q in remaining[1:] if q in neighbours[top] and matcher.remove((top, q), 1)), None)
        if partner is None:
            matcher.remove((top,), 0)  # in no maximum matching: taking it out costs nothing
            remaining = remaining[1:]
            continue
        pairs.append((ranked[top].id, ranked[partner].id))
        remaining = [i for i in remaining if i not in (top, partner)]
    return tuple(pairs)


def arena_round(tournament: Tournament, waiting: Sequence[UserId]) -> Round | None:
    """The next wave of an arena: the players of ``waiting`` paired, or None when no pair can be made (withdrawn
    players, unknown ones and those still in an unfinished match are left out). In single games the player who has
    had Black less often takes it (the higher-ranked on a tie); ballot matches play the round's ballot."""
    number = len(tournament.rounds) + 1
    scores = arena_scores(tournament)
    entrants = {e.id: e for e in tournament.active}
    busy = {p for r in tournament.rounds for pairing in r.pairings if not pairing.finished for p in pairing.players}
    last: dict[UserId, UserId] = {}
    blacks: dict[UserId, int] = dict.fromkeys(entrants, 0)
    for round_ in tournament.rounds:
        for pairing in round_.pairings:
            last[pairing.black], last[pairing.white] = pairing.white, pairing.black
            if pairing.black in blacks:
                blacks[pairing.black] += 1
    present = [
        ArenaWaiting(p, scores[p], entrants[p].rating, last.get(p))
        for p in dict.fromkeys(waiting)
        if p in entrants and p not in busy
    ]
    ballot = round_ballot(tournament.seed, number) if tournament.match is MatchKind.BALLOT else None
    pairings = []
    for high, low in pair_arena(present):
        black, white = (low, high) if blacks[low] < blacks[high] else (high, low)
        pairings.append(Pairing.new(black, white, tournament.match, ballot))
    return Round(number, tuple(pairings)) if pairings else None
