"""A package's folder of static files, served by aiohttp under a URL prefix with content-hashed URLs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from yarl import URL  # aiohttp's URL type


@dataclass(frozen=True)
class StaticFiles:
    """The files of ``folder`` under the URL ``prefix``, as the route called ``name``.

    A file's URL carries a hash of its content (aiohttp's ``append_version``), so a browser fetches a changed file
    again instead of running a stale copy from its cache.
    """

    folder: Path
    prefix: str
    name: str

    def route(self) -> web.AbstractRouteDef:
        """The route to add to an application (before it starts)."""
        return web.static(self.prefix, self.folder, name=self.name, append_version=True)

    def url(self, app: web.Application, filename: str) -> URL:
        """The versioned URL of ``filename`` in ``app``, which must have :meth:`route`."""
        return app.router[self.name].url_for(filename=filename)
