"""What the bot and the ``kingme worker`` processes share about the AI job queue (:mod:`bot.pool._queue` explains
the design): the queues' and keys' names and timings, the JSON form of jobs and results, and the workers' heartbeats.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, TypedDict

from arq.connections import ArqRedis
from redis.asyncio import ConnectionPool

from ai.api import GameInput, Limits, SearchResult
from ai.review import REVIEW_NODES

log = logging.getLogger(__name__)

QUEUE_NAME: Final = "kingme:ai:queue"
"""arq's sorted set of waiting and running AI jobs (a name of our own, so other arq users of the Redis keep theirs)."""
SEARCH_FUNCTION: Final = "search"
"""The name the workers register their job function under."""
REVIEW_QUEUE: Final = "kingme:ai:reviews"
"""arq's sorted set of game reviews waiting or running: a queue of its own, taken by workers with no move to search."""
REVIEW_FUNCTION: Final = "review"
"""The name the workers register their review function under."""
REVIEW_WAIT: Final = 600.0
"""Seconds a review may wait for an idle worker and run, before the bot gives up on it (a Discord interaction's
deferred answer may come for 15 minutes)."""
WORKER_KEY_PREFIX: Final = "kingme:ai:worker:"
"""Heartbeat keys, one per live worker process."""
LEASE: Final = 3.0
"""Seconds a running job's in-progress key lives unless its worker renews it: how soon a dead worker's job reruns."""
HEARTBEAT_INTERVAL: Final = 1.0
"""Seconds between a worker's heartbeats (and between the bot's readings of them)."""
HEARTBEAT_TTL: Final = 3.0
"""Seconds a heartbeat key lives: a worker silent for longer is gone."""
DONE_CHANNEL: Final = "kingme:ai:done"
"""Pub/sub channel on which a worker announces the id of a job whose outcome it has stored."""
RESULT_RECHECK: Final = 1.0
"""Seconds between the bot's looks for a job's outcome when no notice came (a notice is lost while Redis reconnects,
and a job that fails before it starts, expired or retried too often, sends none)."""
RESULT_KEEP: Final = 60.0
"""Seconds a result stays in Redis, for a bot that asks again after a restart."""
QUEUE_WAIT: Final = 60.0
"""Seconds a move may wait for a free worker, on top of its search time and slack, before it counts as timed out."""
MAX_TRIES: Final = 3
"""Runs of one job (a worker that dies mid-search costs one) before it fails."""


# -- what both sides share ----------------------------------------------------------------------------------------


class LimitsData(TypedDict):
    """:class:`ai.api.Limits` as JSON."""

    time: float | None
    depth: int | None
    nodes: int | None


class JobPayload(TypedDict):
    """A move job as JSON (:func:`job_payload`): what a worker needs, readable by any version of the code."""

    level: str
    variant: str
    fen: str
    moves: list[str]
    limits: LimitsData | None
    seed: int


class ReviewPayload(TypedDict):
    """A review job as JSON (:func:`review_payload`): the game and the nodes searched per position."""

    variant: str
    fen: str
    moves: list[str]
    nodes: int


class ResultData(TypedDict):
    """:class:`ai.api.SearchResult` as JSON (:func:`result_data`), what a move job returns."""

    move: str
    score: float
    depth: int
    pv: list[str]
    nodes: int
    time: float
    source: str


def dump_job(data: Mapping[str, object]) -> bytes:
    """arq's job and result records as JSON, not arq's default pickles: nothing a worker or a bot reads from Redis can
    run code. The payloads and results are JSON-like already; a failed job's exception is stored as its text."""
    return json.dumps(data, separators=(",", ":"), default=str).encode()


def load_job(data: bytes) -> dict[str, object]:
    """An arq record from Redis, for arq to read; the payloads and results in it are read by :func:`read_payload`,
    :func:`read_review_payload` and :func:`read_result`, which check them."""
    loaded: dict[str, object] = json.loads(data)
    return loaded


def connect(redis_url: str) -> ArqRedis:
    """arq's Redis client for ``redis_url``, with our queue as its default and JSON records (raises ValueError for a
    bad URL)."""
    return ArqRedis(
        connection_pool=ConnectionPool.from_url(redis_url),
        default_queue_name=QUEUE_NAME,
        job_serializer=dump_job,
        job_deserializer=load_job,
    )


def job_payload(level: str, game: GameInput, limits: Limits | None, seed: int) -> JobPayload:
    """A move request as JSON-like data: what a worker needs, readable by any version of the code."""
    return {
        "level": level,
        "variant": game.variant,
        "fen": game.fen,
        "moves": list(game.moves),
        "limits": None if limits is None else {"time": limits.time, "depth": limits.depth, "nodes": limits.nodes},
        "seed": seed,
    }


def read_payload(payload: object) -> tuple[str, GameInput, Limits | None, int]:
    """The arguments of :func:`ai.api.choose_move` from a :func:`job_payload` as arq hands it over (raises ValueError
    for anything else)."""
    data = _object(payload, "a move job")
    return _text(data, "level"), _game(data), _limits(_value(data, "limits")), _whole(data, "seed")


def review_payload(game: GameInput, nodes: int = REVIEW_NODES) -> ReviewPayload:
    """A review request as JSON-like data: the game and the nodes searched per position."""
    return {"variant": game.variant, "fen": game.fen, "moves": list(game.moves), "nodes": nodes}


