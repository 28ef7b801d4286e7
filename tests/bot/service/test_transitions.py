"""The game transitions as pure functions: a state, the time and a request in; the next state and its events out.

No Redis and no event loop: these are the rules of a game's life (moves, passes, endings, offers, takebacks, time)
that the service's pipeline stores and publishes."""

from __future__ import annotations

from dataclasses import replace

import pytest

import bot.service as api
from bot.service import (
    AiThinking,
    DrawDeclined,
    DrawOffered,
    DrawWithdrawn,
    Event,
    GameKind,
    GameOver,
    GameStarted,
    GameState,
    MovePlayed,
    Passed,
    PlayerRef,
    Status,
    TakebackDeclined,
    TakebackDone,
    TakebackRequested,
    TakebackWithdrawn,
    User,
)
from bot.service import _transitions as t
from core import Board

ANN, BOB, EVE = User(101, "Ann"), User(202, "Bob"), User(303, "Eve")
NOW = 1_700_000_000.0
TURN = 3600.0
MINI_PASS_FEN = "B:W1,2,5:B8,16,18"  # after Black's 8-11 White has no move and passes
AMBIGUOUS_FEN = "W:W13,18,19,21,22,24,27,28,29,30,31:B1,4,5,6,7,10,12,14,15,20"  # 18x2 goes via 9 or via 11


def people(fen: str | None = None, variant: str = "american") -> GameState:
    """A rated game, Ann (Black) against Bob (White)."""
    board = Board(fen, variant) if fen else Board(None, variant)
    black, white = PlayerRef.human(ANN), PlayerRef.human(BOB)
    return t.new_game("g1", GameKind.HUMAN, "guild", "chan", board, black, white, TURN, NOW, rated=True).after


def against_ai(ann: str = "black", fen: str | None = None, variant: str = "american") -> t.Step:
    """Ann against the easy AI; Ann plays ``ann``."""
    board = Board(fen, variant) if fen else Board(None, variant)
    me, ai = PlayerRef.human(ANN), PlayerRef.ai("easy")
    black, white = (me, ai) if ann == "black" else (ai, me)
    return t.new_game("g2", GameKind.AI, "guild", "chan", board, black, white, TURN, NOW)


def kinds(step: t.Step) -> list[type[Event]]:
    return [type(e) for e in step.events]


def test_a_new_game_says_it_started_and_whether_the_ai_thinks() -> None:
    assert kinds(against_ai("black")) == [GameStarted]
    started = against_ai("white")
    assert kinds(started) == [GameStarted, AiThinking]
    game = started.after
    assert (game.version, game.moves, game.deadline, game.created_at) == (1, (), NOW + TURN, NOW)
    assert game.awaiting_ai


def test_playing_a_move_gives_the_next_version_and_says_who_moved() -> None:
    game = people()
    later = NOW + 100
    step = t.move(game, later, ANN, "11-15")
    after = step.after
    assert (after.moves, after.version, after.updated_at, after.deadline) == (("11-15",), 2, later, later + TURN)
    (played,) = step.events
    assert isinstance(played, MovePlayed) and played.text == "Ann played 11-15"
    assert (played.move, played.color, played.ai) == ("11-15", "black", False)
    assert game.moves == () and game.version == 1, "the state it started from is unchanged"


def test_a_move_by_index_and_the_refusals_of_a_move() -> None:
    game = people()
    legal = [m.text() for m in game.board().legal_moves]
    assert t.move(game, NOW, ANN, legal.index("10-14")).after.moves == ("10-14",)
    with pytest.raises(api.NotYourTurnError, match="Ann's turn"):
        t.move(game, NOW, BOB, "22-18")
    with pytest.raises(api.NotAPlayerError, match="not playing"):
        t.move(game, NOW, EVE, "11-15")
    for bad, why in (("hello", "not a move"), ("11-18", "illegal"), ("11-99", "not on the board"), (99, "number")):
        with pytest.raises(api.IllegalMoveError, match=why):
            t.move(game, NOW, ANN, bad)


def test_short_capture_text_that_fits_two_paths_is_ambiguous() -> None:
    game = against_ai("white", fen=AMBIGUOUS_FEN).after
    with pytest.raises(api.AmbiguousMoveError) as info:
        t.move(game, NOW, ANN, "18x2")
    assert set(info.value.candidates) == {"18x9x2", "18x11x2"}


def test_a_move_against_the_ai_hands_it_the_turn_and_the_ai_move_says_so() -> None:
    game = against_ai("black").after
    step = t.move(game, NOW, ANN, "11-15")
    assert kinds(step) == [MovePlayed, AiThinking]
    answer = t.ai_move(step.after, NOW + 1, "22-18")
    assert answer.events[0] == MovePlayed(
        answer.events[0].text, answer.events[0].game_id, move="22-18", color="white", ai=True
    )
    assert answer.events[0].text == "AI (easy) played 22-18"
    with pytest.raises(api.IllegalMoveError, match="the AI chose an illegal move"):
        t.ai_move(step.after, NOW, "11-15")


def test_a_blocked_side_passes_automatically() -> None:
    game = people(MINI_PASS_FEN, "mini")
    step = t.move(game, NOW, ANN, "8-11")
    assert step.after.moves == ("8-11", "pass")
    assert kinds(step) == [MovePlayed, Passed]
    assert step.events[1].text == "Bob cannot move and passes"
    assert step.after.turn is game.turn, "Black moves again"


