"""Pure game transitions: what each command does to a game, with no Redis and no asyncio.

Every command is a function of the stored :class:`GameState`, the time ``now`` and the request (the user, the move)
that returns a :class:`Step` (the next state, at version + 1, and the events to show) or raises the error that refuses
the request: a :class:`ServiceError`, or core's :class:`IllegalMoveError` for a move the rules refuse. Nothing here
stores anything, so a refused command changes nothing. :class:`bot.service.GameService` runs these inside its pipeline
(lock, load, plan, save, schedule the AI, publish).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypedDict, Unpack

from ai.endgames import LEVEL as ENDGAME_TRAINER
from bot.i18n import _
from bot.service import _errors as errors
from bot.service._events import (
    AiThinking,
    DrawDeclined,
    DrawOffered,
    DrawWithdrawn,
    Event,
    GameOver,
    GameStarted,
    MovePlayed,
    Passed,
    TakebackDeclined,
    TakebackDone,
    TakebackRequested,
    TakebackWithdrawn,
)
from bot.service._ids import ChannelId, GameId, GuildId, UserId
from bot.service._models import GameKind, GameState, PlayerRef, Status, User, color_name, parse_color
from bot.service._places import Place
from bot.service._wording import end_text, side_name
from core import PASS, Board, Color, IllegalMoveError, Move, Outcome, RulesError, Termination


@dataclass
class Step:
    """The outcome of applying a command to a game: the new state and what to tell people."""

    after: GameState
    events: list[Event] = field(default_factory=list)


class Skip(Exception):  # noqa: N818 - control flow, not an error
    """A background step (a timeout) that no longer applies."""


Plan = Callable[[GameState, float], Step]
"""A command bound to its request: the step from the stored game at time ``now``."""


# -- the start of a game ----------------------------------------------------------------------------------------------


class GameDetails(TypedDict, total=False):
    """What a new game may set besides its players, place and clock (the rest starts at :class:`GameState`'s
    defaults)."""

    rated: bool
    unrated_reason: str | None
    ai_think_time: float | None
    rematch_of: GameId | None
    place: Place


def new_game(
    game_id: GameId,
    kind: GameKind,
    guild_id: GuildId,
    channel_id: ChannelId,
    board: Board,
    black: PlayerRef,
    white: PlayerRef,
    turn_time: float,
    now: float,
    **details: Unpack[GameDetails],
) -> Step:
    """A game starting from ``board`` (with ``details`` such as ``rated``), after the passes of a blocked side; its
    events say it started and, when an AI is to move, that it thinks."""
    game = GameState(
        id=game_id,
        guild_id=guild_id,
        channel_id=channel_id,
        kind=kind,
        variant=board.variant.name,
        initial_fen=board.initial_fen,
        black=black,
        white=white,
        turn_time=turn_time,
        created_at=now,
        updated_at=now,
        deadline=now + turn_time,
        **details,
    )
    events: list[Event] = [GameStarted(f"{black.name} (Black) vs {white.name} (White)", game.id)]
    game = replace(game, moves=tuple(auto_pass(game, board, events)))
    if ai_to_move(game, board):
        events.append(thinking(game, board))
    return Step(game, events)


# -- the commands -----------------------------------------------------------------------------------------------------


def move(game: GameState, now: float, user: User, move: str | int) -> Step:
    """``user`` plays ``move``: PDN text or an index into the legal moves."""
    board = turn_of(game, user)
    return play(game, board, resolve(board, move), now)


def ai_move(game: GameState, now: float, text: str) -> Step:
    """The AI to move plays the move it chose (text)."""
    board = game.board()
    try:
        chosen = board.parse_move(text)
    except RulesError as exc:
        raise IllegalMoveError(f"the AI chose an illegal move {text!r}: {exc}") from None
    return play(game, board, chosen, now)


def resign(game: GameState, now: float, user: User) -> Step:
    color = player(game, user)
    return end(touch(game, now), Outcome(Termination.RESIGNATION, color.opponent), now, [])


def offer_draw(game: GameState, now: float, user: User) -> Step:
    """Offer a draw; if the opponent had already offered one, the game is drawn."""
    color = player(game, user)
    if game.kind is GameKind.AI:
        raise errors.InvalidRequestError(_("the AI plays on: it does not accept draw offers"))
    if game.draw_offer == color_name(color.opponent):
        return _agreed_draw(game, now)
    if game.draw_offer == color_name(color):
        raise errors.InvalidRequestError(_("you have already offered a draw"))
    after = touch(game, now, draw_offer=color_name(color))
    return Step(after, [DrawOffered(_("{name} offers a draw", name=user.name), game.id)])


def accept_draw(game: GameState, now: float, user: User) -> Step:
    answering(game, user, game.draw_offer, _("your opponent has not offered a draw"))
    return _agreed_draw(game, now)


def decline_draw(game: GameState, now: float, user: User) -> Step:
    """Decline the opponent's draw offer, or withdraw your own."""
    if _own(game, user, game.draw_offer):
        after = touch(game, now, draw_offer=None)
        return Step(after, [DrawWithdrawn(_("{name} withdraws the draw offer", name=user.name), game.id)])
    color = answering(game, user, game.draw_offer, _("your opponent has not offered a draw"))
    after = touch(game, now, draw_offer=None)
    text = _("{name} declines the draw", name=user.name)
    return Step(after, [DrawDeclined(text, game.id, to=game.player(color.opponent).id)])


