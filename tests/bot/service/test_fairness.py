"""Fair AI and limits in the service: AI turns share the chooser fairly between the people who play it (never one
first-come queue), a person over their think-time budget yields, a busy chooser is asked again, and the limits on AI
games, exhibitions, pending challenges and the rate of requests hold across processes."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from ai.api import GameInput, Limits, SearchResult
from bot.pool import AiPool
from bot.service import AiFailed, AiThinking, GameService, LimitReachedError, RateLimitedError, User
from bot.service import _ai_turns as ai_turns
from bot.service._fairness import FairGate, ThinkBudget
from core import get_variant
from tests.support import Clock, eventually

from .conftest import EventLog, ServiceFactory, ThreadChooser, ai_idle
from .test_errors import refused
from .test_games import ANN, BOB, GUILD

CAROL = User(303, "Carol")


class TurnstileChooser(ThreadChooser):
    """The in-process chooser with ``capacity`` 1 that holds every search until the test lets it through, and
    remembers the order and the limits of what it was asked."""

    capacity = 1

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[tuple[str, ...], Limits]] = []
        self.gates: list[asyncio.Event] = []

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        gate = asyncio.Event()
        self.asked.append((game.moves, limits))
        self.gates.append(gate)
        await gate.wait()
        return await super().choose(level, game, limits, seed)

    async def let_through(self, count: int) -> None:
        """Wait until search number ``count`` (from 1) was asked for, and let it finish."""
        await eventually(lambda: len(self.gates) >= count, what=f"search {count} asked for")
        self.gates[count - 1].set()


async def open_ai_game(service: GameService, user: User, channel: str) -> str:
    """A game against ``hard`` in which the AI (Black) moves first; returns its id."""
    start = await service.play_ai(GUILD, channel, user, "hard", color="white")
    assert start.game is not None
    return start.game.id


async def test_a_second_player_is_served_before_the_first_players_other_turns(
    make_service: ServiceFactory, events: EventLog
) -> None:
    chooser = TurnstileChooser()
    service = make_service(chooser_=chooser)
    ann = [await open_ai_game(service, ANN, f"ann-{i}") for i in range(3)]
    bob = await open_ai_game(service, BOB, "bob")
    await eventually(lambda: service.ai_turns_waiting == 3, what="three turns waiting behind the first")
    assert len(chooser.asked) == 1, "never more searches at once than the chooser's capacity"

    async def moved() -> list[str]:
        return [g for g in (*ann, bob) if len((await service.state(g)).game.moves) == 1]

    order: list[str] = []
    for count in range(1, 5):
        await chooser.let_through(count)
        await eventually(lambda c=count: service.ai_turns_in_flight == 4 - c, what="the turn applied")  # type: ignore[misc]
        order.extend(g for g in await moved() if g not in order)
    assert order == [ann[0], bob, ann[1], ann[2]], "Bob's turn went before Ann's second and third"
    assert not [e for e in events.events if isinstance(e, AiFailed)], "nobody was refused"


async def test_a_game_that_ends_while_its_turn_waits_gives_its_place_on(make_service: ServiceFactory) -> None:
    chooser = TurnstileChooser()
    service = make_service(chooser_=chooser)
    await open_ai_game(service, ANN, "c1")
    waiting = await open_ai_game(service, ANN, "c2")
    await eventually(lambda: service.ai_turns_waiting == 1, what="the second turn waiting")
    await service.resign(waiting, GUILD, ANN)
    await chooser.let_through(1)
    await ai_idle(service)
    assert len(chooser.asked) == 1, "no search for a game that is over"


async def test_an_owner_over_budget_thinks_less_while_others_wait(make_service: ServiceFactory) -> None:
    chooser = TurnstileChooser()
    service = make_service(chooser_=chooser, ai_think_budget=0.0, ai_think_time_over_budget=0.01)
    full = Limits(time=0.05)  # hard's own second, capped by the tests' AI_THINK_TIME_MAX
    await open_ai_game(service, ANN, "ann-1")
    await eventually(lambda: len(chooser.asked) == 1, what="Ann's first search")
    await open_ai_game(service, ANN, "ann-2")
    await open_ai_game(service, ANN, "ann-3")
    await open_ai_game(service, BOB, "bob-1")
    await open_ai_game(service, BOB, "bob-2")
    for count in range(1, 6):
        await chooser.let_through(count)
    await ai_idle(service)
    limits = [asked[1] for asked in chooser.asked]
    # Ann 1 (nobody over budget), Bob 1 (within budget goes first), then both over budget: Ann 2 and Bob 2 think less
    # while the other waits, and Ann 3, alone, thinks her full time.
    assert limits == [full, full, Limits(time=0.01), Limits(time=0.01), full]


def test_the_gate_prefers_owners_within_budget_then_the_fewest_running_then_round_robin() -> None:
    async def scenario() -> list[str]:
        budget = ThinkBudget(budget=1.0, window=60.0, now=lambda: 0.0)
        budget.charge("heavy", 5.0)
        gate = FairGate(2, budget)
        order: list[str] = []

        async def turn(owner: str) -> None:
            await gate.acquire(owner)
            order.append(owner)

        await gate.acquire("a")  # both places taken by a
        await gate.acquire("a")
        waiting = [asyncio.create_task(turn(o)) for o in ("a", "a", "heavy", "b", "c")]
        await asyncio.sleep(0)
        assert gate.waiting == 5 and gate.running == 2
        for owner in ("a", "a", "b", "c", "a"):  # each place given back lets exactly one turn through
            gate.release(owner)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        await asyncio.gather(*waiting)
        assert gate.running == 2 and gate.waiting == 0
        return order

    order = asyncio.run(scenario())
    assert order == ["b", "c", "a", "a", "heavy"], order


def test_a_cancelled_waiter_gives_its_place_on() -> None:
    async def scenario() -> None:
        gate = FairGate(1, ThinkBudget(budget=10.0, window=60.0))
        await gate.acquire("a")
        first = asyncio.create_task(gate.acquire("b"))
        second = asyncio.create_task(gate.acquire("c"))
        await asyncio.sleep(0)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        gate.release("a")
        await asyncio.wait_for(second, 1.0)
        assert gate.running == 1 and gate.waiting == 0

    asyncio.run(scenario())


class WorkersComeAndGo(TurnstileChooser):
    """The turnstile chooser whose ``capacity`` the test changes, as the job queue's follows its live workers."""

    def __init__(self) -> None:
        super().__init__()
        self.capacity = 1


