"""The arena: AI levels play each other from opening ballots, and the match is scored with an Elo estimate.

A match is played in pairs of games: each ballot is played twice from the same opening, with the colours swapped, so
that an unbalanced opening favours neither level. Games are independent, so they run in worker processes
(:class:`concurrent.futures.ProcessPoolExecutor`); :func:`play_game` is the module-level function a worker runs.

A game ends by the rules (:meth:`core.Board.outcome`: no pieces, no moves, threefold repetition, the 40-move rule) or,
failing that, by adjudication: at :data:`MAX_PLIES` plies (opening included) it is scored a draw. A level that answers
with an illegal move or raises loses the game (termination ``forfeit: ...``), so one faulty level cannot stop a match.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from ai.ballots import Ballot, openings
from ai.levels import get_level, merge_limits
from ai.player import Limits
from core import Board, Color, RulesError, get_variant
from core.pdn import game_to_pdn

MAX_PLIES = 400
"""The adjudication cap: a game still going after this many plies (opening included) is scored a draw. Only a safety
net: the game's own rules end every game of English draughts (the 40-move rule), and a cap of 200 scored games as
draws that strong levels were winning (two kings against one at ply 190, a win in the endgame databases)."""
ADJUDICATED = "adjudicated: ply cap"
Z_95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""
ONE_SIDED_95 = 0.05
"""The chance left out by a one-sided 95% bound."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game, as plain data: enough to replay it and to write it as PDN."""

    black: str
    """The level that played Black (the first side to move)."""
    white: str
    variant: str
    initial_fen: str
    moves: tuple[str, ...]
    """Every move in PDN text, the opening's included."""
    result: str
    """``1-0`` Black won, ``0-1`` White won, ``1/2-1/2`` drawn (the PDN standard)."""
    termination: str
    """Why it ended: a :class:`core.Termination` value, ``adjudicated: ply cap``, or ``forfeit: ...``."""
    opening: str = ""
    """The ballot's name, e.g. ``ACF 12``."""
    opening_plies: int = 0

    @property
    def winner(self) -> Color | None:
        return {"1-0": Color.BLACK, "0-1": Color.WHITE}.get(self.result)

    def score(self, color: Color) -> float:
        """The points of the side that played ``color``: 1, ½ or 0."""
        winner = self.winner
        return 0.5 if winner is None else float(winner is color)

    def board(self) -> Board:
        """The final position with the whole game on its move stack."""
        board = Board(self.initial_fen, self.variant)
        for text in self.moves:
            board.push_text(text)
        return board

    def pdn(self, headers: Mapping[str, str] | None = None) -> str:
        """The game as PDN text (``core.pdn``), with the levels as players and the opening and termination as tags."""
        tags = {"Event": "King Me arena", "Black": self.black, "White": self.white, "Termination": self.termination}
        if self.opening:
            tags["Opening"] = self.opening
        tags.update(headers or {})
        return game_to_pdn(self.board(), tags, result=self.result)


def play_game(
    black_level: str,
    white_level: str,
    opening_moves: Sequence[str] = (),
    variant: str = "american",
    limits: Limits | None = None,
    seed: int = 0,
    *,
    max_plies: int = MAX_PLIES,
    opening_name: str = "",
) -> GameRecord:
    """Play one game between two named levels from the start position after ``opening_moves``.

    Each side gets its own player for the whole game and its own random stream derived from ``seed``. Raises
    :class:`ai.levels.UnknownLevelError` for an unknown level and :class:`core.RulesError` for an illegal opening.
    """
    board = Board(None, variant)
    for text in opening_moves:
        board.push_text(text)
    specs = {Color.BLACK: get_level(black_level), Color.WHITE: get_level(white_level)}
    players = {color: spec.factory() for color, spec in specs.items()}
    side_limits = {color: merge_limits(spec, limits) for color, spec in specs.items()}
    rngs = {color: random.Random(seed * 2 + int(color)) for color in Color}
    termination = ADJUDICATED
    result = "1/2-1/2"
    while True:
        outcome = board.outcome()
        if outcome is not None:
            termination, result = outcome.termination.value, outcome.result()
            break
        if len(board.move_stack) >= max_plies:
            break
        side = board.turn
        try:
            choice = players[side].choose(board.copy(), side_limits[side], rngs[side])
            move = board.parse_move(choice.move)
        except Exception as exc:  # a broken level loses the game instead of stopping the match
            termination = f"forfeit: {specs[side].name} as {side.label}: {type(exc).__name__}: {exc}"
            result = "0-1" if side is Color.BLACK else "1-0"
            break
        board.push(move)
    return GameRecord(
        black=specs[Color.BLACK].name,
        white=specs[Color.WHITE].name,
        variant=board.variant.name,
        initial_fen=board.initial_fen,
        moves=tuple(m.text() for m in board.move_stack),
        result=result,
        termination=termination,
        opening=opening_name,
        opening_plies=len(opening_moves),
    )


