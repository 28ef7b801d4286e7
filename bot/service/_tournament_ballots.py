"""Which ACF three-move ballot each round of a tournament plays: a fixed shuffle of the deck drawn from the
tournament's seed, one ballot a round, so no ballot comes twice before the whole deck (156) has been played."""

from __future__ import annotations

import functools
import hashlib

from ai.ballots import ACF_DECK_SIZE, Ballot, acf_deck


def round_ballot(seed: int, round_number: int, deck_size: int = ACF_DECK_SIZE) -> int:
    """The index in the ACF deck (:func:`ai.ballots.acf_deck`) of the ballot round ``round_number`` (from 1) plays.

    The same seed always gives the same ballots (the shuffle is a SHA-256 of ``seed:index``, stable across Python
    versions, not :mod:`random`); rounds 1 to ``deck_size`` get different ones, and the order starts again after."""
    if round_number < 1 or deck_size < 1:
        raise ValueError(f"round {round_number} of a deck of {deck_size}: rounds start at 1, decks are not empty")
    return _deck_order(seed, deck_size)[(round_number - 1) % deck_size]


def ballot_of(index: int) -> Ballot:
    """The ballot at ``index`` of the ACF deck (the opening its games start from)."""
    return acf_deck()[index]


@functools.lru_cache(maxsize=64)
def _deck_order(seed: int, deck_size: int) -> tuple[int, ...]:
    return tuple(sorted(range(deck_size), key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).digest()))
