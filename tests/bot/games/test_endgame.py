"""``/checkers endgame`` end to end: the trainer's ending set up, played by ``/checkers move`` against the perfect
defender in the AI workers, and its verdict with the result."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from ai import endgames
from bot.emulator import Channel, Message, User
from bot.games._endgame import review_text
from bot.i18n import ENGLISH, language
from bot.service import ChannelId, GameId, GameView, GuildId, InvalidRequestError, UserId
from bot.service import User as User_
from core import Board, Termination
from tests.ai.trainee import shuffle, trainee_best
from tests.bot.games.conftest import Harness, board_state, game_board, game_thread
from tests.support import eventually


async def _play_out(harness: Harness, user: User, board: Message, choose: Callable[[Board], str]) -> Channel:
    """Type the trainee's moves (``choose``) with ``/checkers move`` in the game's thread until the game ends."""
    assert harness.service is not None
    state = board_state(board)
    assert state is not None
    game_id, thread = GameId(state[0]), game_thread(harness, board)
    for _ in range(200):
        view = await harness.service.state(game_id)
        if not view.game.is_active:
            return thread
        if view.to_move.id != UserId(str(user.id)):
            await asyncio.sleep(0.02)  # the defender is thinking
            continue
        reply = await harness.command(user, "move", {"move": choose(view.game.board())}, channel=thread)
        assert not reply.message.content.startswith("⚠"), reply.message.content
    raise AssertionError("the game did not end")


async def _start(harness: Harness, user: User, ending: str) -> tuple[Message, GameView]:
    """``/checkers endgame ending:<ending>``: the game's board, and the game as the service has it."""
    board = await game_board(harness, await harness.command(user, "endgame", {"ending": ending}))
    state = board_state(board)
    assert state is not None and harness.service is not None
    return board, await harness.service.state(GameId(state[0]))


async def _verdict(harness: Harness, thread: Channel) -> str:
    messages = harness.emulator.messages
    await eventually(lambda: any("🎓" in m.content for m in messages(thread)), within=10, what="the verdict")
    return next(m.content for m in messages(thread) if "🎓" in m.content)


async def test_two_kings_against_one_converted_from_the_longest_win_against_perfect_defence(harness: Harness) -> None:
    alice = harness.user("alice")
    board, view = await _start(harness, alice, "two_kings")
    assert view.fen == endgames.setup("two_kings") and view.game.white.level == endgames.LEVEL
    assert not view.game.rated
    refused = (await harness.command(alice, "takeback", channel=game_thread(harness, board))).message
    assert refused.ephemeral and "no takebacks" in refused.content, refused.content

    verdict = await _verdict(harness, await _play_out(harness, alice, board, trainee_best))
    assert "Converted in 17 moves (the best possible: 17)." in verdict, verdict
    assert "lost time" not in verdict and "threw" not in verdict
    assert harness.service is not None
    assert (await harness.service.state(view.id)).game.winner == "black"


async def test_shuffling_kings_is_a_failed_conversion_by_the_forty_move_rule(harness: Harness) -> None:
    alice = harness.user("alice")
    board = await game_board(harness, await harness.command(alice, "endgame", {"ending": "two_kings"}))
    verdict = await _verdict(harness, await _play_out(harness, alice, board, shuffle))
    assert "Not converted (40-move rule)." in verdict, verdict
    assert "Moves that lost time" in verdict and "threw" not in verdict
    assert "🏁" in verdict and "40-move rule" in verdict.splitlines()[0]


async def test_in_first_position_the_trainee_plays_white_and_moves_first(harness: Harness) -> None:
    alice = harness.user("alice")
    _, view = await _start(harness, alice, "first_position")
    assert view.fen == endgames.FIRST_POSITION and view.game.black.level == endgames.LEVEL
    assert view.game.white.id == view.to_move.id == UserId(str(alice.id))


async def test_an_unknown_ending_or_difficulty_or_no_databases_is_refused_in_words(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord offers only the choices; the service refuses anything else itself, and says when it has no databases."""
    assert harness.service is not None
    bob = User_(UserId("1"), "bob")
    for ending, difficulty, words in (("third_position", "easy", "choose an ending"), ("random", "x", "difficulty")):
        with pytest.raises(InvalidRequestError, match=words):
            await harness.service.play_endgame(GuildId("1"), ChannelId("2"), bob, ending, difficulty=difficulty)

    def missing(*_: object) -> str:
        raise endgames.NotAnEndingError("the endgame databases are missing")

    monkeypatch.setattr(endgames, "setup", missing)
    reply = await harness.command(harness.user("bob"), "endgame", {"ending": "two_kings"})
    assert reply.message.ephemeral and "databases are missing" in reply.message.content, reply.message.content


async def test_second_position_without_the_six_piece_tables_is_refused_in_words(harness: Harness) -> None:
    """The shipped databases hold five pieces: Second Position (six) is offered, and refused until an operator builds
    and prepares the six-piece tables."""
    reply = await harness.command(harness.user("carol"), "endgame", {"ending": "second_position"})
    assert reply.message.ephemeral, reply.message.content
    assert "Second Position needs the six-piece endgame tables" in reply.message.content, reply.message.content
    assert [m for m in harness.emulator.messages() if not m.ephemeral] == [], "no game was opened"


def test_the_verdict_names_the_thrown_win_and_the_slow_moves_in_both_languages() -> None:
    review = endgames.Review(
        endgames.WIN,
        achieved=False,
        moves=12,
        best=17,
        ended_by=Termination.MOVE_LIMIT,
        slips=(endgames.Slip(3, "1-5", 2), endgames.Slip(9, "6-10", None)),
    )
    assert review_text(review, ENGLISH).splitlines() == [
        "🎓 Not converted (40-move rule).",
        "Move 9, 6-10, threw the win away.",
        "Moves that lost time (plies lost): 3. 1-5 (+2)",
    ]
    assert review_text(review, language("fr")).splitlines()[:2] == [
        "🎓 Gain non concrétisé (règle des 40 coups).",
        "Le coup 9, 6-10, a laissé filer la victoire.",
    ]
    held = endgames.Review(endgames.DRAW, achieved=True, moves=30, best=None, ended_by=Termination.MOVE_LIMIT, slips=())
    assert review_text(held, ENGLISH) == "🎓 Draw held."
    one = endgames.Review(endgames.WIN, achieved=True, moves=1, best=1, ended_by=Termination.NO_PIECES, slips=())
    assert review_text(one, ENGLISH) == "🎓 Converted in 1 move (the best possible: 1)."
