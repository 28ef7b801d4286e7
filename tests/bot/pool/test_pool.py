"""Tests for bot.pool.AiPool, with real worker processes (the misbehaving moves are in tests/bot/pool/pool_targets.py).
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import signal
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from ai.api import GameInput, Limits, SearchResult, UnknownLevelError
from bot.pool import AiPool, AiTimeoutError, AiUnavailableError, PoolBusyError
from core import Board, IllegalMoveError, InvalidMoveTextError, InvalidSquareError, RulesError
from tests.bot.pool import pool_targets
from tests.support import eventually


@pytest.fixture
async def make_pool() -> AsyncIterator[Callable[..., Any]]:
    """A factory of started pools (``await make_pool(workers, queue_limit, **options)``), all closed at teardown."""
    pools: list[AiPool] = []

    async def make(workers: int = 1, queue_limit: int = 4, **options: Any) -> AiPool:
        pool = AiPool(workers, queue_limit, **options)
        pools.append(pool)
        await pool.start()
        return pool

    try:
        yield make
    finally:
        for pool in pools:
            await pool.close(grace=0.5)


def midgame() -> Board:
    """A quiet middle-game position out of master's opening book (so master searches it, for as long as it is asked)."""
    board = Board()
    for text in ("11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14", "12-16", "19x10", "6x15"):
        board.push_text(text)
    return board


def assert_legal(board: Board, result: SearchResult) -> None:
    legal = {move.text() for move in board.legal_moves}
    assert result.move in legal
    board.push_text(result.move)  # raises on an illegal move


