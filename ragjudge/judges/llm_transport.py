"""A lean HTTP/1.1 client for the openai client when the server runs on this machine over plain HTTP.

The openai client builds and reads every request itself; what it gets here only moves the bytes, over
keep-alive asyncio streams, without the connection-pool, state-machine and task-group layers of the default
transport, and without the client layers a loopback server never needs (client-level header, cookie and
query merging, auth flows, redirects, event hooks): about 2 ms of CPU per request on a cold core. Timeouts,
refused connections and malformed replies raise the transport exceptions the openai client maps to its own
errors, so retries and failure reasons are unchanged. Requests are built before they hold a concurrency slot
and take it here, just before the bytes leave; the slot is handed on as soon as the reply is in
(:mod:`ragjudge.judges.llm_slots`).

An idle keep-alive connection the server has closed meanwhile is noticed before reuse when the close has
already arrived, and otherwise costs one transparent resend on a fresh connection, made only when the reused
connection failed before any byte of a response was read (the rule HTTP clients use for stale connections).
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import sys
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from ragjudge.judges.llm_slots import CURRENT

__all__ = ["loopback_client"]

T = TypeVar("T")
Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _Stale(Exception):
    """A reused connection failed before any byte of the response arrived."""


Exchange = tuple[int, list[tuple[bytes, bytes]], bytes]


class _Pool:
    """Keep-alive connections to one server, idle ones reused last-in first-out."""

    def __init__(self) -> None:
        self._idle: list[Connection] = []

    async def exchange(self, host: str, port: int, message: bytes, timeouts: dict[str, Any]) -> Exchange:
        """Send ``message`` and read the reply; a stale idle connection costs one resend on a fresh one."""
        try:
            return await self._once(host, port, message, timeouts, fresh=False)
        except _Stale:
            return await self._once(host, port, message, timeouts, fresh=True)

    async def _once(self, host: str, port: int, message: bytes, timeouts: dict[str, Any], fresh: bool) -> Exchange:
        connection = None if fresh else self._reusable()
        reused = connection is not None
        if connection is None:
            connection = await _timed(asyncio.open_connection(host, port), timeouts.get("connect"))
        try:
            status, headers, content, keep = await _timed(_roundtrip(connection, message), timeouts.get("read"))
        except _NoResponse as error:
            connection[1].close()
            raise (_Stale if reused else ValueError)(str(error)) from None
        except BaseException:
            connection[1].close()
            raise
        if keep:
            self._idle.append(connection)
        else:
            connection[1].close()
        return status, headers, content

    def _reusable(self) -> Connection | None:
        """An idle connection still open, closing any the server has closed meanwhile."""
        while self._idle:
            reader, writer = self._idle.pop()
            if not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None

    def close(self) -> None:
        while self._idle:
            self._idle.pop()[1].close()


def loopback_client(httpx: Any) -> Any:
    """An ``AsyncClient`` of the openai client's HTTP library for a server on this machine."""

    class LoopbackTransport(httpx.AsyncBaseTransport):  # type: ignore[misc]
        def __init__(self) -> None:
            self._pool = _Pool()

        async def handle_async_request(self, request: Any) -> Any:
            message = _serialise(request, await request.aread())
            slot = CURRENT.get()
            if slot is not None:  # built ahead: now wait for a free slot (see llm_slots)
                await slot.take()
            url = request.url
            try:
                status, headers, content = await self._pool.exchange(
                    url.host, url.port or 80, message, request.extensions.get("timeout") or {})
            except asyncio.TimeoutError:
                raise httpx.ReadTimeout("timed out", request=request) from None
            except (OSError, asyncio.IncompleteReadError, ValueError) as error:
                raise httpx.ConnectError(f"{type(error).__name__}: {error}", request=request) from None
            response = httpx.Response(status, headers=headers, content=content, request=request)
            if slot is not None:
                await slot.reply_arrived()
            return response

        async def aclose(self) -> None:
            self._pool.close()

    class LoopbackClient(httpx.AsyncClient):  # type: ignore[misc]
        """Builds requests as given and hands them straight to the transport (see the module docstring)."""

        takes_slots = True  # its transport takes the request's slot itself (see llm_slots)

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            # One endpoint is asked again and again, and URL objects are immutable: parse each text once.
            self._url = functools.lru_cache(maxsize=64)(httpx.URL)

        def build_request(self, method: str, url: Any, *, content: Any = None, data: Any = None,
                          files: Any = None, json: Any = None, params: Any = None, headers: Any = None,
                          cookies: Any = None, timeout: Any = httpx.USE_CLIENT_DEFAULT,
                          extensions: Any = None) -> Any:
            if data is not None or files or json is not None or params or cookies or extensions:
                return super().build_request(method, url, content=content, data=data, files=files, json=json,
                                             params=params, headers=headers, cookies=cookies, timeout=timeout,
                                             extensions=extensions)
            timeout = self.timeout if timeout is httpx.USE_CLIENT_DEFAULT else httpx.Timeout(timeout)
            return httpx.Request(method, self._url(url), content=content, headers=headers,
                                 extensions={"timeout": timeout.as_dict()})

        async def send(self, request: Any, *, stream: bool = False, auth: Any = None,
                       follow_redirects: Any = None) -> Any:
            start = time.perf_counter()
            response = await self._transport.handle_async_request(request)
            response.elapsed = datetime.timedelta(seconds=time.perf_counter() - start)
            return response

    return LoopbackClient(transport=LoopbackTransport())