def read_review_payload(payload: object) -> tuple[GameInput, int]:
    """The game and the nodes per position of a :func:`review_payload` as arq hands it over (raises ValueError for
    anything else)."""
    data = _object(payload, "a review job")
    return _game(data), _whole(data, "nodes")


def job_id(payload: JobPayload | ReviewPayload, kind: str = "ai") -> str:
    """The job's id: ``kingme-<kind>-`` and a digest of what names the job, so the same request is always the same job
    (``kind`` is ``ai`` for a move, ``review`` for a review). A move is named by its turn (level, game, seed: the seed
    names the turn's attempt), not by its limits: two processes asking for one turn with different limits (each
    process keeps its own think budget) share one search, the first one queued."""
    named = {k: v for k, v in payload.items() if not (kind == "ai" and k == "limits")}
    text = json.dumps(named, sort_keys=True, separators=(",", ":"))
    return f"kingme-{kind}-" + hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def result_data(result: SearchResult) -> ResultData:
    """A search result as JSON-like data, for the result key."""
    return {
        "move": result.move,
        "score": result.score,
        "depth": result.depth,
        "pv": list(result.pv),
        "nodes": result.nodes,
        "time": result.time,
        "source": result.source,
    }


def read_result(data: object) -> SearchResult:
    """The search result of a :func:`result_data` as arq hands it over, a field other than the move and its line
    left out taking its default (raises ValueError for anything else)."""
    given = _object(data, "a search result")
    fields = {**result_data(_DEFAULT_RESULT), **given}
    return SearchResult(
        _text(given, "move"),
        _number(fields, "score"),
        _whole(fields, "depth"),
        _texts(given, "pv"),
        _whole(fields, "nodes"),
        _number(fields, "time"),
        _text(fields, "source"),
    )


# -- reading the JSON arq hands over: each reader checks the type of what it takes ------------------------------

_DEFAULT_RESULT: Final = SearchResult("")
"""Where the fields a result leaves out come from."""


def _object(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is a JSON object, not {type(value).__name__}")
    return value


def _value(data: Mapping[str, object], name: str) -> object:
    if name not in data:
        raise ValueError(f"{name!r} is missing")
    return data[name]


def _text(data: Mapping[str, object], name: str) -> str:
    value = _value(data, name)
    if not isinstance(value, str):
        raise ValueError(f"{name!r} is not text: {value!r}")
    return value


def _whole(data: Mapping[str, object], name: str) -> int:
    value = _value(data, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name!r} is not a whole number: {value!r}")
    return value


def _number(data: Mapping[str, object], name: str) -> float:
    value = _value(data, name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name!r} is not a number: {value!r}")
    return value


def _texts(data: Mapping[str, object], name: str) -> tuple[str, ...]:
    value = _value(data, name)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{name!r} is not a list of texts: {value!r}")
    return tuple(value)


def _game(data: Mapping[str, object]) -> GameInput:
    return GameInput(_text(data, "variant"), _text(data, "fen"), _texts(data, "moves"))


def _limits(value: object) -> Limits | None:
    if value is None:
        return None
    given = _object(value, "a move job's limits")
    return Limits(
        _number(given, "time") if given.get("time") is not None else None,
        _whole(given, "depth") if given.get("depth") is not None else None,
        _whole(given, "nodes") if given.get("nodes") is not None else None,
    )


@dataclass(frozen=True)
class WorkerBeat:
    """What a worker's heartbeat key holds."""

    host: str
    pid: int
    busy: bool
    """True while it has a move to search (waiting for the review position under way, or searching)."""
    job: str | None = None
    """The move job it is on, if any."""
    review: str | None = None
    """The review job it is running, if any."""
    reviewed: int = 0
    """Positions of that review evaluated so far (a beat goes out after each)."""

    @property
    def key(self) -> str:
        return f"{WORKER_KEY_PREFIX}{self.host}:{self.pid}"

    def dumps(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def loads(cls, text: bytes | str) -> WorkerBeat:
        """The beat :meth:`dumps` wrote; fields of a newer worker that this version does not know are left out.
        Raises :class:`ValueError` for anything else (text that is not JSON, a field of the wrong type)."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a worker's beat is a JSON object")
        known = {field.name for field in dataclasses.fields(cls)}
        beat = cls(**{name: value for name, value in data.items() if name in known})
        if not (isinstance(beat.host, str) and isinstance(beat.pid, int) and isinstance(beat.busy, bool)):
            raise ValueError("a worker's beat names its host, pid and whether it is busy")
        return beat


async def live_workers(redis: ArqRedis) -> tuple[WorkerBeat, ...]:
    """The workers whose heartbeat has not expired. A key that holds no readable beat (written by something else,
    or damaged) is left out and logged: one bad value never hides the others or stops a reader."""
    keys = [key async for key in redis.scan_iter(match=f"{WORKER_KEY_PREFIX}*", count=500)]
    values = await redis.mget(keys) if keys else []
    beats = []
    for key, value in zip(keys, values, strict=True):
        if value is None:
            continue
        try:
            beats.append(WorkerBeat.loads(value))
        except (ValueError, TypeError) as exc:  # JSONDecodeError is a ValueError
            log.warning("ignoring the unreadable worker heartbeat %r: %s", key, exc)
    return tuple(beats)
