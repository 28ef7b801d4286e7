"""The languages King Me speaks: a :class:`Language` renders :class:`~bot.i18n.Text` in one locale from the compiled
catalogue (``locales/<lang>/LC_MESSAGES/kingme.mo``, built from the ``.po`` sources by ``scripts/i18n``).

English is the source language (the message ids are the English); a locale with no catalogue falls back to it.
"""

from __future__ import annotations

import functools
import gettext
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from babel.support import NullTranslations, Translations

from bot.i18n._text import Text, _p, number

DOMAIN: Final = "kingme"
LOCALES: Final = Path(__file__).with_name("locales")
"""Where the catalogues are: ``kingme.pot`` (the extracted English) and ``<lang>/LC_MESSAGES/kingme.po``/``.mo``."""
SOURCE_LANGUAGE: Final = "en"


class Language:
    """Says messages in one language; :meth:`say` translates a :class:`Text` and leaves any other string (data such
    as names, moves and ids) as it is."""

    def __init__(self, code: str, translations: gettext.NullTranslations) -> None:
        self.code = code
        self._translations = translations

    def __repr__(self) -> str:
        return f"Language({self.code!r})"

    def say(self, text: str) -> str:
        """``text`` in this language when it is a :class:`Text` (its parameters too), else ``text`` itself."""
        if not isinstance(text, Text):
            return text
        if text.plural is not None:
            template = self._translations.ngettext(text.msgid, text.plural, _plural_n(text.n))
        elif text.context is not None:
            template = self._translations.pgettext(text.context, text.msgid)
        else:
            template = self._translations.gettext(text.msgid)
        return self._format(template, text.params)

    def _(self, msgid: str, /, **params: object) -> str:
        """A message of the catalogue, said now (the eager form of :func:`bot.i18n._`)."""
        return self.say(Text(msgid, params))

    def _n(self, singular: str, plural: str, count: float, /, **params: object) -> str:
        """A message with plural forms, said now."""
        return self.say(Text(singular, {"count": number(count), **params}, plural=plural, n=count))

    def _p(self, context: str, msgid: str, /, **params: object) -> str:
        """A message with a context, said now."""
        return self.say(_p(context, msgid, **params))

    def data(self, context: str, value: str) -> str:
        """A name that comes with the program's data (a variant's title, an AI level's summary), translated when the
        catalogue has it under ``context`` (``scripts/i18n`` extracts them), else as it is."""
        return self.say(_p(context, value))

    def _format(self, template: str, params: Mapping[str, object]) -> str:
        if not params:
            return template
        return template.format_map({k: self.say(v) if isinstance(v, str) else v for k, v in params.items()})


def _plural_n(count: float | None) -> int:
    """The ``n`` of ``ngettext``: whole counts as they are, fractions as "many" (``0.5 seconds``, ``1.5 secondes``)."""
    if count is None:
        return 0
    return int(count) if float(count).is_integer() else 2


@functools.cache
def _catalogue(lang: str) -> gettext.NullTranslations | None:
    found = Translations.load(str(LOCALES), [lang], DOMAIN)
    return found if isinstance(found, Translations) else None


def available() -> tuple[str, ...]:
    """The languages with a compiled catalogue, English first."""
    compiled = sorted(p.parent.parent.name for p in LOCALES.glob(f"*/LC_MESSAGES/{DOMAIN}.mo"))
    return (SOURCE_LANGUAGE, *compiled)


ENGLISH: Final = Language(SOURCE_LANGUAGE, NullTranslations())
PSEUDO_LOCALE: Final = "x-pseudo"
"""A locale no Discord client sends: the tests' pseudo-language (see :class:`Pseudo`)."""


class _Marked(NullTranslations):
    """Every message of the catalogue, in English between ⟦ and ⟧."""

    def gettext(self, message: str) -> str:
        return f"⟦{message}⟧"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"⟦{msgid1 if n == 1 else msgid2}⟧"

    def pgettext(self, context: str, message: str) -> str:
        return f"⟦{message}⟧"


class Pseudo(Language):
    """The pseudo-language of the catalogue test: each message between ⟦ and ⟧, and each parameter that is not itself a
    message between ‹ and ›, so a test can tell the catalogue's words from data and find text that bypassed it."""

    def __init__(self) -> None:
        super().__init__(PSEUDO_LOCALE, _Marked())

    def data(self, context: str, value: str) -> str:
        return f"⟦{value}⟧"

    def _format(self, template: str, params: Mapping[str, object]) -> str:
        marked = {k: v if isinstance(v, Text) else f"‹{v}›" for k, v in params.items()}
        return super()._format(template, marked)


@functools.cache
def language(locale: object) -> Language:
    """The language of a Discord locale (``fr``, ``en-US``, ``es-ES``: a :class:`discord.Locale` or its value): the
    catalogue of the locale itself, else of its language, else English."""
    code = str(getattr(locale, "value", locale) or "")
    if code == PSEUDO_LOCALE:
        return Pseudo()
    code = code.replace("-", "_")
    for candidate in (code, code.split("_")[0]):
        if candidate and candidate != SOURCE_LANGUAGE:
            found = _catalogue(candidate)
            if found is not None:
                return Language(candidate, found)
    return ENGLISH
