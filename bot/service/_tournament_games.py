"""A tournament's games and news: the game of each board of each round (its id, players, colours and opening), the
points a finished game gives, and the events that announce a round and the end."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping

from bot.i18n import _
from bot.service._events import RoundStarted, TournamentFinished
from bot.service._ids import GameId, TournamentId, UserId
from bot.service._models import GameKind, GameState, PlayerRef, is_ai_id
from bot.service._tournament_ballots import ballot_of
from bot.service._tournament_model import DRAW, LOSS, WIN, Pairing
from bot.service._tournament_record import BoardGame, TournamentRecord
from bot.service._transitions import Step, new_game
from core import Board


def game_id_of(tournament_id: TournamentId, round_number: int, board: int, number: int) -> GameId:
    """The id of a game of a tournament (12 hex digits, as any game's): the same for every process that opens it."""
    text = f"{tournament_id}:{round_number}:{board}:{number}"
    return GameId(hashlib.blake2b(text.encode(), digest_size=6).hexdigest())


def board_game(record: TournamentRecord, pairing: Pairing, game_id: GameId, number: int, now: float) -> Step:
    """The first step of game ``number`` of a pairing: its players' colours, the ballot's opening already played, rated
    when two people play in a rated tournament."""
    first, second = pairing.players if number % 2 == 0 else pairing.players[::-1]
    black, white = player_ref(record, first), player_ref(record, second)
    board = Board(None, record.variant)
    opening = ballot_of(pairing.ballot).moves if pairing.ballot is not None else ()
    for move in opening:
        board.push_text(move)
    people = not black.is_ai and not white.is_ai
    kind = GameKind.HUMAN if people else GameKind.EXHIBITION if black.is_ai and white.is_ai else GameKind.AI
    rated = record.rated and people
    reason = None if rated else _("a tournament game") if people else _("a tournament game with the AI")
    step = new_game(
        game_id, kind, record.guild_id, record.channel_id, board, black, white, record.turn_time, now,
        rated=rated, unrated_reason=reason,
    )  # fmt: skip
    return dataclasses.replace(step, after=dataclasses.replace(step.after, moves=(*opening, *step.after.moves)))


def player_ref(record: TournamentRecord, player: UserId) -> PlayerRef:
    if is_ai_id(player):
        return PlayerRef.ai(player.removeprefix("ai:"))
    return PlayerRef(player, record.name_of(player))


def points_of(game: GameState, board_game: BoardGame) -> int | None:
    """The half-points the pairing's first player (its ``black``) scored in a finished game (None while it is played):
    the first game of a pairing gives them Black, the second White."""
    if game.is_active or game.result is None:
        return None
    black_points = {"1-0": WIN, "0-1": LOSS}.get(game.result, DRAW)
    return black_points if board_game.game % 2 == 0 else WIN - black_points


def round_started(record: TournamentRecord, number: int, games: list[BoardGame]) -> RoundStarted:
    text = _("{name}: round {round} is paired", name=record.name, round=number)
    ids = tuple(g.game_id for g in games)
    where = record.id, record.guild_id, record.channel_id
    return RoundStarted(text, tournament_id=where[0], guild_id=where[1], channel_id=where[2], round=number, games=ids)


def finished_news(record: TournamentRecord, cancelled: bool = False) -> TournamentFinished:
    text = _("{name} is cancelled", name=record.name) if cancelled else _("{name} is over", name=record.name)
    where = record.id, record.guild_id, record.channel_id
    return TournamentFinished(text, tournament_id=where[0], guild_id=where[1], channel_id=where[2], cancelled=cancelled)


def with_results(record: TournamentRecord, games: Mapping[GameId, GameState]) -> TournamentRecord:
    """``record`` with the results it does not have yet: each finished game of ``games`` (by id), and a forfeit for
    each game of a withdrawn player that has not begun."""
    model = record.model
    for played in record.games:
        game = games.get(played.game_id)
        points = points_of(game, played) if game is not None else None
        pairing = model.rounds[played.round - 1].pairings[played.board]
        if points is not None and pairing.results[played.game] is None:
            model = model.with_result(played.round, pairing.black, played.game, points)
    opened = {(g.round, g.board, g.game) for g in record.games}
    for round_ in model.rounds:
        for board, pairing in enumerate(round_.pairings):
            quitter = next((p for p in pairing.players if model.entrant(p).withdrawn), None)
            for number, result in enumerate(pairing.results):
                if quitter is not None and result is None and (round_.number, board, number) not in opened:
                    model = model.with_result(round_.number, quitter, number, LOSS)
    return record if model is record.model else dataclasses.replace(record, model=model)
