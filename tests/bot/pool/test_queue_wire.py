"""The JSON of the AI job queue: what the bot writes reads back the same in a worker (and the other way), and what
Redis hands over that is not a job or a result is refused with ValueError, never a KeyError or a TypeError."""

from __future__ import annotations

import json

import pytest

from ai.api import GameInput, Limits, SearchResult
from bot.pool._queue_wire import (
    dump_job,
    job_payload,
    load_job,
    read_payload,
    read_result,
    read_review_payload,
    result_data,
    review_payload,
)

GAME = GameInput("american", "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", ("11-15", "23-19"))


def through_redis(data: object) -> object:
    """``data`` as a worker or a bot reads it back: inside an arq record, dumped and loaded."""
    return load_job(dump_job({"payload": data}))["payload"]


@pytest.mark.parametrize("limits", [None, Limits(), Limits(time=0.5), Limits(depth=6, nodes=10_000)])
def test_a_move_job_reads_back_as_it_was_asked(limits: Limits | None) -> None:
    payload = through_redis(job_payload("hard", GAME, limits, 7))
    assert read_payload(payload) == ("hard", GAME, limits, 7)


def test_a_review_job_and_a_result_read_back() -> None:
    assert read_review_payload(through_redis(review_payload(GAME, 500))) == (GAME, 500)
    result = SearchResult("11-15", 0.25, 8, ("11-15", "23-19"), 1234, 0.5, "book")
    assert read_result(through_redis(result_data(result))) == result


def test_a_result_that_leaves_out_a_field_takes_its_default() -> None:
    assert read_result({"move": "11-15", "pv": ["11-15"]}) == SearchResult("11-15", pv=("11-15",))


MALFORMED_JOBS = [
    None,
    "hard",
    [],
    {},
    {**job_payload("hard", GAME, None, 7), "seed": "7"},
    {**job_payload("hard", GAME, None, 7), "seed": True},
    {**job_payload("hard", GAME, None, 7), "moves": "11-15"},
    {**job_payload("hard", GAME, None, 7), "moves": [11]},
    {**job_payload("hard", GAME, None, 7), "limits": [1]},
    {**job_payload("hard", GAME, None, 7), "limits": {"time": "1"}},
    {k: v for k, v in job_payload("hard", GAME, None, 7).items() if k != "fen"},
    {k: v for k, v in job_payload("hard", GAME, None, 7).items() if k != "limits"},
]


@pytest.mark.parametrize("payload", MALFORMED_JOBS, ids=lambda p: json.dumps(p)[:60])
def test_a_malformed_move_job_is_a_value_error(payload: object) -> None:
    with pytest.raises(ValueError):
        read_payload(payload)


@pytest.mark.parametrize(
    "payload",
    [None, {}, {**review_payload(GAME), "nodes": 1.5}, {**review_payload(GAME), "variant": None}],
    ids=lambda p: json.dumps(p)[:60],
)
def test_a_malformed_review_job_is_a_value_error(payload: object) -> None:
    with pytest.raises(ValueError):
        read_review_payload(payload)


@pytest.mark.parametrize(
    "data",
    [None, "11-15", {"pv": []}, {"move": "11-15"}, {"move": 1115, "pv": []}, {"move": "11-15", "pv": [], "depth": "8"}],
    ids=lambda d: json.dumps(d)[:60],
)
def test_a_malformed_result_is_a_value_error(data: object) -> None:
    with pytest.raises(ValueError):
        read_result(data)
