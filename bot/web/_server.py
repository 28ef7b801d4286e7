"""Serving the web application on a host and port, started and stopped by the composition root."""

from __future__ import annotations

from aiohttp import web


class WebServer:
    """Runs ``app`` on ``host:port`` (port 0: a free one, then read :attr:`port`). ``start`` raises :class:`OSError`
    when the address is taken."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._app = app
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @property
    def address(self) -> str:
        """Where it listens, as given (``0.0.0.0`` is every interface), for the log."""
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """Where to reach it from this host."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        runner = web.AppRunner(self._app, handle_signals=False, access_log=None)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(runner.addresses[0][1])

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