# -- scoring ----------------------------------------------------------------------------------------------------------


def elo_from_score(score: float) -> float:
    """The Elo difference that a fractional score implies: ``-400·log10(1/score - 1)``; ±inf at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0 turns -0.0 into 0.0


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its 95% confidence interval."""

    elo: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        """Half the width of the interval (the ``±`` figure); inf when a bound is infinite."""
        if math.isinf(self.low) or math.isinf(self.high):
            return math.inf
        return (self.high - self.low) / 2.0

    def describe(self) -> str:
        """E.g. ``+191 ± 120 (95% CI +80 to +310)``; a 100% score is ``at least +316 (…)``, a 0% score ``at most
        -316 (…)``, and an end of the interval that no finite difference reaches is said in words."""
        if math.isinf(self.elo):
            if self.elo > 0:
                few = "; too few games to tell which side is stronger" if self.low <= 0 else ""
                return f"at least {_signed(self.low)} (95% confidence: every game won, so no upper bound{few})"
            few = "; too few games to tell which side is stronger" if self.high >= 0 else ""
            return f"at most {_signed(self.high)} (95% confidence: every game lost, so no lower bound{few})"
        if math.isinf(self.low) and math.isinf(self.high):
            return f"{_signed(self.elo)} (95% CI unbounded both ways: too few games)"
        if math.isinf(self.high):
            return f"{_signed(self.elo)} (95% CI {_signed(self.low)} and above, no upper bound)"
        if math.isinf(self.low):
            return f"{_signed(self.elo)} (95% CI {_signed(self.high)} and below, no lower bound)"
        return f"{_signed(self.elo)} ± {_number(self.margin)} (95% CI {_signed(self.low)} to {_signed(self.high)})"


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """The Elo difference for a W/D/L record, with a 95% confidence interval from the per-game variance.

    The score is ``s = (W + D/2) / n``; the variance of one game's points is ``(W(1-s)² + D(½-s)² + L·s²) / n``; the
    interval is ``s ± 1.96·sqrt(variance / n)``, clamped to 0%..100%, with each bound turned into Elo (an end at 0% or
    100% is -inf or +inf). A score of 100% (or 0%) has no variance to measure, so its one finite bound is the exact
    one-sided 95% bound of a win rate that won (or lost) every one of n games: ``0.05^(1/n)`` (or one minus it).
    """
    n = wins + draws + losses
    if n <= 0:
        raise ValueError("no games: an Elo estimate needs at least one game")
    score = (wins + draws / 2.0) / n
    if score in (0.0, 1.0):
        bound = elo_from_score(ONE_SIDED_95 ** (1.0 / n))
        return EloEstimate(math.inf, bound, math.inf) if score == 1.0 else EloEstimate(-math.inf, -math.inf, -bound)
    variance = (wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    spread = Z_95 * math.sqrt(variance / n)
    low, high = max(0.0, score - spread), min(1.0, score + spread)
    return EloEstimate(elo_from_score(score), elo_from_score(low), elo_from_score(high))


def _number(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.0f}"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value):+d}"


# -- matches ----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchGame:
    """A game of a match, seen from level A."""

    number: int
    """1-based, in the order the games were dealt (pairs are games 1-2, 3-4, ...)."""
    a_color: Color
    record: GameRecord

    @property
    def a_score(self) -> float:
        return self.record.score(self.a_color)


@dataclass(frozen=True)
class MatchResult:
    """A finished match between levels A and B, scored from A's side."""

    a: str
    b: str
    variant: str
    games: tuple[MatchGame, ...]

    @property
    def wins(self) -> int:
        return sum(g.a_score == 1.0 for g in self.games)

    @property
    def draws(self) -> int:
        return sum(g.a_score == 0.5 for g in self.games)

    @property
    def losses(self) -> int:
        return sum(g.a_score == 0.0 for g in self.games)

    @property
    def points(self) -> float:
        return sum(g.a_score for g in self.games)

    @property
    def score(self) -> float:
        """A's fraction of the points (0..1)."""
        return self.points / len(self.games) if self.games else 0.0

    def elo(self) -> EloEstimate:
        """A's Elo advantage over B, with a 95% confidence interval."""
        return elo_estimate(self.wins, self.draws, self.losses)

    def terminations(self) -> Counter[str]:
        """How many games ended each way."""
        return Counter(g.record.termination for g in self.games)

    def pdn(self, date: str | None = None) -> str:
        """Every game as PDN, one after another, with ``Round`` set to the game's number."""
        headers = {"Event": f"King Me arena: {self.a} vs {self.b}"}
        if date:
            headers["Date"] = date
        return "\n".join(g.record.pdn({**headers, "Round": str(g.number)}) for g in self.games)


def deal_ballots(variant: str, pairs: int, seed: int = 0) -> list[Ballot]:
    """The ballots of ``pairs`` game pairs: the variant's deck shuffled by ``seed``, gone through in turn (every ballot
    once before any repeats)."""
    deck = list(openings(variant))
    random.Random(seed).shuffle(deck)
    return [deck[i % len(deck)] for i in range(pairs)]


def run_match(
    a: str,
    b: str,
    games: int = 2,
    limits: Limits | None = None,
    variant: str = "american",
    jobs: int = 1,
    seed: int = 0,
    on_game: Callable[[MatchGame], None] | None = None,
    *,
    max_plies: int = MAX_PLIES,
    ballots: Iterable[Ballot] | None = None,
) -> MatchResult:
    """Play ``games`` games (an even number) between levels ``a`` and ``b``, in pairs from the same ballot with the
    colours swapped: A has Black in the odd-numbered games. ``jobs`` worker processes play them (1: in this process).
    ``on_game`` is called in this process as each game finishes, in finishing order. The games of the result are in
    dealing order. ``ballots`` overrides the dealt openings (one per pair, reused in turn).

    Raises :class:`ValueError` for a bad count, :class:`ai.levels.UnknownLevelError` or
    :class:`core.UnknownVariantError`.
    """
    if games < 2 or games % 2:
        raise ValueError(f"a match is played in pairs of games: ask for an even number of 2 or more, not {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be 1 or more, not {jobs}")
    if max_plies < 1:
        raise ValueError(f"the ply cap must be 1 or more, not {max_plies}")
    level_a, level_b = get_level(a).name, get_level(b).name
    variant_name = get_variant(variant).name
    pairs = games // 2
    chosen = list(ballots) if ballots is not None else deal_ballots(variant_name, pairs, seed)
    if not chosen:
        raise ValueError("no ballots to deal from")
    for ballot in chosen:
        try:
            ballot.board(variant_name)
        except RulesError as exc:
            raise ValueError(f"ballot {ballot.name} ({ballot.text()}) is not legal in {variant_name}: {exc}") from None
    deals: list[_Deal] = []
    for number in range(1, games + 1):
        ballot = chosen[((number - 1) // 2) % len(chosen)]
        a_color = Color.BLACK if number % 2 else Color.WHITE
        black, white = (level_a, level_b) if a_color is Color.BLACK else (level_b, level_a)
        deals.append(_Deal(number, a_color, black, white, ballot, seed * 1_000_003 + number))

    played: dict[int, MatchGame] = {}

    def finished(deal: _Deal, record: GameRecord) -> None:
        game = MatchGame(deal.number, deal.a_color, record)
        played[deal.number] = game
        if on_game is not None:
            on_game(game)

    def submit_args(deal: _Deal) -> tuple[str, str, tuple[str, ...], str, Limits | None, int]:
        return deal.black, deal.white, deal.ballot.moves, variant_name, limits, deal.seed

    if jobs == 1:
        for deal in deals:
            finished(deal, play_game(*submit_args(deal), max_plies=max_plies, opening_name=deal.ballot.name))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, games)) as pool:
            futures = {
                pool.submit(play_game, *submit_args(deal), max_plies=max_plies, opening_name=deal.ballot.name): deal
                for deal in deals
            }
            try:
                for future in as_completed(futures):
                    finished(futures[future], future.result())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    return MatchResult(level_a, level_b, variant_name, tuple(played[n] for n in sorted(played)))


@dataclass(frozen=True)
class _Deal:
    """One game of a match before it is played."""

    number: int
    a_color: Color
    black: str
    white: str
    ballot: Ballot
    seed: int
