"""The AI's worker processes spawned first thing, by the commands that run the bot (see :mod:`bot.pool._early`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings


def start_ai_early(settings: Settings, data: Path | None) -> None:
    """Spawn the AI's worker processes now, while the rest of the bot is imported and started (see
    :mod:`bot.pool._early`), when the bot will run a pool of its own; ``data`` is the data folder it will use (None:
    a new, empty one), where the endgame databases are looked for unless ``EGDB_DIR`` says otherwise."""
    if settings.ai_backend != "local" or settings.use_threads:
        return
    from bot.pool import start_early

    fresh = Path(tempfile.gettempdir()) / "kingme-no-databases"  # a new data folder holds none
    start_early(settings.ai_workers, settings.egdb_dir or (data / "egdb" if data is not None else fresh))
