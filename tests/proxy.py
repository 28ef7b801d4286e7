"""A TCP proxy in front of a Redis server that can lose what a failing network loses: the reply to one command (held
back past the client's timeout, so the command ran but the client never hears of it), or for a while every command
of a kind (never forwarded, so it never runs).

Not a fake: the commands run on the real server; the proxy only delays or drops bytes on their way, as a network does.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from urllib.parse import unquote, urlparse


class LossyProxy:
    """Forwards 127.0.0.1:``port`` to the Redis at ``upstream`` (a ``redis://`` or ``unix://`` URL)."""

    def __init__(self, upstream: str) -> None:
        self._upstream = urlparse(upstream)
        self._server: asyncio.Server | None = None
        self._hold: tuple[bytes, float] | None = None
        self._drop: tuple[bytes, float] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.held = 0
        """Replies held back so far."""
        self.dropped = 0
        """Commands dropped so far."""

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"redis://127.0.0.1:{port}/0"

    def hold_next_reply(self, command: bytes, seconds: float) -> None:
        """Hold back the reply to the next ``command`` (say ``b"EVALSHA"``) for ``seconds``: the command runs, its reply
        comes too late for a client with a shorter timeout."""
        self._hold = (command.upper(), seconds)

    def drop_commands(self, command: bytes, seconds: float) -> None:
        """For the next ``seconds``, never forward a ``command``: it does not run, and its client waits in vain."""
        self._drop = (command.upper(), time.monotonic() + seconds)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._upstream.scheme == "unix":
            return await asyncio.open_unix_connection(unquote(self._upstream.path))
        return await asyncio.open_connection(self._upstream.hostname, self._upstream.port)

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await self._open_upstream()
        delay: list[float] = []  # the hold armed for this connection's next reply
        upward = asyncio.ensure_future(self._upward(client_reader, server_writer, delay))
        downward = asyncio.ensure_future(self._downward(server_reader, client_writer, delay))
        for task in (upward, downward):
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await asyncio.wait((upward, downward), return_when=asyncio.FIRST_COMPLETED)
        for task in (upward, downward):
            task.cancel()
        for writer in (client_writer, server_writer):
            writer.close()

    async def _upward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: list[float]) -> None:
        while chunk := await reader.read(65536):
            upper = chunk.upper()
            if self._drop is not None and self._drop[0] in upper:
                if time.monotonic() < self._drop[1]:
                    self.dropped += 1
                    continue
                self._drop = None
            if self._hold is not None and self._hold[0] in upper:
                delay.append(self._hold[1])
                self._hold = None
            writer.write(chunk)
            await writer.drain()

    async def _downward(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: list[float]) -> None:
        while chunk := await reader.read(65536):
            if delay:
                self.held += 1
                await asyncio.sleep(delay.pop())
            with contextlib.suppress(ConnectionError):
                writer.write(chunk)
                await writer.drain()


@contextlib.asynccontextmanager
async def lossy_proxy(upstream: str) -> AsyncIterator[LossyProxy]:
    proxy = LossyProxy(upstream)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()
