"""A tournament's standings: score, the format's tie-breaks, and each player's results round by round.

Scores and tie-breaks are exact :class:`fractions.Fraction`\\ s of points (a game won 1, drawn ½), never floats; an
arena's score is its arena points (:func:`bot.service._arena.arena_points`). Every game scored so far counts, so the
standings can be read in the middle of a round.

The tie-breaks, in order (:data:`TIEBREAKS`):

- **Swiss**: Buchholz cut-1, Sonneborn-Berger, games won.
  *Buchholz* adds, for each round a player was in, its opponent's score; a **bye counts as a virtual opponent with the
  player's own score** (as FIDE's 2023 tie-break rules do for unplayed rounds), so a bye neither rewards nor punishes,
  and *cut-1* drops the lowest of those values (the bye's included). A round the player was not in (not yet entered,
  withdrawn), or whose match has no game scored yet, adds nothing.
  *Sonneborn-Berger* adds, game by game, the opponent's score times the points scored in that game (a win the whole
  score, a draw half); a bye adds nothing.
  *Games won* counts games won over the board; a bye is not one.
- **Round robin**: Sonneborn-Berger, then head-to-head: among the players equal on score and Sonneborn-Berger, the
  points each scored in its games against the others of that group.
- **Arena**: performance, ``(sum of the opponents' ratings + 400 × (wins - losses)) / games``, game by game (0 for a
  player with no game).

Players equal on everything share a rank (1, 2, 2, 4) and are listed in seeded order.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from bot.service._arena import arena_scores
from bot.service._ids import UserId
from bot.service._tournament_model import LOSS, WIN, Tournament, TournamentFormat

PERFORMANCE_SPREAD = 400
"""Rating points a game won adds to the performance (and a game lost takes away)."""


class TieBreak(enum.Enum):
    BUCHHOLZ_CUT1 = "buchholz_cut1"
    SONNEBORN_BERGER = "sonneborn_berger"
    WINS = "wins"
    HEAD_TO_HEAD = "head_to_head"
    PERFORMANCE = "performance"


TIEBREAKS: Mapping[TournamentFormat, tuple[TieBreak, ...]] = {
    TournamentFormat.SWISS: (TieBreak.BUCHHOLZ_CUT1, TieBreak.SONNEBORN_BERGER, TieBreak.WINS),
    TournamentFormat.ROUND_ROBIN: (TieBreak.SONNEBORN_BERGER, TieBreak.HEAD_TO_HEAD),
    TournamentFormat.ARENA: (TieBreak.PERFORMANCE,),
}


@dataclass(frozen=True)
class RoundResult:
    """What a player did in one round: its opponent (None for a bye) and its half-points in each game scored so far
    (a bye: one entry, the bye's half-points)."""

    round: int
    opponent: UserId | None
    results: tuple[int, ...]

    @property
    def points(self) -> Fraction:
        return Fraction(sum(self.results), WIN)


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player: UserId
    score: Fraction
    tiebreaks: tuple[tuple[TieBreak, Fraction], ...]
    """The format's tie-breaks, in the order they decide (:data:`TIEBREAKS`)."""
    results: tuple[RoundResult, ...]
    """The rounds the player was in (a game or a bye), in order."""
    withdrawn: bool = False

    def tiebreak(self, kind: TieBreak) -> Fraction:
        """The value of tie-break ``kind`` (a ``KeyError`` if the format does not use it)."""
        for name, value in self.tiebreaks:
            if name is kind:
                return value
        raise KeyError(kind)


def round_results(tournament: Tournament) -> dict[UserId, tuple[RoundResult, ...]]:
    """Each player's results by round."""
    results: dict[UserId, list[RoundResult]] = {e.id: [] for e in tournament.players}
    for round_ in tournament.rounds:
        for pairing in round_.pairings:
            for player in pairing.players:
                mine = pairing.results_of(player)
                results[player].append(RoundResult(round_.number, pairing.opponent_of(player), mine))
        if round_.bye is not None:
            results[round_.bye.player].append(RoundResult(round_.number, None, (round_.bye.half_points,)))
    return {p: tuple(r) for p, r in results.items()}


def tournament_standings(tournament: Tournament) -> tuple[StandingRow, ...]:
    """The standings, best first."""
    by_round = round_results(tournament)
    if tournament.format is TournamentFormat.ARENA:
        scores = {p: Fraction(s) for p, s in arena_scores(tournament).items()}
    else:
        scores = {p: Fraction(s, WIN) for p, s in tournament.half_points().items()}
    points = {p: Fraction(s, WIN) for p, s in tournament.half_points().items()}
    ratings = {e.id: e.rating for e in tournament.players}
    values: dict[UserId, dict[TieBreak, Fraction]] = {p: {} for p in scores}
    for player, rounds in by_round.items():
        mine = values[player]
        mine[TieBreak.BUCHHOLZ_CUT1] = _buchholz_cut1(rounds, points, points[player])
        mine[TieBreak.SONNEBORN_BERGER] = sum(
            (points[r.opponent] * Fraction(g, WIN) for r in rounds if r.opponent is not None for g in r.results),
            Fraction(0),
        )
        mine[TieBreak.WINS] = Fraction(sum(g == WIN for r in rounds if r.opponent is not None for g in r.results))
        mine[TieBreak.PERFORMANCE] = _performance(ratings, rounds)
    kinds = TIEBREAKS[tournament.format]
    if TieBreak.HEAD_TO_HEAD in kinds:
        _head_to_head(by_round, scores, values)
    seeds = {e.id: i for i, e in enumerate(tournament.players)}

    def key(player: UserId) -> tuple[Fraction, ...]:
        return (-scores[player], *(-values[player][k] for k in kinds))

    order = sorted(scores, key=lambda p: (key(p), seeds[p]))
    withdrawn = {e.id for e in tournament.players if e.withdrawn}
    rows: list[StandingRow] = []
    for index, player in enumerate(order):
        rank = rows[-1].rank if rows and key(order[index - 1]) == key(player) else index + 1
        tiebreaks = tuple((k, values[player][k]) for k in kinds)
        rows.append(StandingRow(rank, player, scores[player], tiebreaks, by_round[player], player in withdrawn))
    return tuple(rows)


def _buchholz_cut1(rounds: tuple[RoundResult, ...], points: Mapping[UserId, Fraction], own: Fraction) -> Fraction:
    opponents = sorted(own if r.opponent is None else points[r.opponent] for r in rounds if r.results)
    return sum(opponents[1:], Fraction(0))


def _performance(ratings: Mapping[UserId, int], rounds: tuple[RoundResult, ...]) -> Fraction:
    games = [(ratings[r.opponent], g) for r in rounds if r.opponent is not None for g in r.results]
    if not games:
        return Fraction(0)
    margin = sum(1 if g == WIN else -1 if g == LOSS else 0 for _, g in games)
    return Fraction(sum(rating for rating, _ in games) + PERFORMANCE_SPREAD * margin, len(games))


def _head_to_head(
    by_round: Mapping[UserId, tuple[RoundResult, ...]],
    scores: Mapping[UserId, Fraction],
    values: dict[UserId, dict[TieBreak, Fraction]],
) -> None:
    """Each player's points against the others equal to it on score and Sonneborn-Berger."""
    for player, rounds in by_round.items():
        tied = {
            other
            for other in scores
            if scores[other] == scores[player]
            and values[other][TieBreak.SONNEBORN_BERGER] == values[player][TieBreak.SONNEBORN_BERGER]
        }
        values[player][TieBreak.HEAD_TO_HEAD] = sum(
            (r.points for r in rounds if r.opponent is not None and r.opponent in tied), Fraction(0)
        )