def not_our_child(pid: int) -> bool:
    """True once ``pid`` is neither a running child of ours nor an unreaped zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


async def test_moves_are_legal_and_workers_prewarmed(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(workers=2, queue_limit=8)
    assert len(pool.worker_pids) == 2
    assert pool.healthy
    boards = [Board(), midgame(), midgame()]
    boards[2].push(boards[2].legal_moves[0])
    results = await asyncio.gather(
        *(pool.choose("easy", GameInput.from_board(b), Limits(time=1.0), seed=i) for i, b in enumerate(boards))
    )
    for board, result in zip(boards, results, strict=True):
        assert_legal(board, result)
    counters = pool.counters
    assert (counters.completed, counters.failed, counters.restarts) == (3, 0, 0)
    assert len(pool.latencies) == 3
    assert pool.in_flight == pool.queue_depth == pool.busy_workers == 0


async def test_workers_load_the_kernel_before_the_pool_is_ready(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(workers=2, target=pool_targets.kernel_compiled)
    started = pool.started_workers
    assert sorted(ready.pid for ready in started) == sorted(pool.worker_pids), "one report from each worker"
    assert all(ready.warm_up > 0 for ready in started)
    # The first move asks its worker whether the kernel's search was compiled before that move.
    result = await pool.choose("master", GameInput.from_board(midgame()), Limits(time=0.2))
    assert result.move == "compiled before the move"


async def test_event_loop_keeps_running_during_a_search(make_pool: Callable[..., Any], tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    pool = await make_pool(target=functools.partial(pool_targets.misbehave, delay=2.0, marker=str(marker)))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        board = midgame()
        move = asyncio.create_task(pool.choose("easy", GameInput.from_board(board), Limits(time=3.0)))
        await eventually(marker.exists, within=10, what="the search started")
        # A loop blocked by the search would not tick again until it returned.
        before = ticks
        await eventually(lambda: ticks >= before + 5 or move.done(), within=10, what="ticks during the search")
        assert not move.done(), "the search ended before the loop ticked: the loop was blocked"
        assert_legal(board, await move)
    finally:
        task.cancel()


async def test_worker_killed_mid_search_is_replaced_and_the_move_retried(
    make_pool: Callable[..., Any], tmp_path: Path
) -> None:
    marker = tmp_path / "pid"
    pool = await make_pool(target=functools.partial(pool_targets.misbehave, delay=1.0, marker=str(marker)))
    board = midgame()
    move = asyncio.create_task(pool.choose("easy", GameInput.from_board(board), Limits(time=2.0)))
    await eventually(marker.exists, within=10, what="the search started")
    victim = int(marker.read_text())
    assert victim in pool.worker_pids
    os.kill(victim, signal.SIGKILL)
    assert_legal(board, await move)
    counters = pool.counters
    assert (counters.completed, counters.retried, counters.restarts) == (1, 1, 1)
    assert victim not in pool.worker_pids
    assert int(marker.read_text()) in pool.worker_pids  # the retry ran in the new executor
    assert pool.healthy
    await eventually(lambda: not_our_child(victim), within=10, what="the killed worker reaped")


async def test_worker_dying_twice_makes_the_ai_unavailable_then_it_recovers(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(target=pool_targets.misbehave)
    game = GameInput.from_board(midgame())
    with pytest.raises(AiUnavailableError) as caught:
        await pool.choose("crash", game, Limits(time=1.0))
    assert str(caught.value) == AiUnavailableError.user_message
    counters = pool.counters
    assert (counters.retried, counters.restarts, counters.failed) == (1, 2, 1)
    assert_legal(midgame(), await pool.choose("easy", game, Limits(time=1.0)))


async def test_queue_overflow_is_refused_at_once(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(workers=1, queue_limit=2, target=functools.partial(pool_targets.misbehave, delay=0.5))
    game = GameInput.from_board(midgame())
    first = asyncio.create_task(pool.choose("easy", game, Limits(time=2.0)))
    second = asyncio.create_task(pool.choose("easy", game, Limits(time=2.0), seed=1))
    await eventually(lambda: pool.in_flight == 2, what="both moves admitted")
    assert (pool.in_flight, pool.busy_workers, pool.queue_depth) == (2, 1, 1)
    with pytest.raises(PoolBusyError) as caught:
        await pool.choose("easy", game, Limits(time=2.0))
    assert str(caught.value) == "the AI is busy, try again in a moment"
    assert pool.counters.rejected == 1
    for result in await asyncio.gather(first, second):
        assert_legal(midgame(), result)
    assert_legal(midgame(), await pool.choose("easy", game, Limits(time=2.0)))  # room again
    assert pool.counters.completed == 3


async def test_stuck_move_times_out_and_its_worker_is_recycled(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(workers=1, move_timeout_slack=0.2, target=pool_targets.misbehave)
    game = GameInput.from_board(midgame())
    stuck = pool.worker_pids
    with pytest.raises(AiTimeoutError):
        await pool.choose("hang", game, Limits(time=0.1))
    assert pool.counters.timeouts == 1
    assert pool.busy_workers == 1  # the hung task still holds the only worker
    # This move waits for the worker until the watchdog kills the hung one (at 2 x 0.3 s), then runs.
    async with asyncio.timeout(10.0):
        assert_legal(midgame(), await pool.choose("easy", game, Limits(time=1.0)))
    counters = pool.counters
    assert (counters.restarts, counters.retried, counters.completed, counters.failed) == (1, 0, 1, 1)
    assert set(stuck).isdisjoint(pool.worker_pids)
    await eventually(lambda: all(not_our_child(pid) for pid in stuck), within=10, what="the stuck worker reaped")


async def test_close_kills_running_work_and_leaves_no_child_processes(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(workers=2, target=pool_targets.misbehave)
    game = GameInput.from_board(midgame())
    assert_legal(midgame(), await pool.choose("easy", game, Limits(time=1.0)))
    pids = pool.worker_pids
    assert len(pids) == 2
    hung = asyncio.create_task(pool.choose("hang", game, Limits(time=30.0)))
    await eventually(lambda: pool.busy_workers == 1, what="the hung move running")
    async with asyncio.timeout(15.0):  # a close that cannot stop the hung worker would wait forever here
        await pool.close(grace=0.2)
        with pytest.raises(AiUnavailableError):
            await hung
    assert not pool.healthy
    assert multiprocessing.active_children() == []
    assert all(not_our_child(pid) for pid in pids)
    with pytest.raises(AiUnavailableError):
        await pool.choose("easy", game)
    await pool.close()  # idempotent


@pytest.mark.parametrize(
    ("level", "game", "error"),
    [
        ("grandmaster", GameInput.from_board(Board()), UnknownLevelError),
        ("easy", GameInput("american", Board().fen(), ("99-100",)), InvalidSquareError),
        ("easy", GameInput("american", Board().fen(), ("eleven",)), InvalidMoveTextError),
        ("easy", GameInput("american", "B:W18:B"), ValueError),
    ],
)
async def test_bad_input_errors_propagate_unchanged(
    make_pool: Callable[..., Any], level: str, game: GameInput, error: type[Exception]
) -> None:
    pool = await make_pool()
    with pytest.raises(error) as caught:
        await pool.choose(level, game, Limits(time=1.0))
    assert type(caught.value) is error
    assert (pool.counters.failed, pool.counters.restarts) == (1, 0)
    assert pool.healthy


async def test_an_unpicklable_error_does_not_break_the_pool(make_pool: Callable[..., Any]) -> None:
    pool = await make_pool(target=pool_targets.misbehave)
    game = GameInput.from_board(midgame())
    with pytest.raises(IllegalMoveError, match="fits two capture paths") as caught:
        await pool.choose("unpicklable", game, Limits(time=1.0))
    assert isinstance(caught.value, RulesError)
    assert pool.counters.restarts == 0
    assert_legal(midgame(), await pool.choose("easy", game, Limits(time=1.0)))


async def test_a_live_move_waits_for_one_slice_of_a_review_at_most(
    make_pool: Callable[..., Any], tmp_path: Path
) -> None:
    """A review is sliced per position at low priority: moves asked for while it runs go before its next slice."""
    log = tmp_path / "order.log"
    pool = await make_pool(
        workers=1,
        target=functools.partial(pool_targets.logged_move, log=str(log)),
        review_target=functools.partial(pool_targets.logged_slice, log=str(log)),
    )
    played = GameInput("american", Board().initial_fen, ("11-15", "23-19", "12-16", "19x12", "8-11", "22-18"))
    review = asyncio.create_task(pool.review(played))
    moves = [asyncio.create_task(pool.choose("easy", GameInput.from_board(midgame()))) for _ in range(2)]
    await asyncio.gather(*moves)
    reviewed = await review
    order = log.read_text().split()
    assert order.count("slice") == len(played.moves) + 1 and order.count("move") == 2
    assert order[:3] == ["slice", "move", "move"], order  # the running slice ends, then both moves, then the rest
    assert [m.judgement.value for m in reviewed.moves][2] == "blunder"
    assert pool.queue_depth == 0 and pool.busy_workers == 0
