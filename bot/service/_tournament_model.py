"""A tournament as plain data: its format, entrants, rounds, pairings and game results, and its JSON form.

Everything here is a frozen value; a change (a round paired, a result, a withdrawal) makes a new one. Points are kept
as integers of half-points (a game won 2, drawn 1, lost 0), so no score is ever a float. A pairing is one *match*:
a single game from the start position, or (the three-move ballot) two games of one opening with colours swapped. The
pairing's ``black`` plays Black (moves first) in its first game and White in its second.

A value that breaks the model's rules (a result of 3 half-points, a pairing of an unknown player, a player twice in
one round) cannot be built: it raises :class:`TournamentRecordError`, which is also what :meth:`Tournament.from_json`
raises for a malformed record, never a ``KeyError`` or a ``TypeError``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from bot.service._ids import UserId
from core import Color

LOSS, DRAW, WIN = 0, 1, 2
"""Half-points of one game."""
GAME_RESULTS = frozenset((LOSS, DRAW, WIN))

_T = TypeVar("_T")


class TournamentError(ValueError):
    """Base of the tournament logic's errors. A plain :class:`ValueError` with a ``code``, not one of the service's
    player-facing :class:`bot.service.ServiceError`\\ s: the step that wires tournaments to a front end words it."""

    code = "tournament"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class TournamentRecordError(TournamentError):
    """A tournament value or record that breaks the model's rules (malformed JSON, a missing field, a bad result)."""

    code = "tournament.record"


class PairingError(TournamentError):
    """No legal pairing exists for the next round (every pair already met, no player left for the bye, too few
    players, the round robin is over)."""

    code = "tournament.pairing"


class TournamentFormat(enum.Enum):
    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    ARENA = "arena"


class MatchKind(enum.Enum):
    """What one pairing plays."""

    BALLOT = "ballot"
    """Two games of one three-move ballot, colours swapped: both players get both colours."""
    SINGLE = "single"
    """One game from the start position ("go as you please")."""

    @property
    def games(self) -> int:
        return 2 if self is MatchKind.BALLOT else 1