def _serialise(request: Any, body: bytes) -> bytes:
    head = [f"{request.method} {request.url.raw_path.decode('ascii')} HTTP/1.1".encode()]
    head += [k + b": " + v for k, v in request.headers.raw]
    if b"content-length" not in (k.lower() for k, _ in request.headers.raw):
        head.append(b"Content-Length: %d" % len(body))
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class _NoResponse(Exception):
    """The connection failed before the first byte of a response."""


async def _roundtrip(connection: Connection, message: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes, bool]:
    reader, writer = connection
    try:
        writer.write(message)
        await writer.drain()
        line = await reader.readline()
    except (OSError, asyncio.IncompleteReadError) as error:
        raise _NoResponse(f"{type(error).__name__}: {error}") from None
    if not line:
        raise _NoResponse("the server closed the connection")
    return await _read_response(reader, line)


async def _timed(awaitable: Awaitable[T], seconds: float | None) -> T:
    """``awaitable`` under a deadline (``asyncio.timeout`` where it exists: no extra task per wait)."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)  # pragma: no cover - Python 3.10


async def _read_response(reader: asyncio.StreamReader,
                         line: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes, bool]:
    """Status, headers, body (Content-Length, chunked, or to end of stream), and whether to keep the connection,
    after the status ``line``."""
    if not line:
        raise ValueError("the server closed the connection")
    status = int(line.split(b" ", 2)[1])
    headers: list[tuple[bytes, bytes]] = []
    while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
        name, _, value = raw.partition(b":")
        headers.append((name.strip(), value.strip()))
    fields = {name.lower(): value.lower() for name, value in headers}
    keep = fields.get(b"connection") != b"close"
    if b"content-length" in fields:
        content = await reader.readexactly(int(fields[b"content-length"]))
    elif b"chunked" in fields.get(b"transfer-encoding", b""):
        chunks = []
        while size := int((await reader.readline()).split(b";")[0], 16):
            chunks.append(await reader.readexactly(size))
            await reader.readline()
        await reader.readline()
        content = b"".join(chunks)
    else:
        content, keep = await reader.read(), False
    headers = [(n, v) for n, v in headers if n.lower() not in (b"transfer-encoding", b"content-length")]
    return status, headers + [(b"content-length", str(len(content)).encode())], content, keep
