"""Lazy messages: a :class:`Text` is the English sentence (it *is* a ``str``) that also remembers its message id and
parameters, so a front end can say it again in another language.

The game service raises its errors and writes its events with :func:`_` and :func:`_n`; every existing reader of
those strings still sees the same English, and the Discord layer translates them with :meth:`bot.i18n.Language.say`.
A ``str`` operation on a :class:`Text` (concatenation, slicing, ``strip``) returns a plain ``str``: the English, which
the catalogue test then reports as a string that bypassed the catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping


class Text(str):
    """A message of the catalogue: English as the ``str`` value, plus what it takes to translate it."""

    msgid: str
    plural: str | None
    n: float | None
    """The count that chose the plural form (``count`` would hide :meth:`str.count`)."""
    context: str | None
    params: Mapping[str, object]

    def __new__(
        cls,
        msgid: str,
        params: Mapping[str, object] | None = None,
        *,
        plural: str | None = None,
        n: float | None = None,
        context: str | None = None,
    ) -> Text:
        params = dict(params or {})
        template = msgid if plural is None or n == 1 else plural
        self = super().__new__(cls, template.format_map(params) if params else template)
        self.msgid, self.plural, self.n, self.context, self.params = msgid, plural, n, context, params
        return self

    def __reduce__(self) -> tuple[object, ...]:  # pickles (and copies) as the Text it is, not as a plain str
        return (_rebuild, (self.msgid, self.params, self.plural, self.n, self.context))


def _rebuild(
    msgid: str, params: Mapping[str, object], plural: str | None, n: float | None, context: str | None
) -> Text:
    return Text(msgid, params, plural=plural, n=n, context=context)


def _(msgid: str, /, **params: object) -> Text:
    """A message of the catalogue with named placeholders (``{name}``): the English now, any language later."""
    return Text(msgid, params)


def _n(singular: str, plural: str, count: float, /, **params: object) -> Text:
    """A message with plural forms chosen by ``count`` (also a placeholder, ``{count}``), as ``ngettext`` does."""
    return Text(singular, {"count": number(count), **params}, plural=plural, n=count)


def _p(context: str, msgid: str, /, **params: object) -> Text:
    """A message with a context (``pgettext``): the same English word may need different translations."""
    return Text(msgid, params, context=context)


def number(count: float) -> str:
    """``3``, ``0.5``: a count as people write it (no ``.0`` on whole numbers)."""
    return str(int(count)) if float(count).is_integer() else f"{count:g}"
