"""The bot's configuration: one settings class, read once in the composition root (``bot/__main__.py``).

Values come from the environment (or a ``.env`` file); names are the upper-case field names, e.g. ``REDIS_URL``,
``TURN_TIME_DEFAULT``. Secrets are :class:`pydantic.SecretStr` and never appear in :meth:`Settings.summary`.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

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
    egdb_dir: Path | None = None
    """Where the endgame databases are read and built (``kingme egdb build``); None is ``KINGME_DATA/egdb``."""
    ai_workers: int = Field(default_factory=_default_workers, ge=1)
    use_threads: bool = False
    """Run AI searches in threads instead of processes (for small hosts and tests)."""
    http_port: int = Field(default=8080, ge=0, le=65535)
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
    rated_games_per_pair_per_day: int = Field(default=3, ge=0)
    sweep_interval: float = Field(default=15.0, gt=0)
    exhibition_move_delay: float = Field(default=1.0, ge=0)
    """Pause between the moves of an AI-versus-AI exhibition, so people can follow it."""
    ai_retry_after: float = Field(default=20.0, gt=0)
    """Seconds after which the sweeper starts again an AI turn that no search of this process is working on (after the
    AI failed, or the process that was searching stopped)."""
    game_threads: bool = True
    """Open each accepted challenge's game in its own thread (``GAME_THREADS``); off, games stay in the channel."""

    @model_validator(mode="after")
    def _check_ranges(self) -> Settings:
        if not self.turn_time_min <= self.turn_time_default <= self.turn_time_max:
            raise ValueError("TURN_TIME_DEFAULT must lie between TURN_TIME_MIN and TURN_TIME_MAX")
        return self

    def summary(self) -> str:
        """A one-line description for the startup log, without secrets."""
        token = "set" if self.discord_token is not None else "not set"
        redis = "embedded" if self.redis_url is None else "external"
        return (
            f"token {token}, redis {redis}, data {self.kingme_data}, ai workers {self.ai_workers}"
            f"{' (threads)' if self.use_threads else ''}, http port {self.http_port}"
        )
