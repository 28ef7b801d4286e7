"""King Me's messages in the player's language: one catalogue (Babel: ``.po`` sources compiled to ``.mo``), English and
French.

Code marks each message with :func:`_` (lazy: a :class:`Text`, which is the English ``str``), :func:`_n` (plural
forms) or :func:`_p` (a context); a :class:`Language` (from :func:`language`, given a Discord locale) says them.
``scripts/i18n`` extracts the messages, updates the ``.po`` files and compiles them.
"""

from bot.i18n._language import (
    DOMAIN,
    ENGLISH,
    LOCALES,
    PSEUDO_LOCALE,
    Language,
    Pseudo,
    available,
    language,
)
from bot.i18n._text import Text, _, _n, _p, number

__all__ = [
    "DOMAIN",
    "ENGLISH",
    "LOCALES",
    "PSEUDO_LOCALE",
    "Language",
    "Pseudo",
    "Text",
    "_",
    "_n",
    "_p",
    "available",
    "language",
    "number",
]
