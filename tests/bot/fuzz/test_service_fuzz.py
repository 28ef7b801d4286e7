"""100,000 random requests through the game service, with the invariants checked after every one.

See :mod:`tests.bot.fuzz` for how the fuzz is split between the service and the Discord front end, and
:mod:`tests.bot.fuzz._invariants` for what is checked.
"""

from __future__ import annotations

import os
import random

import redis.asyncio as aioredis

from bot.pool import ThreadChooser
from bot.service import GameService
from bot.store import RedisGameStore
from tests.bot.fuzz._inputs import Inputs, replay_hint
from tests.bot.fuzz._invariants import ErrorLog, Invariants
from tests.bot.fuzz._runner import run
from tests.bot.fuzz._service_driver import ServiceDriver, World
from tests.support import Clock, settings_with

STEPS = int(os.environ.get("KINGME_FUZZ_SERVICE_STEPS", 100_000))
LANES = int(os.environ.get("KINGME_FUZZ_LANES", 8))
START = 1_700_000_000.0
SETTINGS = {
    "exhibition_move_delay": 0.2,  # exhibitions play on in the background, without crowding out the requests
    "ai_think_time_max": 0.05,  # every level, not only easy, answers at once
    "rate_user_burst": 5,  # the shipped rates with small bursts, so that some requests are refused
}


async def test_service_fuzz(
    fuzz_redis: aioredis.Redis, threads: ThreadChooser, fuzz_seed: int, error_log: ErrorLog
) -> None:
    settings = settings_with(SETTINGS)
    clock = Clock(START)
    rng = random.Random(fuzz_seed)
    inputs = Inputs(rng)
    service = GameService(
        RedisGameStore(fuzz_redis), threads, settings, clock=clock, rng=random.Random(rng.random()), reviewer=threads
    )
    invariants = Invariants(fuzz_redis, settings)
    await invariants.start()
    driver = ServiceDriver(service, invariants, inputs, clock, World.make(inputs))

    try:
        seconds = await run(STEPS, driver.step, invariants, error_log, replay_hint(fuzz_seed, __file__), LANES)
    finally:
        await service.close()
        await invariants.close()
    print(f"{STEPS} service requests in {LANES} lanes in {seconds:.1f} s, {invariants.checked} game checks")
    for outcome, count in sorted(driver.outcomes.items()):
        print(f"{count:7d}  {outcome}")
    ok = sum(count for outcome, count in driver.outcomes.items() if outcome.endswith(": ok"))
    assert ok > STEPS // 10, "too few requests were accepted for the fuzz to reach deep into games"