async def test_turns_follow_a_capacity_that_grows_and_shrinks(make_service: ServiceFactory) -> None:
    chooser = WorkersComeAndGo()
    service = make_service(chooser_=chooser)
    for user in (ANN, BOB, CAROL):
        await open_ai_game(service, user, f"c-{user.id}")
    await eventually(lambda: service.ai_turns_waiting == 2, what="two turns waiting behind the first")
    assert len(chooser.asked) == 1

    chooser.capacity = 3  # two workers more: the waiting turns go at once, no running turn has ended
    await eventually(lambda: len(chooser.asked) == 3, what="the waiting turns handed to the new workers")
    assert service.ai_turns_waiting == 0 and not any(gate.is_set() for gate in chooser.gates)

    chooser.capacity = 1  # two workers gone: a new turn waits until the running ones fit in one place
    await open_ai_game(service, User(404, "Dave"), "c-dave")
    await eventually(lambda: service.ai_turns_waiting == 1, what="Dave's turn waiting")
    for count in (1, 2):
        await chooser.let_through(count)
        await eventually(lambda c=count: service.ai_turns_in_flight == 4 - c, what="the turn applied")  # type: ignore[misc]
        assert len(chooser.asked) == 3 and service.ai_turns_waiting == 1, "two turns still run: over capacity"
    await chooser.let_through(3)
    await chooser.let_through(4)
    await ai_idle(service)
    assert len(chooser.asked) == 4


def test_the_gate_reads_a_changing_capacity_while_turns_wait() -> None:
    async def scenario() -> None:
        capacity = [1]
        gate = FairGate(lambda: capacity[0], ThinkBudget(budget=10.0, window=60.0), recheck=0.01)
        assert gate.capacity == 1
        await gate.acquire("a")
        waiting = [asyncio.create_task(gate.acquire(owner)) for owner in ("b", "c", "d")]
        await asyncio.sleep(0)
        assert gate.waiting == 3
        capacity[0] = 3
        done, _ = await asyncio.wait(waiting, timeout=5.0, return_when=asyncio.FIRST_COMPLETED)
        await eventually(lambda: gate.running == 3, what="two more let through with nobody released")
        assert gate.waiting == 1 and len(done) >= 1
        capacity[0] = 0  # below 1 counts as 1
        assert gate.capacity == 1
        for owner in ("a", "b"):
            gate.release(owner)
        await asyncio.sleep(0.05)
        assert gate.running == 1 and gate.waiting == 1, "the running turn fills the one place"
        gate.release("c")
        await asyncio.wait_for(asyncio.gather(*waiting), 5.0)
        assert gate.running == 1 and gate.waiting == 0

    asyncio.run(scenario())


class BusyChooser(ThreadChooser):
    """Answers "busy" (an error with ``retry_after``) ``times`` times, then chooses."""

    class Busy(Exception):  # noqa: N818 - the shape of the pool's PoolBusyError
        retry_after = 0.01

    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        if self.times > 0:
            self.times -= 1
            raise self.Busy("the AI is busy, try again in a moment")
        return await super().choose(level, game, limits, seed)


