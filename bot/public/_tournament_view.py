"""What the tournament page shows, read from a stored tournament: its state, the outcome of each player's rounds, the
games of each match (their ids, results and forfeits), the round's ballot, and the page's JSON.

The JSON (``/tournaments/{id}.json``) keeps this shape; fields may be added, none renamed or removed::

    {
      "id": "3f9a1c2b7d4e",
      "url": "/tournaments/3f9a1c2b7d4e",
      "name": "Autumn Swiss",
      "format": "swiss",                  # "swiss", "round_robin" or "arena"
      "match": "ballot",                  # "ballot": two games of the round's three-move ballot, colours swapped;
                                          # "single": one game from the start position
      "variant": "american",
      "variant_title": "English draughts",
      "rated": true,
      "turn_time": 86400.0,               # seconds a player has for a move
      "status": "running",                # "open", "running", "finished" or "cancelled"
      "round": 2,                         # rounds paired so far (while running: the round being played; 0 before)
      "rounds_planned": 3,                # a round robin's is known once it starts
      "max_players": 32,
      "created_at": 1767225600.0,         # Unix seconds; started_at and ended_at are null until then
      "started_at": 1767229200.0,
      "ended_at": null,
      "tiebreaks": ["buchholz_cut1", "sonneborn_berger", "wins"],      # the format's, in the order they decide
      "entrants": [{"id": "1234", "name": "Ann", "rating": 1500, "withdrawn": false}, ...],   # seeded order
      "standings": [                      # best first; [] before the first round
        {"rank": 1, "id": "1234", "name": "Ann", "score": 1.5, "withdrawn": false,
         "tiebreaks": {"buchholz_cut1": 1.0, "sonneborn_berger": 0.75, "wins": 1.0},
         "results": [                     # each round the player was in
           {"round": 1, "opponent": "5678", "outcome": "win", "points": 1.5, "games": [1.0, 0.5]},
           {"round": 2, "opponent": null, "outcome": "bye", "points": 1.0, "games": [1.0]}]}, ...],
      "rounds": [
        {"number": 1,
         "ballot": {"index": 12, "name": "ACF 13", "moves": ["11-15", "23-19", "8-11"]},   # null in single games
         "bye": {"id": "9012", "name": "Cid", "points": 1.0},                             # null when nobody sits out
         "matches": [
           {"board": 1, "finished": true,
            "black": {"id": "1234", "name": "Ann"},     # Black in the match's first game (White in its second)
            "white": {"id": "5678", "name": "Bob"},
            "score": [1.5, 0.5],                        # black's and white's points in the games scored so far
            "games": [
              {"number": 1, "id": "a1b2c3d4e5f6", "url": "/games/a1b2c3d4e5f6", "black": "1234", "white": "5678",
               "result": "1-0", "forfeit": false},
              {"number": 2, "id": null, "url": null, "black": "5678", "white": "1234",
               "result": "1/2-1/2", "forfeit": true}]}]}]
    }

Points are numbers (a game won 1, drawn 0.5). A result's ``outcome`` is ``win``, ``draw`` or ``loss`` (the match's
points against the opponent's), ``bye``, or ``unfinished`` (not every game of the match is scored yet); its ``games``
are the points of each game scored so far (a bye's, the bye's points). A game's ``result`` is its PDN result for its
own colours (``1-0``: its Black won), null while it is played or before it begins; ``id`` is null for a game never
played (``forfeit`` true: a withdrawn player's game, scored as lost) or not begun yet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from bot.public._layout import game_path, tournament_path
from bot.service import (
    TIEBREAKS,
    GameId,
    Round,
    RoundResult,
    StandingRow,
    TieBreak,
    TournamentFormat,
    TournamentRecord,
    TournamentStatus,
    UserId,
    ballot_of,
)
from bot.web import JSON
from core import VARIANTS

WIN = 2
"""Half-points of a game won."""
RESULTS = {2: "1-0", 1: "1/2-1/2", 0: "0-1"}
"""A game's PDN result by the half-points its Black scored."""
TIEBREAK_NAMES = {
    TieBreak.BUCHHOLZ_CUT1: "Buchholz cut-1",
    TieBreak.SONNEBORN_BERGER: "Sonneborn-Berger",
    TieBreak.WINS: "Wins",
    TieBreak.HEAD_TO_HEAD: "Head-to-head",
    TieBreak.PERFORMANCE: "Performance",
}
FORMAT_NAMES = {
    TournamentFormat.SWISS: "Swiss",
    TournamentFormat.ROUND_ROBIN: "Round robin",
    TournamentFormat.ARENA: "Arena",
}
_FRACTIONS = {Fraction(0): "", Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}


class Outcome(enum.Enum):
    """A player's round, as the crosstable shows it (its letter)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    BYE = "bye"
    UNFINISHED = "unfinished"

    @property
    def letter(self) -> str:
        return {"win": "W", "draw": "D", "loss": "L", "bye": "B", "unfinished": "…"}[self.value]


def outcome(result: RoundResult, games: int) -> Outcome:
    """The outcome of a player's round in matches of ``games`` games."""
    if result.opponent is None:
        return Outcome.BYE
    if len(result.results) < games:
        return Outcome.UNFINISHED
    mine, half = sum(result.results), games * WIN // 2
    return Outcome.WIN if mine > half else Outcome.DRAW if mine == half else Outcome.LOSS


def points_text(points: Fraction) -> str:
    """``1½``, ``½``, ``0``, ``2¾``: points as a crosstable writes them (two decimals for other fractions)."""
    whole, part = divmod(points, 1)
    if part not in _FRACTIONS:
        return f"{float(points):.2f}"
    return f"{whole if whole or not part else ''}{_FRACTIONS[part]}"


