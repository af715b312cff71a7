"""The lean loopback transport: response framing, and when the llm judge uses it."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("openai")

from ragjudge.judges.llm_engine import LLMEngine  # noqa: E402
from ragjudge.judges.llm_options import LLMOptions  # noqa: E402
from ragjudge.judges.llm_transport import _read_response  # noqa: E402


def read(raw: bytes) -> tuple[int, dict[bytes, bytes], bytes, bool]:
    async def go() -> tuple[int, dict[bytes, bytes], bytes, bool]:
        reader = asyncio.StreamReader()
        reader.feed_data(raw)
        reader.feed_eof()
        status, headers, body, keep = await _read_response(reader, await reader.readline())
        return status, {k.lower(): v for k, v in headers}, body, keep

    return asyncio.run(go())


def test_content_length_body_and_keep_alive() -> None:
    status, headers, body, keep = read(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhelloEXTRA")
    assert (status, body, keep) == (200, b"hello", True)
    assert headers[b"x-a"] == b"1" and headers[b"content-length"] == b"5"


def test_chunked_body_is_joined_and_reframed() -> None:
    raw = (b"HTTP/1.1 429 Too Many\r\nTransfer-Encoding: chunked\r\nRetry-After: 2\r\n\r\n"
           b"3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n")
    status, headers, body, keep = read(raw)
    assert (status, body, keep) == (429, b"abcde", True)
    assert b"transfer-encoding" not in headers and headers[b"content-length"] == b"5"
    assert headers[b"retry-after"] == b"2"


def test_connection_close_and_body_to_end_of_stream() -> None:
    assert read(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")[3] is False
    status, _, body, keep = read(b"HTTP/1.0 500 X\r\n\r\nall of it")
    assert (status, body, keep) == (500, b"all of it", False)


def test_closed_connection_is_an_error() -> None:
    with pytest.raises(ValueError, match="closed"):
        read(b"")


@pytest.mark.parametrize(("base_url", "lean"), [("http://127.0.0.1:9/v1", True), ("http://localhost:9/v1", True),
                                                ("https://127.0.0.1:9/v1", False)])
def test_the_judge_uses_it_only_for_plain_http_on_this_machine(base_url: str, lean: bool) -> None:
    engine = LLMEngine(LLMOptions(model="m", base_url=base_url))
    client = engine._client()
    transport = type(client._client._transport).__name__
    assert (transport == "LoopbackTransport") is lean
