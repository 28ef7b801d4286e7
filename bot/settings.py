"""The bot's configuration: one settings class, read once in the composition root (``bot/__main__.py``).

Values come from the environment (or a ``.env`` file); names are the upper-case field names, e.g. ``REDIS_URL``,
``TURN_TIME_DEFAULT``. Secrets are :class:`pydantic.SecretStr` and never appear in :meth:`Settings.summary`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MINUTE = 60.0
DAY = 86400.0


def _default_workers() -> int:
    return max(1, (os.cpu_count() or 1) - 1)


class Settings(BaseSettings):
    """Everything an operator may set. Times are in seconds."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True)

    discord_token: SecretStr | None = None
    """The bot token (needed only to connect to Discord)."""
    discord_guild_id: int | None = None
    """A guild to sync slash commands to at once (development); None syncs globally."""
    redis_url: SecretStr | None = None
    """Redis to use; None starts an embedded redis-server with its data under ``KINGME_DATA``."""
    kingme_data: Path = Path("data")
    redis_appendfsync: Literal["everysec", "always"] = "everysec"
    """When the embedded redis-server fsyncs its append-only file: ``everysec`` (a power cut, or a crash of
    redis-server while the disk is slow to sync, may lose the last second or two: Redis then holds writes back for up to
    two seconds) or ``always`` (before every acknowledged write); ignored with ``REDIS_URL`` (that server has its
    own)."""
    egdb_dir: Path | None = None
    """Where the endgame databases are read and built (``kingme egdb build``); None is ``KINGME_DATA/egdb``."""
    ai_workers: int = Field(default_factory=_default_workers, ge=1)
    use_threads: bool = False
    """Run AI searches in threads instead of processes (for small hosts and tests)."""
    ai_backend: Literal["local", "queue"] = "local"
    """Where AI moves are searched: ``local`` in this process's own workers (``AI_WORKERS``), or ``queue`` as jobs on
    Redis run by ``kingme worker`` processes on any machine that reaches ``REDIS_URL`` (which it then requires)."""
    http_host: str = "0.0.0.0"
    """The interface of the public pages (leaderboards, replays; the sandbox's page): every one by default, for a proxy
    or a container's port mapping. ``/healthz`` and ``/metrics`` are never served there."""
    http_port: int = Field(default=8080, ge=0, le=65535)
    ops_host: str = "127.0.0.1"
    """The interface of ``/healthz`` and ``/metrics``: the loopback by default, so that only this host sees them (the
    Docker image sets ``0.0.0.0``: inside a container the loopback is the container's own)."""
    ops_port: int = Field(default=8090, ge=0, le=65535)
    public_base_url: str | None = None
    log_level: str = "INFO"

    challenge_ttl: float = Field(default=10 * MINUTE, gt=0)
    turn_time_default: float = Field(default=DAY, gt=0)
    turn_time_min: float = Field(default=MINUTE, gt=0)
    turn_time_max: float = Field(default=7 * DAY, gt=0)
    ai_think_time_max: float = Field(default=10.0, gt=0)
    """The most an AI thinks a move: it caps each level's own time and the time a player asks for (the only setting of
    AI thinking time: a game uses its level's time unless the player chose one)."""
    one_game_per_channel: bool = True
    """At most one active game in a channel (``ONE_GAME_PER_CHANNEL``); a game in its own thread is alone in its
    channel, so the rule holds back only channels where no thread can be opened."""
    rated_games_per_pair_per_day: int = Field(default=3, ge=0)
    sweep_interval: float = Field(default=15.0, gt=0)
    exhibition_move_delay: float = Field(default=1.0, ge=0)
    """Pause between the moves of an AI-versus-AI exhibition, so people can follow it."""
    ai_retry_after: float = Field(default=20.0, gt=0)
    """Seconds after which the sweeper starts again an AI turn that no search of this process is working on (after the
    AI failed, or the process that was searching stopped)."""
    game_threads: bool = True
    """Play every game (against the AI, accepted challenges, exhibitions) in its own thread where the channel allows
    threads (``GAME_THREADS``); off, games stay in the channel, one at a time."""
    game_retention_days: float | None = Field(default=None, gt=0)
    """Days a finished game is kept (then the sweeper deletes it); unset keeps them for ever, as the history."""
    shard_count: int | None = Field(default=None, ge=1)
    """How many gateway shards the bot has in all, across its processes (``SHARD_COUNT``); unset: no sharding."""
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = None
    """The shards this process runs, comma-separated (``SHARD_IDS=0,1``); unset: all ``SHARD_COUNT`` of them."""
    discord_emulator_url: str | None = None
    """Tests and the sandbox only: a local Discord emulator (``http://127.0.0.1:PORT``) to connect to, not Discord."""

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _split_shard_ids(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not all(part.isdigit() for part in parts):
            raise ValueError(f"must be shard numbers separated by commas, like 0,1, not {value!r}")
        return tuple(int(part) for part in parts) or None

    @field_validator("shard_ids")
    @classmethod
    def _check_shard_ids(cls, ids: tuple[int, ...] | None, info: ValidationInfo) -> tuple[int, ...] | None:
        if ids is None:
            return None
        count = info.data.get("shard_count")
        if count is None:
            raise ValueError("needs SHARD_COUNT, the number of shards of every process together")
        wrong = sorted({i for i in ids if i >= count})
        if wrong:
            raise ValueError(f"{wrong[0]} is not a shard of SHARD_COUNT={count} (shards are numbered 0 to {count - 1})")
        if len(set(ids)) != len(ids):
            raise ValueError(f"names a shard twice ({','.join(map(str, ids))})")
        if len(ids) < count and info.data.get("redis_url") is None:
            raise ValueError(
                "runs only some of the shards, so the processes that run the others must share this one's Redis: "
                "set REDIS_URL"
            )
        return tuple(sorted(ids))

    ai_games_per_user: int = Field(default=3, ge=1)
    """Active games against the AI one person may have at once (a new one is refused with this number)."""
    exhibitions_per_guild: int = Field(default=2, ge=1)
    """Active AI-versus-AI exhibitions (``/checkers watch``) a server may have at once."""
    tournaments_per_guild: int = Field(default=2, ge=1)
    """Live (open or running) tournaments a server may have at once (one per channel in any case)."""
    challenges_per_sender: int = Field(default=5, ge=1)
    """Pending challenges one person may have sent and not yet seen answered, cancelled or expired."""
    challenges_per_target: int = Field(default=5, ge=1)
    """Pending challenges addressed to one person at once (so nobody can be flooded with pings)."""
    ai_think_budget: float = Field(default=60.0, ge=0)
    """AI think seconds one owner (the person playing the AI; for an exhibition, its server) may use within
    ``AI_THINK_BUDGET_WINDOW`` before their turns yield to others' (see :mod:`bot.service._fairness`)."""
    ai_think_budget_window: float = Field(default=300.0, gt=0)
    """The sliding window, in seconds, over which ``AI_THINK_BUDGET`` is counted."""
    ai_think_time_over_budget: float = Field(default=1.0, gt=0)
    """The most an AI thinks a move for an owner over budget while other owners' turns are waiting."""
    rate_user: float = Field(default=1.0, gt=0)
    """Commands and clicks one person may make per second, on average (a token bucket shared by every process)."""
    rate_user_burst: int = Field(default=20, ge=1)
    """Commands and clicks one person may make in a quick burst before ``RATE_USER`` applies."""
    rate_guild: float = Field(default=10.0, gt=0)
    """Commands and clicks one server may make per second, on average."""
    rate_guild_burst: int = Field(default=100, ge=1)
    """Commands and clicks one server may make in a quick burst before ``RATE_GUILD`` applies."""

    @model_validator(mode="after")
    def _check_ranges(self) -> Settings:
        if not self.turn_time_min <= self.turn_time_default <= self.turn_time_max:
            raise ValueError("TURN_TIME_DEFAULT must lie between TURN_TIME_MIN and TURN_TIME_MAX")
        return self

    @property
    def shards(self) -> tuple[int, ...] | None:
        """The shards this process runs, or None when the bot is not sharded."""
        if self.shard_count is None:
            return None
        return self.shard_ids if self.shard_ids is not None else tuple(range(self.shard_count))

    def summary(self) -> str:
        """A one-line description for the startup log, without secrets."""
        token = "set" if self.discord_token is not None else "not set"
        redis = "embedded" if self.redis_url is None else "external"
        if self.ai_backend == "queue":
            ai = "ai on the job queue"
        else:
            ai = f"ai workers {self.ai_workers}{' (threads)' if self.use_threads else ''}"
        shards = "" if self.shards is None else f", shards {','.join(map(str, self.shards))} of {self.shard_count}"
        ports = f"http {self.http_host}:{self.http_port}, ops {self.ops_host}:{self.ops_port}"
        return f"token {token}, redis {redis}, data {self.kingme_data}, {ai}, {ports}{shards}"
