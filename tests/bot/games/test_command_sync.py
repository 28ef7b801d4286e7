"""The commands are registered with Discord only when they changed: a restart, or another shard process starting,
syncs nothing (Discord rate-limits syncing)."""

from __future__ import annotations

from bot.emulator import EmulatorEvent
from bot.store import NAMESPACE
from tests.bot.games.conftest import Harness


async def test_a_second_start_syncs_no_commands(harness: Harness) -> None:
    emulator = harness.emulator
    assert {c.name for c in emulator.state.commands.values()} >= {"checkers"}, "the first start synced them"
    syncs: list[EmulatorEvent] = []
    unsubscribe = emulator.subscribe(lambda event: syncs.append(event) if event.kind == "commands_update" else None)
    try:
        await harness.restart()
        assert syncs == [], "the same commands are not synced again"
        marks = [key async for key in harness.redis.scan_iter(match=f"{NAMESPACE}:mark:commands:*")]
        assert len(marks) == 1, "one digest, for this application"
        await harness.redis.set(marks[0], "the digest of other commands")  # as after an upgrade that changed them
        await harness.restart()
        assert len(syncs) == 1, "changed commands are synced once"
        await harness.restart()
        assert len(syncs) == 1
    finally:
        unsubscribe()