async def test_a_busy_chooser_is_asked_again_and_the_player_told_once(
    make_service: ServiceFactory, events: EventLog
) -> None:
    busy = BusyChooser(times=8)  # more than AI_ATTEMPTS: "busy" is no failure
    service = make_service(chooser_=busy)
    game = await open_ai_game(service, ANN, "c1")
    await ai_idle(service)
    assert len((await service.state(game)).game.moves) == 1, "the AI moved once the chooser had room"
    kinds = [type(e) for e in events.events]
    assert AiFailed not in kinds
    told = [e for e in events.events if isinstance(e, AiThinking)]
    assert len(told) == 1 and "busy" in told[0].text and told[0].game_id == game


class OfflineChooser(BusyChooser):
    """Answers "offline" (the job queue with no live worker: a "busy" error with ``offline``) until told to choose."""

    class Offline(Exception):  # noqa: N818 - the shape of the job queue's AiOfflineError
        retry_after = 0.02
        offline = True

    def __init__(self) -> None:
        super().__init__(times=0)
        self.back = False
        self.refused = 0

    async def choose(self, level: str, game: GameInput, limits: Limits, seed: int) -> SearchResult:
        if not self.back:
            self.refused += 1
            raise self.Offline("the AI is offline")
        return await super().choose(level, game, limits, seed)


async def test_an_offline_ai_is_said_once_the_turn_waits_without_spending_tries_and_resumes(
    make_service: ServiceFactory, events: EventLog
) -> None:
    chooser = OfflineChooser()
    service = make_service(chooser_=chooser)
    game = await open_ai_game(service, ANN, "c1")
    await eventually(lambda: chooser.refused > 3 * ai_turns.AI_ATTEMPTS, what="the turn asking again and again")
    told = [e for e in events.events if isinstance(e, AiThinking) and e.game_id == game]
    assert len(told) == 1 and "offline" in told[0].text and "busy" not in told[0].text, [e.text for e in told]
    assert service.ai_turns_in_flight == 1 and service.ai_turns_waiting == 1, "one turn, waiting for the AI"
    assert AiFailed not in [type(e) for e in events.events], "no try spent, no failure announced"
    chooser.back = True
    await ai_idle(service)
    assert len((await service.state(game)).game.moves) == 1, "the AI moved once a worker was back"
    assert service.ai_turns_waiting == 0


async def test_a_full_process_pool_is_waited_out_not_refused(make_service: ServiceFactory, events: EventLog) -> None:
    pool = AiPool(workers=1, queue_limit=1)  # the real worker process, with room for one move only
    await pool.start()
    try:
        start = GameInput("american", get_variant("american").start_fen, ())
        other = asyncio.create_task(pool.choose("steady", start, Limits(time=1.0), 0))  # someone else's move (1 s)
        await eventually(lambda: pool.busy_workers == 1, what="the pool full")
        service = make_service(chooser_=pool)
        game = await open_ai_game(service, ANN, "c1")
        await eventually(lambda: pool.counters.rejected >= 1, what="the pool answering busy")
        await ai_idle(service)
        await other
    finally:
        await pool.close()
    assert len((await service.state(game)).game.moves) == 1, "the AI moved once the pool had room"
    kinds = [type(e) for e in events.events]
    assert AiFailed not in kinds and kinds.count(AiThinking) == 1, "told once, never refused"


async def test_a_long_wait_for_the_ai_is_said_once(
    make_service: ServiceFactory, events: EventLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ai_turns, "BUSY_NOTICE_AFTER", 0.05)
    chooser = TurnstileChooser()
    service = make_service(chooser_=chooser)
    await open_ai_game(service, ANN, "ann")
    bob = await open_ai_game(service, BOB, "bob")
    await eventually(lambda: any(isinstance(e, AiThinking) for e in events.events), what="the notice")
    await chooser.let_through(1)
    await chooser.let_through(2)
    await ai_idle(service)
    told = [e for e in events.events if isinstance(e, AiThinking)]
    assert [e.game_id for e in told] == [bob], "only the waiting turn is told, once"
    assert "busy with other games" in told[0].text and "AI (hard)" in told[0].text


async def _moves(service: GameService, game_id: str, count: int) -> bool:
    return len((await service.state(game_id)).game.moves) == count


# -- limits -----------------------------------------------------------------------------------------------------------


