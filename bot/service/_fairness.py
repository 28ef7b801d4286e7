"""Sharing the AI fairly between the people who play it.

Every AI turn is charged to an *owner*: the person playing an AI game, or for an exhibition its server. Turns go to
the chooser through a :class:`FairGate`, at most the chooser's ``capacity`` at a time, so the chooser's own queue
never fills and never refuses; the turns that wait, wait in the gate, one queue per owner. The capacity is read each
time the gate decides, so it follows a chooser whose capacity changes (the job queue's live workers): while turns
wait the gate looks again every :data:`CAPACITY_RECHECK`, and lets waiting turns through as soon as it grew, without
waiting for a running turn to end. When a place frees, the
gate lets through the head of the owner who deserves it most: an owner within their think-time budget before one
over it (:class:`ThinkBudget`), then the one with the fewest turns running now, then the one served longest ago
(round-robin; a newcomer goes first). One person with many games therefore gets every other place at most while
someone else waits, however many turns they have queued, and never a first-come queue they can fill.

A search that has started cannot be stopped, so a newcomer may still wait for the turns already running; the budget
keeps those short for heavy users: while other owners' turns wait, an owner over budget thinks at most
``AI_THINK_TIME_OVER_BUDGET`` a move (the AI plays faster and weaker for them until their spending falls back under
the budget). With nobody waiting, everyone's AI thinks its full time. The budget is counted per process.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import time
from collections.abc import Callable

Owner = str
"""Who an AI turn is charged to: ``user:{id}`` or ``guild:{id}``."""
CAPACITY_RECHECK = 0.5
"""Seconds between the gate's looks at a changing capacity while turns wait (the job queue reads its live workers
every second)."""


class ThinkBudget:
    """The think seconds each owner used within the last ``window`` seconds, against ``budget``.

    Only owners who used the AI within the window are kept, so the record stays as small as the set of recent users.
    """

    def __init__(self, budget: float, window: float, now: Callable[[], float] = time.monotonic) -> None:
        self._budget = budget
        self._window = window
        self._now = now
        self._used: dict[Owner, collections.deque[tuple[float, float]]] = {}
        """Owner -> (when a turn ended, the seconds it thought), oldest first."""

    def charge(self, owner: Owner, seconds: float) -> None:
        """Count ``seconds`` of thinking for ``owner``, ending now."""
        self._forget_old()
        self._used.setdefault(owner, collections.deque()).append((self._now(), max(0.0, seconds)))

    def spent(self, owner: Owner) -> float:
        """The think seconds ``owner`` used within the window."""
        since = self._now() - self._window
        return sum(seconds for ended, seconds in self._used.get(owner, ()) if ended > since)

    def over(self, owner: Owner) -> bool:
        """True when ``owner`` used more than the budget within the window."""
        return self.spent(owner) > self._budget

    def _forget_old(self) -> None:
        since = self._now() - self._window
        for owner in list(self._used):
            used = self._used[owner]
            while used and used[0][0] <= since:
                used.popleft()
            if not used:
                del self._used[owner]


class FairGate:
    """Lets at most ``capacity`` AI turns run at once and hands each free place to the owner who deserves it most
    (see the module's docstring). :meth:`acquire` waits for a place; :meth:`release` gives it back.

    ``capacity`` is a number, or a function read each time the gate decides (a result below 1 counts as 1); with a
    function the gate looks again every ``recheck`` seconds while turns wait, so that places added meanwhile are
    handed out at once. A smaller capacity stops nothing that runs: new turns wait until the running ones fit in it.
    """

    def __init__(
        self, capacity: int | Callable[[], int], budget: ThinkBudget, *, recheck: float = CAPACITY_RECHECK
    ) -> None:
        if isinstance(capacity, int) and capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._recheck = recheck
        self._timer: asyncio.TimerHandle | None = None
        """The next look at a changing capacity, while turns wait."""
        self._budget = budget
        self._queues: dict[Owner, collections.deque[asyncio.Future[None]]] = {}
        """Owner -> their waiting turns, first come first; an owner with none is not a key."""
        self._running: collections.Counter[Owner] = collections.Counter()
        self._served: dict[Owner, int] = {}
        """Owner -> when they were last let through (a counter); kept while they have a turn running or waiting."""
        self._ticks = itertools.count()

    @property
    def capacity(self) -> int:
        """Turns that may run at once, now."""
        return self._capacity if isinstance(self._capacity, int) else max(1, self._capacity())

    @property
    def running(self) -> int:
        """Turns holding a place now."""
        return self._running.total()

    @property
    def waiting(self) -> int:
        """Turns waiting for a place."""
        return sum(len(queue) for queue in self._queues.values())

    def others_waiting(self, owner: Owner) -> bool:
        """True when a turn of another owner than ``owner`` is waiting."""
        return any(other != owner for other in self._queues)

    async def acquire(self, owner: Owner) -> None:
        """Wait until a turn of ``owner`` may run (at once when a place is free and nobody waits)."""
        if self.running < self.capacity and not self._queues:
            self._take(owner)
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(owner, collections.deque()).append(ticket)
        self._let_through()  # the capacity may have grown since the others began to wait
        self._watch_capacity()
        try:
            await ticket
        except asyncio.CancelledError:
            if ticket.done() and not ticket.cancelled():
                self.release(owner)  # let through just as the turn was cancelled: pass the place on
            else:
                self._withdraw(owner, ticket)
            raise

    def release(self, owner: Owner) -> None:
        """A turn of ``owner`` is done with its place: let the next one through."""
        self._running[owner] -= 1
        if self._running[owner] <= 0:
            del self._running[owner]
        self._forget_if_idle(owner)
        self._let_through()

    def _take(self, owner: Owner) -> None:
        self._running[owner] += 1
        self._served[owner] = next(self._ticks)

    def _let_through(self) -> None:
        capacity = self.capacity
        while self.running < capacity and self._queues:
            owner = min(self._queues, key=self._priority)
            queue = self._queues[owner]
            ticket = queue.popleft()
            if not queue:
                del self._queues[owner]
            if ticket.done():  # cancelled, and its turn has not yet run to withdraw it
                continue
            self._take(owner)
            ticket.set_result(None)

    def _watch_capacity(self) -> None:
        """While turns wait for a capacity that can change, look at it again in ``recheck`` seconds."""
        if self._timer is None and self._queues and not isinstance(self._capacity, int):
            self._timer = asyncio.get_running_loop().call_later(self._recheck, self._look_again)

    def _look_again(self) -> None:
        self._timer = None
        self._let_through()
        self._watch_capacity()

    def _priority(self, owner: Owner) -> tuple[bool, int, int]:
        """Smaller goes first: within budget, fewest turns running, served longest ago (never: first of all)."""
        return self._budget.over(owner), self._running[owner], self._served.get(owner, -1)

    def _withdraw(self, owner: Owner, ticket: asyncio.Future[None]) -> None:
        queue = self._queues.get(owner)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._queues[owner]
        self._forget_if_idle(owner)

    def _forget_if_idle(self, owner: Owner) -> None:
        if owner not in self._running and owner not in self._queues:
            self._served.pop(owner, None)
