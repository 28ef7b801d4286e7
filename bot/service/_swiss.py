"""Swiss pairing: the essentials of the FIDE Dutch system, for fields of 2 to a few hundred players.

What is implemented, in order of priority:

1. **The absolute rules**, as constraints no pairing breaks: two players meet at most once; a player gets at most
   one bye; in single-game rounds nobody's colour difference (Blacks minus Whites) leaves -2..+2 and nobody gets one
   colour three times running. (Ballot matches give both players both colours, so there the colour rules do not
   bind.) Withdrawn players are not paired.
2. **Always a legal pairing when one exists**: the players who may still meet form a graph, and
   :class:`bot.service._matching.Matcher` keeps a maximum matching of it. The bye goes to the lowest-ranked player
   without one *whose removal leaves the rest perfectly pairable*; every pair is kept only if the players left can
   still all be paired. If no perfect matching exists there is no legal pairing at all, and :class:`PairingError`
   says so (this is what happens after n-1 rounds).
3. **The Dutch order of preference**, as the order in which pairs are tried: players are ranked by score, then
   rating, then seed; the highest-ranked unpaired player ``p`` takes the first acceptable opponent among (a) the lower
   half of its score group, top first (the Dutch ``S1[i]`` v ``S2[i]``; a later choice is a transposition), (b) its
   own upper half, nearest the middle first (an exchange), (c) the players of lower score groups, highest first (a
   float down; an odd score group floats its lowest player, who then meets the top of the next group). In single-game
   rounds, within (a) and (b) an opponent who is not due the same colour as ``p`` is tried first.

So the result is the Dutch pairing in the ordinary cases (the score group split, transpositions and floats as the
handbook shows them), and a legal, deterministic pairing in every case; it is not a full implementation of the
FIDE criteria (C.1-C.21: no minimisation of upfloats over several rounds, no global optimisation of colour
preferences across a bracket).

Colours of a single-game pair: a pair with only one legal allocation gets it; otherwise each player gets the colour
it is due (the rarer one, else the other of its last), the stronger preference winning a clash (absolute, then a
difference, then alternation), then the higher-ranked player; when neither has a preference (round 1), the
higher-ranked player of board 1 has Black for an even seed and the boards alternate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.service._ids import UserId
from bot.service._matching import Matcher
from bot.service._tournament_ballots import round_ballot
from bot.service._tournament_model import WIN, Bye, MatchKind, Pairing, PairingError, Round, Tournament
from core import Color

MAX_COLOR_DIFFERENCE = 2


@dataclass(frozen=True)
class SwissHistory:
    """What the rounds so far constrain: whom each player met, who had a bye, each player's colours in single games."""

    opponents: dict[UserId, frozenset[UserId]]
    byes: frozenset[UserId]
    colors: dict[UserId, tuple[Color, ...]]

    @classmethod
    def of(cls, tournament: Tournament) -> SwissHistory:
        opponents: dict[UserId, set[UserId]] = {e.id: set() for e in tournament.players}
        byes: set[UserId] = set()
        colors: dict[UserId, list[Color]] = {e.id: [] for e in tournament.players}
        for round_ in tournament.rounds:
            for pairing in round_.pairings:
                opponents[pairing.black].add(pairing.white)
                opponents[pairing.white].add(pairing.black)
                if pairing.games == 1:
                    colors[pairing.black].append(Color.BLACK)
                    colors[pairing.white].append(Color.WHITE)
            if round_.bye is not None:
                byes.add(round_.bye.player)
        return cls(
            {p: frozenset(o) for p, o in opponents.items()}, frozenset(byes), {p: tuple(c) for p, c in colors.items()}
        )


def may_take(colors: Sequence[Color], color: Color) -> bool:
    """Whether a player who had ``colors`` may play ``color`` next without breaking an absolute colour rule."""
    difference = sum(1 if c is Color.BLACK else -1 for c in (*colors, color))
    three_running = len(colors) >= 2 and colors[-1] is color and colors[-2] is color
    return abs(difference) <= MAX_COLOR_DIFFERENCE and not three_running


def _preference(colors: Sequence[Color]) -> tuple[Color | None, int]:
    """The colour a player is due and how strongly: 3 absolute, 2 a difference to even out, 1 alternation, 0 none."""
    if not colors:
        return None, 0
    difference = sum(1 if c is Color.BLACK else -1 for c in colors)
    if len(colors) >= 2 and colors[-1] is colors[-2]:
        return colors[-1].opponent, 3
    if abs(difference) >= MAX_COLOR_DIFFERENCE:
        return (Color.WHITE if difference > 0 else Color.BLACK), 3
    if difference:
        return (Color.WHITE if difference > 0 else Color.BLACK), 2
    return colors[-1].opponent, 1