def takeback(game: GameState, now: float, user: User) -> Step:
    """Ask to take your last move back: against the AI it is done at once; a person must agree."""
    color = player(game, user)
    if ENDGAME_TRAINER in (game.black.level, game.white.level):  # the trainer's verdict counts every move played
        raise errors.InvalidRequestError(_("an endgame training game has no takebacks"))
    moves = undo(game, color)  # raises when there is nothing to take back
    if game.kind is GameKind.AI:
        return take_back(game, moves, now, _("{name} took back a move", name=user.name))
    if game.takeback_offer == color_name(color):
        raise errors.InvalidRequestError(_("you have already asked to take your move back"))
    after = touch(game, now, takeback_offer=color_name(color))
    text = _("{name} asks to take their last move back", name=user.name)
    return Step(after, [TakebackRequested(text, game.id)])


def accept_takeback(game: GameState, now: float, user: User) -> Step:
    color = answering(game, user, game.takeback_offer, _("your opponent has not asked for a takeback"))
    text = _("{name} agreed to a takeback", name=user.name)
    return take_back(game, undo(game, color.opponent), now, text, to=game.player(color.opponent).id)


def decline_takeback(game: GameState, now: float, user: User) -> Step:
    """Refuse the opponent's takeback request, or withdraw your own."""
    if _own(game, user, game.takeback_offer):
        after = touch(game, now, takeback_offer=None)
        text = _("{name} withdraws the takeback request", name=user.name)
        return Step(after, [TakebackWithdrawn(text, game.id)])
    color = answering(game, user, game.takeback_offer, _("your opponent has not asked for a takeback"))
    after = touch(game, now, takeback_offer=None)
    text = _("{name} declines the takeback", name=user.name)
    return Step(after, [TakebackDeclined(text, game.id, to=game.player(color.opponent).id)])


def timeout(game: GameState, now: float) -> Step:
    """The side to move loses on time; :class:`Skip` when the game is not (or no longer) overdue."""
    if not game.is_active or game.deadline > now:
        raise Skip("not overdue")
    return end(touch(game, now), Outcome(Termination.TIME, game.turn.opponent), now, [])


# -- the steps the commands are made of -------------------------------------------------------------------------------


def play(game: GameState, board: Board, move: Move, now: float) -> Step:
    """Play ``move`` (legal in ``board``) and any passes that follow; the new state and its events."""
    mover = board.turn
    who = game.player(mover)
    board.push(move)
    text = _("{name} played {move}", name=who.name, move=move.text())
    events: list[Event] = [MovePlayed(text, game.id, move=move.text(), color=color_name(mover), ai=who.is_ai)]
    played = [move.text(), *auto_pass(game, board, events)]
    offer = game.draw_offer if game.draw_offer == color_name(mover) else None  # a reply declines an offer
    after = replace(
        game,
        moves=game.moves + tuple(played),
        version=game.version + 1,
        updated_at=now,
        deadline=now + game.turn_time,
        draw_offer=offer,
        takeback_offer=None,
    )
    outcome = board.outcome()
    if outcome is not None:
        return end(after, outcome, now, events)
    if ai_to_move(after, board):
        events.append(thinking(after, board))
    return Step(after, events)


def auto_pass(game: GameState, board: Board, events: list[Event]) -> list[str]:
    """Play the pass of every blocked side (in the variants where a side passes); returns their texts."""
    passes: list[str] = []
    while board.outcome() is None and board.legal_moves == [PASS]:
        events.append(Passed(_("{name} cannot move and passes", name=game.player(board.turn).name), game.id))
        board.push(PASS)
        passes.append(PASS.text())
    return passes


def end(game: GameState, outcome: Outcome, now: float, events: list[Event]) -> Step:
    """``game`` (already at its next version) ended with ``outcome``."""
    after = replace(
        game,
        status=Status.FINISHED,
        ended_at=now,
        updated_at=now,
        result=outcome.result(),
        termination=outcome.termination.value,
        winner=color_name(outcome.winner) if outcome.winner is not None else None,
        end_text=outcome.describe(),
        draw_offer=None,
        takeback_offer=None,
    )
    over = GameOver(
        outcome.describe(), game.id, result=after.result, termination=after.termination, winner=after.winner
    )
    return Step(after, [*events, over])


def _agreed_draw(game: GameState, now: float) -> Step:
    return end(touch(game, now), Outcome(Termination.AGREEMENT, None), now, [])


