"""How the AI levels are shown to players: each level's name with its strength, the Elo-style rating our own round
robin measured (:mod:`ai.strength`), and its one line in players' words, in the reader's language."""

from __future__ import annotations

from ai.api import Level, UnknownLevelError, get_level, measured
from bot.i18n import Language


def level_line(lang: Language, level: Level, name: str | None = None) -> str:
    """``greedy (Elo 1339): Reads three turns ahead…``; ``name`` shows the level's name otherwise (in bold, say)."""
    shown = name or level.name
    description = lang.data("level", level.summary)
    if level.rating is None:
        return lang._("{level}: {description}", level=shown, description=description)
    return lang._("{level} (Elo {rating}): {description}", level=shown, rating=level.rating, description=description)


def strength(lang: Language, name: str) -> str | None:
    """``greedy (Elo 1339)``, for the level called ``name`` (None: no such level, or not measured)."""
    try:
        level = get_level(name)
    except UnknownLevelError:
        return None
    if level.rating is None:
        return None
    return lang._("{level} (Elo {rating})", level=level.name, rating=level.rating)


def scale(lang: Language) -> str:
    """What the figures are: ``Elo from games between the levels themselves, easy = 1000``."""
    found = measured()
    if found is None:
        return ""
    return lang._(
        "Elo from games between the levels themselves, {anchor} = {rating}",
        anchor=found.anchor,
        rating=found.anchor_rating,
    )
