"""What a front end needs beyond the moves: challenges from a position, challenge events it can place after a
restart, games filed under their own thread, the board message recorded with the game, and AI turns that never stay
stuck."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from ai.api import GameInput, Limits, SearchResult
from bot.service import (
    AiFailed,
    AlreadyPlayingError,
    ChallengeCreated,
    ChallengeExpired,
    ChallengeStatus,
    GameService,
    InvalidRequestError,
    MessageRef,
    MovePlayed,
    OtherGuildError,
    UnknownChallengeError,
    UnknownGameError,
    User,
)
from bot.settings import Settings
from core import Board

from .conftest import Clock, EventLog, ServiceFactory, ThreadChooser, ai_idle
from .test_errors import refused
from .test_games import ANN, BOB, CHANNEL, GUILD, start_human_game

SET_UP = "W:W18,K30:B14,3"  # White to move; not the start
THREAD = "thread-1"
CAT = User(303, "Cat")


async def test_a_challenge_from_a_position_starts_an_unrated_game_there(
    service: GameService, redis_client: aioredis.Redis
) -> None:
    offer = await service.challenge(GUILD, CHANNEL, ANN, BOB, fen=SET_UP, color="black")
    assert offer.challenge is not None
    assert offer.challenge.fen == Board(SET_UP).initial_fen
    assert "set-up position" in offer.events[0].text
    accepted = await service.accept(offer.challenge.id, GUILD, BOB)
    assert accepted.game is not None
    game = accepted.game.game
    assert game.initial_fen == Board(SET_UP).initial_fen and game.moves == ()
    assert not game.rated and game.unrated_reason == "from a set-up position"
    assert accepted.game.to_move.id == BOB.id, "White (Bob) is to move in that position"

    await service.resign(game.id, GUILD, BOB)
    again = await service.rematch(game.id, GUILD, ANN)
    assert again.challenge is not None and again.challenge.fen == game.initial_fen, "a rematch keeps the position"
    assert (await service.stats(ANN.id)).rating.games == 0, "not rated"

    await refused(
        redis_client,
        InvalidRequestError,
        "not a FEN",
        lambda: service.challenge(GUILD, "c9", ANN, BOB, fen="hello"),
    )
    await refused(
        redis_client,
        InvalidRequestError,
        "already over",
        lambda: service.challenge(GUILD, "c9", ANN, BOB, fen="B:W10:B"),
    )


async def test_challenge_events_say_where_and_the_challenge_can_be_read_in_any_state(
    service: GameService, clock: Clock, events: EventLog
) -> None:
    offer = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert offer.challenge is not None
    cid = offer.challenge.id
    (created,) = offer.events
    assert (type(created), created.guild_id, created.channel_id) == (ChallengeCreated, GUILD, CHANNEL)

    await service.set_challenge_message(cid, 555, 777)
    clock.advance(service.settings.challenge_ttl + 1)
    await service.sweep()
    expired = events.events[-1]
    assert (type(expired), expired.guild_id, expired.channel_id) == (ChallengeExpired, GUILD, CHANNEL)

    stored = await service.get_challenge(cid)
    assert stored.status is ChallengeStatus.EXPIRED and stored.message == MessageRef("555", "777")
    assert stored.version == offer.challenge.version + 1, "recording the message changed no version"
    with pytest.raises(OtherGuildError):
        await service.get_challenge(cid, "g2")
    with pytest.raises(UnknownChallengeError):
        await service.get_challenge("nope")
    with pytest.raises(UnknownChallengeError):
        await service.set_challenge_message("nope", 1, 2)

    for close in (service.decline, service.cancel):
        other = await service.challenge(GUILD, CHANNEL, ANN, BOB)
        assert other.challenge is not None
        closed = await close(other.challenge.id, GUILD, BOB if close == service.decline else ANN)
        assert [(e.guild_id, e.channel_id) for e in closed.events] == [(GUILD, CHANNEL)]


async def test_a_game_accepted_into_a_thread_is_filed_there(service: GameService) -> None:
    offer = await service.challenge(GUILD, CHANNEL, ANN, BOB)
    assert offer.challenge is not None
    assert (await service.check_accept(offer.challenge.id, GUILD, BOB)).id == offer.challenge.id
    accepted = await service.accept(offer.challenge.id, GUILD, BOB, channel_id=THREAD)
    assert accepted.game is not None and accepted.game.game.channel_id == THREAD
    assert accepted.events[0].channel_id == CHANNEL, "the acceptance is shown where the challenge was"
    assert [v.id for v in await service.channel_games(GUILD, THREAD)] == [accepted.game.id]
    assert await service.channel_games(GUILD, CHANNEL) == []

    # the parent channel stays free; the thread has its game
    elsewhere = await service.play_ai(GUILD, CHANNEL, ANN, "easy")
    assert elsewhere.game is not None and elsewhere.game.game.channel_id == CHANNEL
    with pytest.raises(AlreadyPlayingError, match="channel"):
        await service.play_ai(GUILD, THREAD, ANN, "easy")
    with pytest.raises(AlreadyPlayingError, match="channel"):
        await service.challenge(GUILD, THREAD, ANN, CAT)


async def test_the_board_message_is_kept_with_the_game_and_changes_no_version(
    make_service: ServiceFactory, service: GameService
) -> None:
    view = await start_human_game(service)
    await service.set_board_message(view.id, 11, 22)
    assert (await service.state(view.id)).version == view.version
    moved = await service.move(view.id, GUILD, ANN, "11-15", version=view.version)
    assert moved.game is not None and moved.game.game.board_message == MessageRef("11", "22")

    later = make_service()  # another process, or after a restart
    again = await later.state(view.id)
    assert again.game.board_message == MessageRef("11", "22") and again.version == view.version + 1
    await later.set_board_message(view.id, 11, 33)
    after = await later.move(view.id, GUILD, BOB, "22-18")
    assert after.game is not None and after.game.game.board_message == MessageRef("11", "33")
    with pytest.raises(UnknownGameError):
        await service.set_board_message("nosuchgame", 1, 2)


class FlakyChooser(ThreadChooser):
    """Fails its first ``failures`` calls, then chooses like :class:`ThreadChooser`."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"worker died (call {self.calls})")
        self.calls -= 1  # counted again by the real choice
        return await super().choose(level, game, limits, seed)