def test_resigning_ends_the_game_with_its_outcome() -> None:
    game = t.move(people(), NOW, ANN, "11-15").after
    step = t.resign(game, NOW + 5, ANN)
    after = step.after
    assert after.status is Status.FINISHED and after.version == game.version + 1
    assert (after.result, after.termination, after.winner, after.ended_at) == ("0-1", "resignation", "white", NOW + 5)
    (over,) = step.events
    assert isinstance(over, GameOver) and over.text == after.end_text
    assert isinstance(over, GameOver)
    assert (over.result, over.termination, over.winner) == ("0-1", "resignation", "white")
    with pytest.raises(api.GameOverError, match="over"):
        t.active(after)


def test_draw_offers_declined_accepted_and_answered_by_a_move() -> None:
    game = people()
    offered = t.offer_draw(game, NOW, ANN)
    assert kinds(offered) == [DrawOffered] and offered.after.draw_offer == "black"
    with pytest.raises(api.InvalidRequestError, match="already offered"):
        t.offer_draw(offered.after, NOW, ANN)
    with pytest.raises(api.NotAPlayerError, match="this button is for Bob"):
        t.accept_draw(offered.after, NOW, ANN)  # your own offer: the answer is your opponent's
    with pytest.raises(api.NotAPlayerError, match="this button is for Bob"):
        t.decline_draw(offered.after, NOW, EVE)  # a spectator
    withdrawn = t.decline_draw(offered.after, NOW, ANN)  # the one who offered takes it back
    assert withdrawn.after.draw_offer is None and kinds(withdrawn) == [DrawWithdrawn]
    assert withdrawn.events[0].text == "Ann withdraws the draw offer"
    declined = t.decline_draw(offered.after, NOW, BOB)
    assert declined.after.draw_offer is None and kinds(declined) == [DrawDeclined]
    assert declined.events[0] == DrawDeclined("Bob declines the draw", declined.after.id, to=ANN.id), "said to Ann"
    with pytest.raises(api.NoOfferError):
        t.decline_draw(declined.after, NOW, BOB)

    mine = t.offer_draw(t.move(game, NOW, ANN, "11-15").after, NOW, ANN).after
    assert t.move(mine, NOW, BOB, "22-18").after.draw_offer is None, "a reply declines the offer"
    for agreed in (t.accept_draw(mine, NOW, BOB), t.offer_draw(mine, NOW, BOB)):  # both offered: a draw
        assert agreed.after.result == "1/2-1/2" and agreed.after.termination == "draw agreed"
        assert kinds(agreed) == [GameOver]
    with pytest.raises(api.InvalidRequestError, match="does not accept draw offers"):
        t.offer_draw(against_ai().after, NOW, ANN)


def test_takebacks_between_people_need_consent() -> None:
    game = t.move(people(), NOW, ANN, "11-15").after
    with pytest.raises(api.NothingToTakeBackError):
        t.takeback(game, NOW, BOB)  # Bob has not moved
    asked = t.takeback(game, NOW, ANN)
    assert kinds(asked) == [TakebackRequested] and asked.after.moves == ("11-15",)
    with pytest.raises(api.InvalidRequestError, match="already asked"):
        t.takeback(asked.after, NOW, ANN)
    refused = t.decline_takeback(asked.after, NOW, BOB)
    assert refused.after.takeback_offer is None and kinds(refused) == [TakebackDeclined]
    assert getattr(refused.events[0], "to", None) == ANN.id
    withdrawn = t.decline_takeback(asked.after, NOW, ANN)
    assert withdrawn.after.takeback_offer is None and kinds(withdrawn) == [TakebackWithdrawn]
    with pytest.raises(api.NotAPlayerError, match="this button is for Bob"):
        t.accept_takeback(asked.after, NOW, ANN)
    done = t.accept_takeback(asked.after, NOW + 9, BOB)
    assert done.after.moves == () and done.after.takebacks == 1 and done.after.rated
    assert done.after.deadline == NOW + 9 + TURN
    assert kinds(done) == [TakebackDone] and done.events[0] == TakebackDone(
        done.events[0].text, done.events[0].game_id, plies=1, to=ANN.id
    )
    with pytest.raises(api.NoOfferError, match="not asked"):
        t.accept_takeback(game, NOW, BOB)


def test_a_takeback_against_the_ai_is_immediate_and_unrates_the_game() -> None:
    game = replace(against_ai("black").after, rated=True)
    game = t.ai_move(t.move(game, NOW, ANN, "11-15").after, NOW, "22-18").after
    done = t.takeback(game, NOW, ANN)
    assert done.after.moves == () and not done.after.rated
    assert done.events[0] == TakebackDone(done.events[0].text, done.events[0].game_id, plies=2), (
        "the AI's answer goes too"
    )


def test_the_timeout_plan_ends_only_an_overdue_game() -> None:
    game = t.move(people(), NOW, ANN, "11-15").after  # White (Bob) to move until NOW + TURN
    with pytest.raises(t.Skip):
        t.timeout(game, NOW + TURN - 1)
    step = t.timeout(game, NOW + TURN)
    assert (step.after.termination, step.after.winner) == ("time", "black")
    assert step.after.end_text == "Black wins: White ran out of time"
    with pytest.raises(t.Skip):
        t.timeout(step.after, NOW + 2 * TURN)


def test_checks_of_guild_and_rematch() -> None:
    game = people()
    t.check_guild(game, None)
    t.check_guild(game, "guild")
    with pytest.raises(api.OtherGuildError):
        t.check_guild(game, "elsewhere")
    with pytest.raises(api.GameNotOverError):
        t.rematch_sides(game, ANN)
    over = t.resign(game, NOW, BOB).after
    opponent, colour = t.rematch_sides(over, BOB)
    assert (opponent.id, colour) == (ANN.id, "black"), "colours swap"
    with pytest.raises(api.NotAPlayerError, match="only the players"):
        t.rematch_sides(over, EVE)
