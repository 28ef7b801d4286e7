"""``kingme worker``: AI worker processes for bots that run with ``AI_BACKEND=queue``."""

from __future__ import annotations

import argparse
import asyncio
import logging

from bot.cli._command import CommandError, Commands, load_settings

log = logging.getLogger(__name__)


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
    asyncio.run(_check_redis(url))
    log.info("AI workers: %d processes on %s", processes, redact_url(url))
    return run_workers(WorkerOptions(url, settings.log_level, LOG_FORMAT), processes)


async def _check_redis(url: str) -> None:
    """A one-line :class:`CommandError` when Redis cannot be reached, before any worker starts."""
    from bot.runtime import StartupError, connect_redis, redact_url

    try:
        client = await connect_redis(url, redact_url(url))
    except StartupError as exc:
        raise CommandError(str(exc)) from None
    await client.aclose()