def _check(condition: bool, detail: str) -> None:
    if not condition:
        raise TournamentRecordError(detail)


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament: a person or an AI level (``ai:hard``), its rating when seeded, and whether it left
    (a withdrawn player keeps its past results and is not paired again)."""

    id: UserId
    rating: int
    withdrawn: bool = False

    def __post_init__(self) -> None:
        _check(isinstance(self.id, str) and self.id != "", f"an entrant's id must be non-empty text: {self.id!r}")
        _check(_is_int(self.rating), f"{self.id}: the rating must be an integer: {self.rating!r}")


@dataclass(frozen=True)
class Pairing:
    """One match of a round. ``results[i]`` is the half-points ``black`` scored in game ``i`` (None: not played yet);
    its opponent scored ``2 - results[i]``. ``ballot`` indexes the ACF deck (:func:`ai.ballots.acf_deck`)."""

    black: UserId
    white: UserId
    results: tuple[int | None, ...]
    ballot: int | None = None

    def __post_init__(self) -> None:
        _check(self.black != self.white, f"{self.black} cannot be paired with itself")
        _check(len(self.results) in (1, 2), f"a match has 1 or 2 games, not {len(self.results)}")
        _check(all(r is None or r in GAME_RESULTS for r in self.results), f"a game scores 0, 1 or 2: {self.results}")
        _check(self.ballot is None or (_is_int(self.ballot) and self.ballot >= 0), f"bad ballot {self.ballot!r}")
        _check((self.ballot is None) == (self.games == 1), "a ballot match has two games and a ballot, a single none")

    @classmethod
    def new(cls, black: UserId, white: UserId, match: MatchKind, ballot: int | None = None) -> Pairing:
        return cls(black, white, (None,) * match.games, ballot)

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def players(self) -> tuple[UserId, UserId]:
        return (self.black, self.white)

    @property
    def finished(self) -> bool:
        return all(r is not None for r in self.results)

    def opponent_of(self, player: UserId) -> UserId:
        return self.white if player == self.black else self.black

    def color_of(self, player: UserId, game: int = 0) -> Color:
        """The colour ``player`` has in game ``game`` (the second game of a ballot match swaps them)."""
        first = Color.BLACK if player == self.black else Color.WHITE
        return first if game % 2 == 0 else first.opponent

    def results_of(self, player: UserId) -> tuple[int, ...]:
        """Half-points ``player`` scored in each game played so far (games not played yet are left out)."""
        mine = player == self.black
        return tuple(r if mine else WIN - r for r in self.results if r is not None)

    def with_result(self, player: UserId, game: int, half_points: int) -> Pairing:
        """The pairing with game ``game`` scored ``half_points`` for ``player`` (a result recorded again replaces
        the first: whether that may happen is the caller's rule)."""
        if player not in self.players or not 0 <= game < self.games:
            raise TournamentError(f"{player} has no game {game} in {self.black} v {self.white}")
        _check(half_points in GAME_RESULTS, f"a game scores 0, 1 or 2, not {half_points!r}")
        black_points = half_points if player == self.black else WIN - half_points
        return replace(self, results=(*self.results[:game], black_points, *self.results[game + 1 :]))


@dataclass(frozen=True)
class Bye:
    """A player who sits a round out: a Swiss bye scores as a match won, a round robin's sitting out scores 0."""

    player: UserId
    half_points: int

    def __post_init__(self) -> None:
        _check(_is_int(self.half_points) and 0 <= self.half_points <= 2 * WIN, f"bad bye {self.half_points!r}")


@dataclass(frozen=True)
class Round:
    """A round: its number (from 1), its matches, and who sits out. An arena's rounds are its waves of pairings."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: Bye | None = None

    def __post_init__(self) -> None:
        _check(_is_int(self.number) and self.number >= 1, f"a round's number starts at 1: {self.number!r}")
        seen = [p for pairing in self.pairings for p in pairing.players]
        if self.bye is not None:
            seen.append(self.bye.player)
        _check(len(seen) == len(set(seen)), f"round {self.number} names a player twice")

    @property
    def players(self) -> frozenset[UserId]:
        ids = {p for pairing in self.pairings for p in pairing.players}
        return frozenset(ids | ({self.bye.player} if self.bye else set()))

    @property
    def finished(self) -> bool:
        return all(p.finished for p in self.pairings)

    def pairing_of(self, player: UserId) -> Pairing | None:
        return next((p for p in self.pairings if player in p.players), None)


@dataclass(frozen=True)
class Tournament:
    """A whole tournament. ``players`` is the seeded order (the round robin's table numbers follow it); ``seed``
    draws the ballots."""

    format: TournamentFormat
    match: MatchKind
    players: tuple[Entrant, ...]
    seed: int = 0
    rounds: tuple[Round, ...] = ()

    def __post_init__(self) -> None:
        ids = [e.id for e in self.players]
        _check(len(ids) == len(set(ids)), "a player is entered twice")
        _check(_is_int(self.seed), f"the seed must be an integer: {self.seed!r}")
        known = set(ids)
        for number, round_ in enumerate(self.rounds, start=1):
            _check(round_.number == number, f"round {round_.number} is stored as round {number}")
            _check(round_.players <= known, f"round {number} pairs a player who is not entered")
            _check(all(p.games == self.match.games for p in round_.pairings), f"round {number}: wrong match length")

    @property
    def active(self) -> tuple[Entrant, ...]:
        """The players still in, in seeded order."""
        return tuple(e for e in self.players if not e.withdrawn)

    def entrant(self, player: UserId) -> Entrant:
        for entrant in self.players:
            if entrant.id == player:
                return entrant
        raise TournamentError(f"{player} is not entered")

    def with_round(self, round_: Round) -> Tournament:
        return replace(self, rounds=(*self.rounds, round_))

    def with_result(self, round_number: int, player: UserId, game: int, half_points: int) -> Tournament:
        """The tournament with ``player``'s game ``game`` of round ``round_number`` scored ``half_points`` for them."""
        if not 1 <= round_number <= len(self.rounds):
            raise TournamentError(f"there is no round {round_number}")
        round_ = self.rounds[round_number - 1]
        pairing = round_.pairing_of(player)
        if pairing is None:
            raise TournamentError(f"{player} plays no match in round {round_number}")
        scored = pairing.with_result(player, game, half_points)
        new_round = replace(round_, pairings=tuple(scored if p is pairing else p for p in round_.pairings))
        return replace(self, rounds=tuple(new_round if r is round_ else r for r in self.rounds))

    def withdraw(self, player: UserId) -> Tournament:
        self.entrant(player)
        return replace(self, players=tuple(replace(e, withdrawn=True) if e.id == player else e for e in self.players))

    def matches_of(self, player: UserId) -> Iterator[tuple[int, Pairing]]:
        """``(round number, pairing)`` of each match ``player`` was paired in, in round order."""
        for round_ in self.rounds:
            pairing = round_.pairing_of(player)
            if pairing is not None:
                yield round_.number, pairing

    def half_points(self) -> dict[UserId, int]:
        """Each player's score in half-points: every game scored so far, and the byes."""
        totals = {e.id: 0 for e in self.players}
        for round_ in self.rounds:
            for pairing in round_.pairings:
                for player in pairing.players:
                    totals[player] += sum(pairing.results_of(player))
            if round_.bye is not None:
                totals[round_.bye.player] += round_.bye.half_points
        return totals

    # -- JSON -----------------------------------------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": self.format.value,
                "match": self.match.value,
                "seed": self.seed,
                "players": [{"id": e.id, "rating": e.rating, "withdrawn": e.withdrawn} for e in self.players],
                "rounds": [_round_data(r) for r in self.rounds],
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Tournament:
        """The tournament a :meth:`to_json` record holds; :class:`TournamentRecordError` for anything malformed."""
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as error:
            raise TournamentRecordError(f"a tournament record is not JSON: {error}") from None
        record = _mapping(data, "the tournament record")
        return cls(
            format=_enum(TournamentFormat, _get(record, "format", str)),
            match=_enum(MatchKind, _get(record, "match", str)),
            seed=_get(record, "seed", int),
            players=tuple(_entrant(item) for item in _get(record, "players", list)),
            rounds=tuple(_round(item) for item in _get(record, "rounds", list)),
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _round_data(round_: Round) -> dict[str, object]:
    bye = round_.bye
    return {
        "number": round_.number,
        "pairings": [_pairing_data(p) for p in round_.pairings],
        "bye": None if bye is None else {"player": bye.player, "half_points": bye.half_points},
    }


def _pairing_data(pairing: Pairing) -> dict[str, object]:
    return {"black": pairing.black, "white": pairing.white, "results": list(pairing.results), "ballot": pairing.ballot}


def _mapping(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise TournamentRecordError(f"{what} must be a JSON object, not {type(value).__name__}")
    return value


def _get(record: Mapping[str, object], key: str, kind: type[_T]) -> _T:
    if key not in record:
        raise TournamentRecordError(f"a tournament record misses {key!r}")
    value = record[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TournamentRecordError(f"{key!r} must be {kind.__name__}, not {value!r}")
    return value


def _optional(record: Mapping[str, object], key: str, kind: type[_T]) -> _T | None:
    return None if record.get(key) is None else _get(record, key, kind)


_E = TypeVar("_E", bound=enum.Enum)


def _enum(kind: type[_E], value: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        raise TournamentRecordError(f"{value!r} is no {kind.__name__}") from None


def _entrant(item: object) -> Entrant:
    record = _mapping(item, "a player")
    return Entrant(UserId(_get(record, "id", str)), _get(record, "rating", int), _get(record, "withdrawn", bool))


def _round(item: object) -> Round:
    record = _mapping(item, "a round")
    bye = _optional(record, "bye", dict)
    return Round(
        number=_get(record, "number", int),
        pairings=tuple(_pairing(p) for p in _get(record, "pairings", list)),
        bye=None if bye is None else Bye(UserId(_get(bye, "player", str)), _get(bye, "half_points", int)),
    )


def _pairing(item: object) -> Pairing:
    record = _mapping(item, "a pairing")
    results = _get(record, "results", list)
    _check(all(r is None or _is_int(r) for r in results), f"a game's result must be an integer or null: {results}")
    return Pairing(
        black=UserId(_get(record, "black", str)),
        white=UserId(_get(record, "white", str)),
        results=tuple(results),
        ballot=_optional(record, "ballot", int),
    )