@pytest.mark.parametrize("failures", [3, 6])
async def test_the_sweeper_retries_an_ai_turn_that_failed(
    make_service: ServiceFactory, clock: Clock, events: EventLog, failures: int
) -> None:
    flaky = FlakyChooser(failures)
    service = make_service(chooser_=flaky)
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="white")  # the AI (Black) opens
    assert start.game is not None
    await ai_idle(service)
    assert [type(e) for e in events.events] == [AiFailed]
    assert (await service.state(start.game.id)).game.moves == (), "stuck: nobody is thinking"

    await service.sweep()
    await ai_idle(service)
    assert flaky.calls == 3, "too soon: the sweeper leaves a fresh AI turn alone"

    for _ in range(failures // 3):
        clock.advance(service.settings.ai_retry_after + 1)
        await service.sweep()
        await ai_idle(service)
    view = await service.state(start.game.id)
    assert len(view.game.moves) == 1 and view.to_move.id == ANN.id, "the AI moved after all"
    assert [type(e) for e in events.events].count(AiFailed) == 1, "the failure is said once"
    assert isinstance(events.events[-1], MovePlayed)

    clock.advance(service.settings.ai_retry_after + 1)
    calls = flaky.calls
    await service.sweep()
    await ai_idle(service)
    assert flaky.calls == calls, "a person to move: nothing to retry"


async def test_the_sweeper_leaves_an_ai_turn_in_flight_alone(make_service: ServiceFactory, clock: Clock) -> None:
    from .conftest import SlowChooser

    slow = SlowChooser()
    service = make_service(chooser_=slow)
    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="white")
    assert start.game is not None
    await slow.asked.wait()
    clock.advance(service.settings.ai_retry_after + 1)
    await service.sweep()
    assert slow.calls == 0 and service.ai_turns_in_flight == 1, "no second search of the same turn"
    slow.release.set()
    await ai_idle(service)
    assert len((await service.state(start.game.id)).game.moves) == 1


def test_game_threads_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings(_env_file=None).game_threads is True  # type: ignore[call-arg]
    monkeypatch.setenv("GAME_THREADS", "false")
    assert Settings(_env_file=None).game_threads is False  # type: ignore[call-arg]


async def test_the_side_to_move_is_known_without_replaying(service: GameService) -> None:
    """``GameState.turn`` (what the store's AI-turn index relies on) agrees with the board, passes included."""
    from .test_games import MINI_PASS_FEN

    start = await service.play_ai(GUILD, CHANNEL, ANN, "easy", color="black", variant="mini", fen=MINI_PASS_FEN)
    assert start.game is not None
    played = await service.move(start.game.id, GUILD, ANN, "8-11")  # White is blocked and passes
    assert played.game is not None and "pass" in played.game.game.moves
    for view in (start.game, played.game):
        assert view.game.turn is view.game.board().turn is view.turn
    assert not played.game.game.awaiting_ai, "Black (Ann) moves again"
