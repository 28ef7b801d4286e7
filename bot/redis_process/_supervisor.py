"""Keeping an embedded ``redis-server`` up: a task that sees the process end on its own (a crash, the OOM killer, a
``kill -9``) and starts it again on the same data, with the same config at the same address, so that the clients that
were connected reconnect by themselves. A server that keeps dying is started again less and less often.

    supervisor = RedisSupervisor(server)    # a started EmbeddedRedis
    supervisor.start()                      # in the event loop
    ...
    await supervisor.stop()                 # first: then nothing starts the server again
    server.stop()

A server stopped by its owner (``stop()``, ``kill()``) is left stopped: only an :attr:`EmbeddedRedis.exit_code` counts.
Each outage is logged once when it begins and once when it ends (and once more, with the reason, if starting again
fails, however many times it then fails).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from dataclasses import dataclass
from typing import Final, Literal

from bot.redis_process._errors import EmbeddedRedisError
from bot.redis_process._server import EmbeddedRedis

log = logging.getLogger(__name__)

POLL_INTERVAL: Final = 0.1
"""Seconds between two looks at the process (``waitpid`` without waiting: nothing to speak of)."""

ServerState = Literal["running", "restarting", "stopped"]


@dataclass(frozen=True)
class Backoff:
    """How long to wait before starting a server again: at once the first time, or when it had run ``stable_after``
    seconds since its last restart; else ``first`` seconds, doubled each time it dies again that soon or fails to start,
    up to ``most``."""

    first: float = 0.5
    most: float = 30.0
    stable_after: float = 30.0

    def delay(self, failures: int) -> float:
        """The wait before the next start after ``failures`` failures in a row (0: none, start at once)."""
        return 0.0 if failures <= 0 else min(self.most, self.first * 2 ** min(failures - 1, 30))


@dataclass(frozen=True)
class SupervisorStatus:
    """The server as its supervisor sees it (``/healthz`` shows it)."""

    state: ServerState
    restarts: int
    """Times it was started again after it ended on its own."""
    attempts: int
    """Starts tried in the current outage (0 when there is none)."""
    down_seconds: float | None
    """How long the current outage has lasted, or None."""
    last_outage_seconds: float | None
    """How long the last outage that ended lasted, or None."""

    def as_json(self) -> dict[str, str | float]:
        body: dict[str, str | float] = {"state": self.state, "restarts": self.restarts}
        if self.down_seconds is not None:
            body |= {"down_seconds": round(self.down_seconds, 1), "attempts": self.attempts}
        if self.last_outage_seconds is not None:
            body["last_outage_seconds"] = round(self.last_outage_seconds, 1)
        return body


def describe_exit(code: int) -> str:
    """``exited with code 1``, or ``was killed by SIGKILL``."""
    if code >= 0:
        return f"exited with code {code}"
    try:
        return f"was killed by {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


class RedisSupervisor:
    """Starts ``server`` again whenever it ends on its own, until :meth:`stop`.

    Args:
        server: a started :class:`EmbeddedRedis`; its address and config stay the same across restarts.
        poll_interval: seconds between two looks at the process.
        backoff: the waits between starts when the server keeps dying.
    """

    def __init__(
        self, server: EmbeddedRedis, *, poll_interval: float = POLL_INTERVAL, backoff: Backoff | None = None
    ) -> None:
        self._server = server
        self._poll_interval = poll_interval
        self._backoff = backoff or Backoff()
        self._task: asyncio.Task[None] | None = None
        self._launch: asyncio.Future[EmbeddedRedis] | None = None
        self._restarted_at: float | None = None
        self._failures = 0
        self._restarts = 0
        self._attempts = 0
        self._down_since: float | None = None
        self._last_outage: float | None = None

    def start(self) -> None:
        """Watch the server (call it in the running event loop)."""
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="kingme-redis-supervisor")

    async def stop(self) -> None:
        """Stop watching, and wait for a start under way to finish, so that the owner may then stop the server and
        nothing starts it again. Idempotent."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task})
        launch, self._launch = self._launch, None
        if launch is not None:  # (asyncio.shield has retrieved its outcome, which no longer matters)
            await asyncio.wait({launch})  # a start runs in a thread, which a cancellation does not stop

    def status(self) -> SupervisorStatus:
        now = time.monotonic()
        down = self._down_since
        if down is not None:
            state: ServerState = "restarting"
        else:
            state = "running" if self._server.running else "stopped"
        return SupervisorStatus(
            state=state,
            restarts=self._restarts,
            attempts=self._attempts if down is not None else 0,
            down_seconds=None if down is None else now - down,
            last_outage_seconds=self._last_outage,
        )

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._poll_interval)
            try:
                code = self._server.exit_code
                if code is not None:
                    await self._recover(code)
            except Exception:  # one surprise must not end the supervision for good
                log.exception("supervising the embedded redis-server failed; it goes on")

    async def _recover(self, code: int) -> None:
        """Start the server again, waiting longer between tries while it keeps dying, until it answers."""
        down_since = time.monotonic()
        last = self._restarted_at
        kept_dying = last is not None and down_since - last < self._backoff.stable_after
        self._failures = self._failures + 1 if kept_dying else 0
        self._down_since, self._attempts = down_since, 0
        log.warning(
            "the embedded redis-server %s; starting it again on the same data at %s",
            describe_exit(code),
            self._server.url,
        )
        while True:
            await asyncio.sleep(self._backoff.delay(self._failures))
            self._attempts += 1
            try:
                await self._start_server()
            except (EmbeddedRedisError, OSError) as exc:
                self._failures += 1
                if self._attempts == 1:
                    reason = str(exc).split("; last log lines from", 1)[0]
                    log.warning(
                        "the embedded redis-server did not start again (%s; see %s); trying again, less and less often",
                        " ".join(reason.split()),
                        self._server.log_path,
                    )
                continue
            break
        self._restarted_at = time.monotonic()
        self._last_outage = self._restarted_at - down_since
        self._restarts += 1
        log.info(
            "the embedded redis-server is back (pid %s) after %.1f s and %d %s",
            self._server.pid,
            self._last_outage,
            self._attempts,
            "start" if self._attempts == 1 else "starts",
        )
        self._down_since, self._attempts = None, 0

    async def _start_server(self) -> None:
        """``server.start()`` in a thread (it waits for the data to load); if this task is cancelled meanwhile the
        start goes on, and :meth:`stop` waits for it."""
        launch = asyncio.ensure_future(asyncio.to_thread(self._server.start))
        self._launch = launch
        await asyncio.shield(launch)
        self._launch = None
