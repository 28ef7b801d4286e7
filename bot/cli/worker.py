"""``kingme worker``: AI worker processes for bots that run with ``AI_BACKEND=queue``."""

from __future__ import annotations

import argparse
import asyncio
import logging

from bot.cli._command import CommandError, Commands, load_settings

log = logging.getLogger(__name__)

WORKER_REDIS_TIMEOUT = 5.0
"""Seconds the first PING to Redis may take before the command gives up."""


def register(commands: Commands) -> None:
    parser = commands.add("worker", _worker)
    parser.add_argument(
        "--processes", type=int, default=None, metavar="N", help="worker processes to run (default: AI_WORKERS)"
    )


def _worker(args: argparse.Namespace) -> int:
    """run AI worker processes for bots with AI_BACKEND=queue (needs REDIS_URL)

    Take AI moves off the job queue in the Redis at REDIS_URL and search them, one at a time in each of N processes
    (--processes, or AI_WORKERS: by default one per core but one). Start as many on as many machines as the load needs
    (docs/scaling.md); a worker that dies mid-search has its move searched again by another within seconds. Stops on
    SIGINT or SIGTERM, handing its running moves back to the queue.
    """
    from bot.cli.serve import LOG_FORMAT, configure_logging
    from bot.pool import WorkerOptions, run_workers
    from bot.runtime import redact_url

    settings = load_settings()
    processes = args.processes if args.processes is not None else settings.ai_workers
    if processes < 1:
        raise CommandError("--processes must be at least 1")
    if settings.redis_url is None or not settings.redis_url.get_secret_value().strip():
        raise CommandError(
            "REDIS_URL is not set: a worker takes its jobs from the Redis the bots use, e.g. "
            "REDIS_URL=redis://host:6379/0"
        )
    url = settings.redis_url.get_secret_value().strip()
    configure_logging(settings.log_level)
    asyncio.run(_check_redis(url, redact_url(url)))
    log.info("AI workers: %d processes on %s", processes, redact_url(url))
    return run_workers(WorkerOptions(url, settings.log_level, LOG_FORMAT), processes)


async def _check_redis(url: str, shown: str) -> None:
    """A one-line :class:`CommandError` when Redis cannot be reached, before any worker starts."""
    import redis.asyncio as aioredis
    from redis.exceptions import RedisError

    try:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=WORKER_REDIS_TIMEOUT)
    except ValueError as exc:
        raise CommandError(f"REDIS_URL is not a Redis URL ({exc})") from None
    try:
        async with asyncio.timeout(WORKER_REDIS_TIMEOUT):
            await client.ping()
    except TimeoutError:
        raise CommandError(f"Redis at {shown} did not answer within {WORKER_REDIS_TIMEOUT:g} s") from None
    except (RedisError, OSError) as exc:
        raise CommandError(f"cannot reach Redis at {shown}: {exc or type(exc).__name__}") from None
    finally:
        await client.aclose()