class Offers(TypedDict, total=False):
    """The open offers a step of a game may set (or withdraw, with None) as it touches it."""

    draw_offer: str | None
    takeback_offer: str | None


def touch(game: GameState, now: float, **changes: Unpack[Offers]) -> GameState:
    """The next version of ``game`` with ``changes`` (the clock is not reset)."""
    return replace(game, version=game.version + 1, updated_at=now, **changes)


def undo(game: GameState, color: Color) -> tuple[str, ...]:
    """The move list with ``color``'s last move (and everything after it) taken back."""
    board = game.board()
    while board.move_stack:
        move = board.pop()
        if board.turn is color and not move.is_pass:
            return tuple(m.text() for m in board.move_stack)
    raise errors.NothingToTakeBackError(_("there is no move of yours to take back"))


def take_back(game: GameState, moves: tuple[str, ...], now: float, text: str, to: UserId | None = None) -> Step:
    """``game`` back at ``moves`` (a takeback makes a game against the AI unrated), with a fresh clock."""
    after = replace(
        game,
        moves=moves,
        version=game.version + 1,
        updated_at=now,
        deadline=now + game.turn_time,
        draw_offer=None,
        takeback_offer=None,
        takebacks=game.takebacks + 1,
        rated=False if game.kind is GameKind.AI else game.rated,
    )
    return Step(after, [TakebackDone(text, game.id, plies=len(game.moves) - len(moves), to=to)])


def ai_to_move(game: GameState, board: Board) -> bool:
    return game.is_active and game.player(board.turn).is_ai


def thinking(game: GameState, board: Board) -> Event:
    return AiThinking(_("{name} is thinking…", name=game.player(board.turn).name), game.id)


def rematch_sides(game: GameState, user: User) -> tuple[PlayerRef, str]:
    """For a rematch of the finished ``game`` that ``user`` asks for: the opponent, and the colour ``user`` plays
    (the other one this time)."""
    if game.is_active:
        raise errors.GameNotOverError(_("the game is still being played"))
    color = player(game, user, _("only the players can ask for a rematch"))
    return game.player(color.opponent), color_name(color.opponent)


# -- checks -----------------------------------------------------------------------------------------------------------


def check_guild(game: GameState, guild_id: GuildId | None) -> None:
    """Refuse a request from another server (None: any)."""
    if guild_id is not None and guild_id != game.guild_id:
        raise errors.OtherGuildError(_("that game belongs to another server"))


def active(game: GameState) -> None:
    if not game.is_active:
        raise errors.GameOverError(_("the game is over: {end}", end=end_text(game)))


def player(game: GameState, user: User, refusal: str = _("you are not playing in this game")) -> Color:
    """The side ``user`` plays; :class:`NotAPlayerError` with ``refusal`` for a spectator."""
    color = game.color_of(user.id)
    if color is None:
        raise errors.NotAPlayerError(refusal)
    return color


def _own(game: GameState, user: User, offer: str | None) -> bool:
    """Whether ``offer`` (a pending offer's side) is ``user``'s own."""
    color = game.color_of(user.id)
    return offer is not None and color is not None and offer == color_name(color)


def answering(game: GameState, user: User, offer: str | None, missing: str) -> Color:
    """The colour of a player answering the opponent's pending ``offer`` (a draw or takeback offer's side); raises
    :class:`NoOfferError` with ``missing`` when the opponent has made none, and says whose answer it is to anyone
    else (the one who made the offer, a spectator)."""
    color = game.color_of(user.id)
    if offer is not None and (color is None or color_name(color) == offer):
        answerer = game.player(parse_color(offer).opponent)
        raise errors.NotAPlayerError(_("this button is for {name}: the answer is theirs", name=answerer.name))
    color = player(game, user)
    if offer != color_name(color.opponent):
        raise errors.NoOfferError(missing)
    return color


def turn_of(game: GameState, user: User) -> Board:
    """The board, when it is ``user``'s turn."""
    color = player(game, user)
    board = game.board()
    if board.turn is not color:
        raise errors.NotYourTurnError(
            _("it is {name}'s turn ({side})", name=game.player(board.turn).name, side=side_name(board.turn))
        )
    return board


def resolve(board: Board, move: str | int) -> Move:
    """The legal move that ``move`` names (text, or an index into ``board.legal_moves``); core's
    :class:`IllegalMoveError` (or :class:`AmbiguousMoveError`) for anything else."""
    if isinstance(move, int) and not isinstance(move, bool):
        legal = board.legal_moves
        if not 0 <= move < len(legal):
            raise IllegalMoveError(
                _("there is no move number {move}: choose from the {count} legal moves", move=move, count=len(legal))
            )
        return legal[move]
    if not isinstance(move, str):
        raise IllegalMoveError(_("a move is text such as 11-15 or a move number"))
    try:
        return board.parse_move(move)
    except IllegalMoveError:
        raise
    except RulesError as exc:  # not a move, or a square off the board
        raise IllegalMoveError(exc.template, **exc.params) from None