async def test_ai_games_per_person_are_limited_across_processes(
    make_service: ServiceFactory, redis_client: aioredis.Redis
) -> None:
    first, second = make_service(ai_games_per_user=3), make_service(ai_games_per_user=3)  # two bot processes
    tries = [(first if i % 2 else second).play_ai(GUILD, f"c{i}", ANN, "easy", color="black") for i in range(8)]
    outcomes = await asyncio.gather(*tries, return_exceptions=True)
    made = [o for o in outcomes if not isinstance(o, BaseException)]
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(made) == 3 and all(isinstance(e, LimitReachedError) for e in errors), outcomes
    error = await refused(
        redis_client,
        LimitReachedError,
        "you already have 3 games against the AI .*: finish or resign one",
        lambda: first.play_ai(GUILD, "c9", ANN, "easy"),
    )
    assert "at most 3" in str(error)
    await first.play_ai(GUILD, "c10", BOB, "easy")  # another person has their own limit

    game = made[0].game
    assert game is not None
    await first.resign(game.id, GUILD, ANN)
    again = await second.play_ai(GUILD, "c11", ANN, "easy")
    assert again.game is not None, "a finished game frees its place"


async def test_exhibitions_per_server_are_limited(make_service: ServiceFactory, redis_client: aioredis.Redis) -> None:
    service = make_service(exhibitions_per_guild=1, exhibition_move_delay=30.0)
    shown = await service.exhibition(GUILD, "c1", "easy", "easy")
    assert shown.game is not None
    exhibition = shown.game.id
    await eventually(
        lambda: _moves(service, exhibition, 1), what="the first move (the next waits for the exhibition pace)"
    )
    await refused(
        redis_client,
        LimitReachedError,
        "this server already has 1 AI exhibition running",
        lambda: service.exhibition(GUILD, "c2", "easy", "easy"),
    )
    assert (await service.exhibition("another-guild", "c1", "easy", "easy")).game is not None


async def test_pending_challenges_are_limited_per_sender_and_per_target(
    make_service: ServiceFactory, redis_client: aioredis.Redis, clock: Clock
) -> None:
    service = make_service(challenges_per_sender=2, challenges_per_target=2)
    dave, erin = User(404, "Dave"), User(505, "Erin")
    await service.challenge(GUILD, "c1", ANN, BOB)
    await service.challenge(GUILD, "c1", ANN, CAROL)
    await refused(
        redis_client,
        LimitReachedError,
        "you already have 2 challenges waiting for an answer",
        lambda: service.challenge(GUILD, "c1", ANN, dave),
    )
    await service.challenge(GUILD, "c1", CAROL, BOB)
    await refused(
        redis_client,
        LimitReachedError,
        "Bob already has 2 challenges waiting for an answer",
        lambda: service.challenge(GUILD, "c1", dave, BOB),
    )
    await refused(  # an open challenge counts for its sender
        redis_client, LimitReachedError, "you already have 2", lambda: service.challenge(GUILD, "c1", ANN, None)
    )

    mine = await service.challenges_of(ANN.id)
    await service.cancel(mine[0].id, GUILD, ANN)
    await service.challenge(GUILD, "c1", ANN, erin)  # a closed challenge frees its place

    clock.advance(service.settings.challenge_ttl + 1)  # expired, even before the sweeper has closed them
    await service.challenge(GUILD, "c1", dave, BOB)
    await service.challenge(GUILD, "c1", ANN, dave)


# -- rate limits ------------------------------------------------------------------------------------------------------


async def test_rate_limits_refuse_past_the_burst_and_refill_with_time(
    make_service: ServiceFactory, redis_client: aioredis.Redis, clock: Clock
) -> None:
    limits = {"rate_user": 0.5, "rate_user_burst": 3, "rate_guild": 0.001, "rate_guild_burst": 7}
    first, second = make_service(**limits), make_service(**limits)
    for service in (first, second, first):  # the buckets are shared by every process
        await service.rate_limit(ANN.id, GUILD)
    error = await refused(redis_client, RateLimitedError, "slow down", lambda: second.rate_limit(ANN.id, GUILD))
    assert isinstance(error, RateLimitedError) and not error.server
    assert error.retry_at == pytest.approx(clock() + 2.0), "one token every 2 s"

    await first.rate_limit(BOB.id, GUILD)  # Bob has his own bucket
    clock.advance(2.0)
    await first.rate_limit(ANN.id, GUILD)  # refilled
    await refused(redis_client, RateLimitedError, "slow down", lambda: first.rate_limit(ANN.id, GUILD))

    await first.rate_limit(CAROL.id, GUILD)
    await first.rate_limit(CAROL.id, GUILD)  # the server's seventh of seven
    server = await refused(redis_client, RateLimitedError, "this server", lambda: first.rate_limit(CAROL.id, GUILD))
    assert isinstance(server, RateLimitedError) and server.server
    await first.rate_limit(CAROL.id, "another-guild")