def tiebreak_text(kind: TieBreak, value: Fraction) -> str:
    """A tie-break's value as shown: a performance as a whole rating, the others as points."""
    return str(round(value)) if kind is TieBreak.PERFORMANCE else points_text(value)


def _number(value: Fraction) -> float:
    return round(float(value), 2)


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: ``number`` from 1, its colours, its PDN result (None while played or not begun), its id
    (None if it never opened: a forfeit, or not begun yet)."""

    number: int
    black: UserId
    white: UserId
    result: str | None
    game_id: GameId | None

    @property
    def forfeit(self) -> bool:
        return self.game_id is None and self.result is not None


def match_games(record: TournamentRecord, round_number: int, board: int) -> tuple[MatchGame, ...]:
    """The games of match ``board`` (from 0) of round ``round_number``, from the tournament's record: the results it
    recorded (so the page agrees with the standings) and the games it opened."""
    pairing = record.model.rounds[round_number - 1].pairings[board]
    opened = {g.game: g.game_id for g in record.games_of_round(round_number) if g.board == board}
    games = []
    for number, first_points in enumerate(pairing.results):
        swapped = number % 2 == 1  # the second game of a ballot match swaps the colours
        black, white = pairing.players[::-1] if swapped else pairing.players
        result = None if first_points is None else RESULTS[WIN - first_points if swapped else first_points]
        games.append(MatchGame(number + 1, black, white, result, opened.get(number)))
    return tuple(games)


def round_ballot_index(round_: Round) -> int | None:
    """The ballot the round's matches play (one a round), None in single games or a round of byes only."""
    return next((p.ballot for p in round_.pairings if p.ballot is not None), None)


def state_text(record: TournamentRecord) -> str:
    """``Open for entries``, ``Round 2 of 3 being played``, ``Finished``, ``Cancelled``."""
    status = record.status
    if status is TournamentStatus.OPEN:
        return f"Open for entries: {len(record.entrants)} of {record.max_players} places taken"
    if status is TournamentStatus.RUNNING:
        return f"Round {record.round} of {record.rounds_planned} being played" if record.round else "Starting"
    return "Finished" if status is TournamentStatus.FINISHED else "Cancelled"


def variant_title(record: TournamentRecord) -> str:
    return VARIANTS[record.variant].title if record.variant in VARIANTS else record.variant


# -- JSON ---------------------------------------------------------------------------------------------------------


def tournament_json(record: TournamentRecord, rows: tuple[StandingRow, ...]) -> dict[str, JSON]:
    """The page's JSON (the shape is in the module's docstring); ``rows`` are the standings of ``record.model``."""
    games = record.match.games
    return {
        "id": record.id,
        "url": tournament_path(record.id),
        "name": record.name,
        "format": record.format.value,
        "match": record.match.value,
        "variant": record.variant,
        "variant_title": variant_title(record),
        "rated": record.rated,
        "turn_time": record.turn_time,
        "status": record.status.value,
        "round": record.round,
        "rounds_planned": record.rounds_planned,
        "max_players": record.max_players,
        "created_at": record.created_at,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "tiebreaks": [k.value for k in TIEBREAKS[record.format]],
        "entrants": [
            {"id": e.id, "name": record.name_of(e.id), "rating": e.rating, "withdrawn": e.withdrawn}
            for e in record.model.players
        ],
        "standings": [] if not record.model.rounds else [_row_json(record, row, games) for row in rows],
        "rounds": [_round_json(record, r) for r in record.model.rounds],
    }


def _row_json(record: TournamentRecord, row: StandingRow, games: int) -> dict[str, JSON]:
    return {
        "rank": row.rank,
        "id": row.player,
        "name": record.name_of(row.player),
        "score": _number(row.score),
        "withdrawn": row.withdrawn,
        "tiebreaks": {kind.value: _number(value) for kind, value in row.tiebreaks},
        "results": [
            {
                "round": r.round,
                "opponent": r.opponent,
                "outcome": outcome(r, games).value,
                "points": _number(r.points),
                "games": [_number(Fraction(g, WIN)) for g in r.results],
            }
            for r in row.results
        ],
    }


def _player_json(record: TournamentRecord, player: UserId) -> dict[str, JSON]:
    return {"id": player, "name": record.name_of(player)}


def _round_json(record: TournamentRecord, round_: Round) -> dict[str, JSON]:
    index = round_ballot_index(round_)
    ballot = None if index is None else ballot_of(index)
    bye = round_.bye
    matches: list[JSON] = []
    for board, pairing in enumerate(round_.pairings):
        scored = [r for r in pairing.results if r is not None]
        matches.append(
            {
                "board": board + 1,
                "finished": pairing.finished,
                "black": _player_json(record, pairing.black),
                "white": _player_json(record, pairing.white),
                "score": [_number(Fraction(sum(scored), WIN)), _number(Fraction(WIN * len(scored) - sum(scored), WIN))],
                "games": [_game_json(g) for g in match_games(record, round_.number, board)],
            }
        )
    return {
        "number": round_.number,
        "ballot": None if ballot is None else {"index": index, "name": ballot.name, "moves": list(ballot.moves)},
        "bye": None
        if bye is None
        else {**_player_json(record, bye.player), "points": _number(Fraction(bye.half_points, WIN))},
        "matches": matches,
    }


def _game_json(game: MatchGame) -> dict[str, JSON]:
    return {
        "number": game.number,
        "id": game.game_id,
        "url": None if game.game_id is None else game_path(game.game_id),
        "black": game.black,
        "white": game.white,
        "result": game.result,
        "forfeit": game.forfeit,
    }