def pair_swiss(tournament: Tournament) -> Round:
    """The next round of a Swiss tournament; :class:`PairingError` if the last round is not finished or no legal
    pairing exists."""
    number = len(tournament.rounds) + 1
    if tournament.rounds and not tournament.rounds[-1].finished:
        raise PairingError(f"round {number - 1} is not finished")
    if len(tournament.active) < 2:
        raise PairingError("a round needs two players")
    history = SwissHistory.of(tournament)
    scores = tournament.half_points()
    seeds = {e.id: i for i, e in enumerate(tournament.players)}
    ranked = [e.id for e in sorted(tournament.active, key=lambda e: (-scores[e.id], -e.rating, seeds[e.id]))]
    single = tournament.match is MatchKind.SINGLE

    n = len(ranked)
    takes = [frozenset(c for c in Color if not single or may_take(history.colors[p], c)) for p in ranked]
    neighbours = [_new_opponents(i, ranked, history.opponents[ranked[i]], takes) for i in range(n)]
    matcher = Matcher(neighbours)
    if matcher.size < n // 2:
        raise PairingError(f"no legal pairing of round {number}: some players cannot all meet someone new")
    bye: int | None = None
    if n % 2:
        bye = next((i for i in reversed(range(n)) if ranked[i] not in history.byes and matcher.remove((i,), 0)), None)
        if bye is None:
            raise PairingError(f"no legal pairing of round {number}: no player can take the bye")
    remaining = [i for i in range(n) if i != bye]
    ranked_scores = [scores[p] for p in ranked]
    pairs: list[tuple[int, int]] = []
    while remaining:
        top = remaining[0]
        for partner in _candidates(top, remaining, ranked_scores, ranked, history, single):
            if partner in neighbours[top] and matcher.remove((top, partner), 1):
                break
        else:  # the matching kept pairs ``top`` with someone left: that one is among the candidates
            raise RuntimeError(f"round {number}: no partner for {ranked[top]} although the matching had one")
        pairs.append((top, partner))
        remaining = [i for i in remaining if i not in (top, partner)]

    ballot = round_ballot(tournament.seed, number) if tournament.match is MatchKind.BALLOT else None
    pairings = []
    for board, (high, low) in enumerate(pairs):
        black, white = ranked[high], ranked[low]
        if single and not _black_for_higher(history, black, white, board, tournament.seed):
            black, white = white, black
        pairings.append(Pairing.new(black, white, tournament.match, ballot))
    sits_out = None if bye is None else Bye(ranked[bye], WIN * tournament.match.games)
    return Round(number, tuple(pairings), sits_out)


def _new_opponents(i: int, ranked: list[UserId], met: frozenset[UserId], takes: list[frozenset[Color]]) -> set[int]:
    """The players (by rank) that ranked player ``i`` may meet: not met yet, and with a colour allocation both may
    take (``takes``: the colours each may have next; both colours in ballot matches)."""
    needed = {c.opponent for c in takes[i]}
    return {j for j in range(len(ranked)) if j != i and ranked[j] not in met and not needed.isdisjoint(takes[j])}


def _candidates(
    top: int, remaining: list[int], scores: list[int], ranked: list[UserId], history: SwissHistory, single: bool
) -> list[int]:
    """``top``'s possible opponents in the Dutch order of preference (see the module's docstring)."""
    group = [i for i in remaining if scores[i] == scores[top]]
    lower = [i for i in remaining if scores[i] != scores[top]]
    half = len(group) // 2
    tiers = [group[half:], group[1:half][::-1]] if len(group) >= 2 else []
    if single:
        wish = _preference(history.colors[ranked[top]])[0]

        def clash(i: int) -> bool:
            other = _preference(history.colors[ranked[i]])[0]
            return wish is not None and other is wish

        tiers = [sorted(tier, key=clash) for tier in tiers]
    return [i for tier in tiers for i in tier if i != top] + lower


def _allocations(high: Sequence[Color], low: Sequence[Color]) -> list[Color]:
    """The colours the first player may have against the second under the absolute rules."""
    return [c for c in (Color.BLACK, Color.WHITE) if may_take(high, c) and may_take(low, c.opponent)]


def _black_for_higher(history: SwissHistory, high: UserId, low: UserId, board: int, seed: int) -> bool:
    """Whether the higher-ranked player of a single-game pair plays Black (see the module's docstring)."""
    options = _allocations(history.colors[high], history.colors[low])
    if len(options) == 1:
        return options[0] is Color.BLACK
    (mine, strength), (theirs, their_strength) = _preference(history.colors[high]), _preference(history.colors[low])
    if mine is None and theirs is None:
        return (board + seed) % 2 == 0
    if theirs is not None and (mine is None or (theirs is mine and their_strength > strength)):
        return theirs is Color.WHITE
    return mine is Color.BLACK
