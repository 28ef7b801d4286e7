"""Round robin by the Berger tables: n players meet each other once in n-1 rounds (an odd field adds a dummy, and
whoever meets it sits the round out, scoring nothing: everyone sits out once).

Table numbers are the tournament's seeded order (``Tournament.players``), fixed at the start; the first player of
each Berger pair (White in chess) plays Black here, the side that moves first in checkers. A withdrawn player's
remaining matches are not played: its opponents sit those rounds out.
"""

from __future__ import annotations

from bot.service._tournament_ballots import round_ballot
from bot.service._tournament_model import Bye, MatchKind, Pairing, PairingError, Round, Tournament


def berger_table(players: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The Berger table of ``players`` (table numbers from 1; an odd field gets the dummy ``players + 1``): for each
    round, its boards as ``(first, second)``, as FIDE prints them (round 1 of six: 1-6, 2-5, 3-4)."""
    if players < 2:
        raise PairingError("a round robin needs two players")
    size = players + players % 2
    last = size - 1

    def table_number(x: int) -> int:
        return (x - 1) % last + 1

    rounds = []
    for r in range(last):
        pivot = r * (size // 2) % last + 1
        boards = [(size, pivot) if r % 2 else (pivot, size)]
        boards += [(table_number(pivot + k), table_number(pivot - k)) for k in range(1, size // 2)]
        rounds.append(tuple(boards))
    return tuple(rounds)


def pair_round_robin(tournament: Tournament) -> Round:
    """The next round of a round robin; :class:`PairingError` once every round is paired."""
    number = len(tournament.rounds) + 1
    ids = [e.id for e in tournament.players]
    table = berger_table(len(ids))
    if number > len(table):
        raise PairingError(f"the round robin of {len(ids)} players has {len(table)} rounds")
    withdrawn = {e.id for e in tournament.players if e.withdrawn}
    ballot = round_ballot(tournament.seed, number) if tournament.match is MatchKind.BALLOT else None
    pairings = []
    bye = None
    for first, second in table[number - 1]:
        if max(first, second) > len(ids):  # the dummy of an odd field
            player = ids[min(first, second) - 1]
            bye = None if player in withdrawn else Bye(player, 0)
        elif ids[first - 1] not in withdrawn and ids[second - 1] not in withdrawn:
            pairings.append(Pairing.new(ids[first - 1], ids[second - 1], tournament.match, ballot))
    return Round(number, tuple(pairings), bye)
