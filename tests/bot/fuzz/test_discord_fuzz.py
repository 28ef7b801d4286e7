"""Random interactions through the real discord.py client on the emulated Discord, with the invariants checked after
every one, in two phases: most with the games' test limits (bursts big enough to play whole games at machine speed),
then, after a restart of the bot, the rest with the shipped rate limits, so that "slow down" answers come back too and
boards sent before the restart are clicked after it.

See :mod:`tests.bot.fuzz` for how the fuzz is split between the service and the Discord front end.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest
import redis.asyncio as aioredis

from bot.emulator import DiscordEmulator
from bot.metrics import Metrics
from bot.pool import ThreadChooser
from bot.service import GameState
from bot.settings import Settings
from tests.bot.fuzz._discord_driver import DiscordDriver
from tests.bot.fuzz._inputs import Inputs, replay_hint
from tests.bot.fuzz._invariants import ErrorLog, InvariantError, Invariants
from tests.bot.fuzz._runner import run
from tests.bot.games.conftest import Harness, make_settings
from tests.support import Clock

STEPS = int(os.environ.get("KINGME_FUZZ_DISCORD_STEPS", 5_000))
LANES = int(os.environ.get("KINGME_FUZZ_LANES", 8))
LIMITED = 0.15
"""The share of the steps run with the shipped rate limits."""


@pytest.fixture
def emulator_answer_timeout() -> float:
    return 20.0  # eight people at once on a shared, loaded 2-core machine


def board_check(emulator: DiscordEmulator) -> Callable[[GameState], None]:
    """The Discord invariants of each game written: the thread of a game being played is open (the bot closes only
    the threads of games that did not start), and its board message (where its updates and pings go) is a message of
    the bot in the game's own channel or thread."""

    def check(game: GameState) -> None:
        room = emulator.state.channels.get(int(game.channel_id))
        if game.is_active and room is not None and (room.archived or room.locked):
            raise InvariantError(f"game {game.id} is being played in the closed thread {room.name!r}")
        where = game.board_message
        if where is None:
            return
        message = emulator.state.messages.get(int(where.message_id))
        if message is None or message.author.id != emulator.bot_user.id:
            raise InvariantError(f"game {game.id}: its board {where} is no message of the bot")
        if str(message.channel_id) != game.channel_id or where.channel_id != game.channel_id:
            raise InvariantError(f"game {game.id} in {game.channel_id}: its board is in {message.channel_id}")

    return check


async def test_discord_fuzz(
    emulator: DiscordEmulator,
    fuzz_redis: aioredis.Redis,
    threads: ThreadChooser,
    fuzz_seed: int,
    error_log: ErrorLog,
) -> None:
    inputs = Inputs(random.Random(fuzz_seed))
    people = [emulator.user(name) for name in ("alice", "bob", "carol")]
    people += [emulator.add_user(inputs.text()[:32] or f"p{n}") for n in range(5)]
    other = emulator.add_guild("Second Club")
    channels = [
        emulator.channel,
        emulator.add_channel("general"),
        emulator.add_channel("no-threads", threads=False),
        emulator.add_channel("second", guild=other),
        emulator.add_channel("second-no-threads", guild=other, threads=False),
    ]
    settings = make_settings(ai_think_time_max=0.05, exhibition_move_delay=0.2)
    harness = Harness(emulator, fuzz_redis, threads, settings, Metrics(), Clock())  # type: ignore[arg-type]
    invariants = Invariants(fuzz_redis, settings, on_game=board_check(emulator))
    await invariants.start()
    driver = DiscordDriver(emulator, invariants, inputs, people, channels)
    limited = int(STEPS * LIMITED)
    replay = replay_hint(fuzz_seed, __file__)

    await harness.start()
    try:
        seconds = await run(STEPS - limited, driver.step, invariants, error_log, replay, LANES)
        harness.settings = shipped_limits(settings)  # a restart between the phases, with no interaction in flight
        await harness.restart()
        seconds += await run(limited, driver.step, invariants, error_log, replay, LANES)
    finally:
        await harness.stop()
        await invariants.close()
    print(f"{STEPS} interactions in {LANES} lanes in {seconds:.1f} s, {invariants.checked} game checks")
    for kind, count in sorted(driver.counts.kinds.items()):
        print(f"{count:7d}  {kind}")


def shipped_limits(settings: Settings) -> Settings:
    defaults = Settings.model_fields
    return settings.model_copy(
        update={
            name: defaults[name].default for name in ("rate_user", "rate_user_burst", "rate_guild", "rate_guild_burst")
        }
    )
