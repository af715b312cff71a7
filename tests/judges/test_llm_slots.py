"""Concurrency slots: requests built ahead, the slot handed on when a reply is in, stale settings refused."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("openai")

from fault_server import FaultServer  # noqa: E402
from test_llm_faults import make_judge, pairs  # noqa: E402

from ragjudge.judges import llm_run, llm_transport  # noqa: E402
from ragjudge.judges.llm_formats import _SERVER_ERRORS_TO_STEP_DOWN  # noqa: E402
from ragjudge.judges.llm_slots import Slot, SlotRefused  # noqa: E402
from ragjudge.records import Status  # noqa: E402


def _record_events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Log 'sent' as each request's bytes leave and 'counted' as each reply is counted."""
    events: list[str] = []
    roundtrip, spend = llm_transport._roundtrip, llm_run.Runner._spend

    async def sent(connection: llm_transport.Connection, message: bytes) -> object:
        events.append("sent")
        return await roundtrip(connection, message)

    def counted(self: llm_run.Runner, reply: llm_run.Reply) -> llm_run.Usage:
        events.append("counted")
        return spend(self, reply)

    monkeypatch.setattr(llm_transport, "_roundtrip", sent)
    monkeypatch.setattr(llm_run.Runner, "_spend", counted)
    return events


def test_the_next_request_leaves_before_a_reply_is_processed(fault_server: FaultServer, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    events = _record_events(monkeypatch)
    verdicts = make_judge(fault_server, tmp_path, cache=False, max_concurrency=1).judge(pairs(6))
    assert [v.label for v in verdicts] == ["supported", "unsupported"] * 3
    # The first reply settles the output format, so it is counted before the next request may go; from then
    # on each reply's slot passes to the next request before the reply is counted.
    assert events == ["sent", "counted", "sent"] + ["sent", "counted"] * 4 + ["counted"]
    assert fault_server.count == 6


def test_under_a_budget_cap_each_reply_is_counted_before_the_next_request(
        fault_server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = _record_events(monkeypatch)
    judge = make_judge(fault_server, tmp_path, cache=False, max_concurrency=1, max_tokens_total=10**9)
    judge.judge(pairs(4))
    assert events == ["sent", "counted"] * 4


def test_a_body_built_before_the_format_changed_is_built_again(fault_server: FaultServer,
                                                               tmp_path: Path) -> None:
    fault_server.reject_json_schema = True
    judge = make_judge(fault_server, tmp_path, max_concurrency=1)
    verdicts = judge.judge(pairs(6))
    assert all(v.status is Status.OK for v in verdicts)
    kinds = [r.body["response_format"]["type"] for r in fault_server.records]
    # Exactly the rejections it takes to step down; the bodies built ahead in the old format never went out.
    assert kinds.count("json_schema") == _SERVER_ERRORS_TO_STEP_DOWN
    assert kinds[_SERVER_ERRORS_TO_STEP_DOWN:] == ["json_object"] * 6


def test_budget_reached_while_waiting_skips_the_request(fault_server: FaultServer, tmp_path: Path) -> None:
    judge = make_judge(fault_server, tmp_path, cache=False, max_concurrency=1, max_tokens_total=1)
    verdicts = judge.judge(pairs(5))
    assert [v.status for v in verdicts] == [Status.OK] + [Status.SKIPPED] * 4
    assert fault_server.count == 1 and all("max_tokens_total" in (v.reason or "") for v in verdicts[1:])


def test_a_slot_is_released_once_and_after_a_refused_admission() -> None:
    async def go() -> None:
        limit = asyncio.Semaphore(1)
        refuse = Slot(limit, lambda: (_ for _ in ()).throw(SlotRefused(None)), lambda: True)
        with pytest.raises(SlotRefused):
            await refuse.take()
        assert not limit.locked()  # a refused admission gives the slot back
        slot = Slot(limit, lambda: None, lambda: False)
        await slot.take()
        assert limit.locked()
        await slot.reply_arrived()  # the job does not allow an early hand-over
        assert limit.locked()
        slot.give_back()
        slot.give_back()
        assert not limit.locked() and limit._value == 1

    asyncio.run(go())


class _ClosesReusedConnections:
    """A server that answers the first request on each connection and closes the connection, unanswered, on
    any later one (an idle keep-alive connection it dropped just as the client reused it)."""

    def __init__(self, answer_first: bool = True) -> None:
        self.answer_first = answer_first
        self.connections = 0
        self.requests = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        served = 0
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            await reader.readexactly(length)
            self.requests += 1
            if served or not self.answer_first:
                writer.close()
                return
            served += 1
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}")
            await writer.drain()


def _post_twice(server: _ClosesReusedConnections) -> list[object]:
    from ragjudge.judges.llm_client import http_library

    httpx = http_library()

    async def go() -> list[object]:
        listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        client = llm_transport.loopback_client(httpx)
        results: list[object] = []
        try:
            for _ in range(2):
                request = client.build_request("POST", f"http://127.0.0.1:{port}/v1/x", content=b"{}",
                                               timeout=5.0)
                try:
                    results.append((await client.send(request)).status_code)
                except httpx.ConnectError as error:
                    results.append(str(error))
        finally:
            await client.aclose()
            listener.close()
        return results

    return asyncio.run(go())


def test_a_stale_keep_alive_connection_costs_one_transparent_resend() -> None:
    server = _ClosesReusedConnections()
    assert _post_twice(server) == [200, 200]
    assert (server.connections, server.requests) == (2, 3)  # the second request went out twice, once answered


def test_a_fresh_connection_that_fails_is_an_error_not_a_resend() -> None:
    server = _ClosesReusedConnections(answer_first=False)
    results = _post_twice(server)
    assert all(isinstance(r, str) and "closed the connection" in r for r in results)
    assert (server.connections, server.requests) == (2, 2)
