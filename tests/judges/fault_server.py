"""A scripted chat-completions server for tests and benchmarks: it fails exactly how a test tells it to.

It speaks enough HTTP/1.1 (keep-alive, Content-Length) for the openai client, records every request body and
header it receives, and answers each ``POST .../chat/completions`` with the next scripted :class:`Action`
(or one chosen by ``chooser``), else a well-formed verdict. The verdict is ``no`` when the user message
contains ``NEGATIVE`` and ``yes`` otherwise, so a test can check that each verdict belongs to its own item.

In a test: ``FaultServer().start()`` runs it on a thread of the test process. For benchmarks, run it as a
script (``python tests/judges/fault_server.py --latency 0.2``) so it does not share the client's GIL; it
prints ``PORT <n>`` and serves until killed. ``GET /stats`` returns the request count and ``busy_seconds``: the
server's own time on chat-completion requests, from reading the request line to the reply's last byte written
(latency included), so a benchmark can subtract exactly what the server spent.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Action:
    """One scripted reply; ``kind``: ok, status, slow, truncated, prose, empty_body, content, echo_auth."""

    kind: str = "ok"
    status: int = 200
    retry_after: float | None = None
    delay: float = 0.0
    content: str | None = None


OK = Action()
TRUNCATED = Action("truncated")
PROSE = Action("prose")
EMPTY_BODY = Action("empty_body")
ECHO_AUTH = Action("echo_auth")


def status(code: int, retry_after: float | None = None) -> Action:
    """Reply with HTTP ``code`` (and a ``Retry-After`` header when given)."""
    return Action("status", status=code, retry_after=retry_after)


def slow(seconds: float) -> Action:
    """A correct reply, but only after ``seconds``."""
    return Action("slow", delay=seconds)


def content(text: str) -> Action:
    """A 200 completion whose message content is exactly ``text``."""
    return Action("content", content=text)


@dataclass
class Record:
    """What the server received for one request, and which action it answered with."""

    path: str
    headers: dict[str, str]
    body: Any
    action: str


@dataclass
class FaultServer:
    """The server; set ``script``, ``chooser``, ``latency`` and the ``reject_*`` / ``echo_*`` flags."""

    latency: float = 0.0
    reject_json_schema: bool = False
    reject_logprobs: bool = False
    echo_auth_in_errors: bool = False
    p_yes: float = 0.8
    script: list[Action] = field(default_factory=list)
    chooser: Callable[[int, Any], Action] | None = None
    records: list[Record] = field(default_factory=list)
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    busy_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        """Chat-completion requests received so far."""
        return sum(1 for r in self.records if r.path.endswith("/chat/completions"))

    # -- running -------------------------------------------------------------------------------------

    def start(self) -> FaultServer:
        """Serve on a free 127.0.0.1 port on a daemon thread; returns once it listens."""
        ready = threading.Event()
        self._thread = threading.Thread(target=self._serve_forever, args=(ready,), daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("fault server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    def _serve_forever(self, ready: threading.Event) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", self.port))
        self.port = server.sockets[0].getsockname()[1]
        ready.set()
        self._loop.run_forever()
        # Close connections still open (a client that timed out, keep-alive) before the loop goes away.
        server.close()
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    # -- HTTP ------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        line = await reader.readline()
        if not line:
            return False
        started = time.perf_counter()
        method, path, _ = line.decode("latin-1").split(" ", 2)
        headers = {}
        while (raw := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = raw.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        code, extra, payload = await self._respond(method, path, headers, body)
        head = [f"HTTP/1.1 {code} X", f"Content-Length: {len(payload)}", "Content-Type: application/json"]
        head += [f"{k}: {v}" for k, v in extra.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()
        if method == "POST":
            self.busy_seconds += time.perf_counter() - started
        return headers.get("connection", "").lower() != "close"

    async def _respond(self, method: str, path: str, headers: dict[str, str],
                       raw: bytes) -> tuple[int, dict[str, str], bytes]:
        if method == "GET":
            stats = {"requests": self.count, "busy_seconds": self.busy_seconds, "data": []}
            return 200, {}, json.dumps(stats).encode()
        body = json.loads(raw) if raw else None
        with self._lock:
            index = self.count
            action = self.script.pop(0) if self.script else None
        if action is None:
            action = self.chooser(index, body) if self.chooser else OK
        self.records.append(Record(path, headers, body, action.kind))
        await asyncio.sleep(self.latency + action.delay)
        return self._reply(action, headers, body)

    def _reply(self, action: Action, headers: dict[str, str], body: Any) -> tuple[int, dict[str, str], bytes]:
        fmt = (body or {}).get("response_format") or {}
        if self.reject_json_schema and fmt.get("type") == "json_schema":
            return 500, {}, b'{"error": {"message": "json_schema response_format is not supported"}}'
        if self.reject_logprobs and (body or {}).get("logprobs"):
            return 400, {}, b'{"error": {"message": "logprobs are not supported by this model"}}'
        if action.kind == "status":
            extra = {} if action.retry_after is None else {"Retry-After": f"{action.retry_after:g}"}
            echo = f" (you sent {headers.get('authorization')})" if self.echo_auth_in_errors else ""
            error = {"error": {"message": f"scripted {action.status}{echo}"}}
            return action.status, extra, json.dumps(error).encode()
        if action.kind == "empty_body":
            return 200, {}, b""
        text = self._content(action, headers, body)
        return 200, {}, json.dumps(_completion(text, body, self.p_yes)).encode()

    def _content(self, action: Action, headers: dict[str, str], body: Any) -> str:
        full = _verdict_text(body)
        if action.kind == "truncated":
            return full[:6]
        if action.kind == "prose":
            return "Let me think about this carefully. The evidence seems to point in a certain direction."
        if action.kind == "content":
            return action.content or ""
        if action.kind == "echo_auth":
            echoed = "header was " + headers.get("authorization", "")
            return json.dumps({"verdict": "yes", "rationale": echoed})
        return full


def _user_text(body: Any) -> str:
    messages = (body or {}).get("messages") or []
    return "\n".join(m.get("content", "") for m in messages if m.get("role") == "user")


def _verdict_text(body: Any) -> str:
    user = _user_text(body)
    if "atomic factual claims" in user:
        answer = user.split('name="answer">\n', 1)[-1].split("\n</data-", 1)[0]
        return json.dumps({"claims": [s.strip() for s in answer.split(".") if s.strip()]})
    verdict = "no" if "NEGATIVE" in user else "yes"
    return json.dumps({"verdict": verdict, "rationale": f"scripted {verdict}"})


def _logprobs(text: str, p_yes: float) -> dict[str, Any]:
    """Token log-probabilities for ``text``: yes / no alternatives (``p_yes``) at the verdict token."""
    match = re.search(r'"verdict": "(yes|no)"', text)
    pieces = [text] if match is None else [text[:match.start(1)], match.group(1), text[match.end(1):]]
    alternatives = {"yes": math.log(p_yes), "no": math.log(1 - p_yes)}
    entries = []
    for piece in pieces:
        if piece in alternatives:
            top = [{"token": k, "logprob": v, "bytes": None} for k, v in alternatives.items()]
            logprob = alternatives[piece]
            entries.append({"token": piece, "logprob": logprob, "bytes": None, "top_logprobs": top})
        else:
            entries.append({"token": piece, "logprob": 0.0, "bytes": None, "top_logprobs": []})
    return {"content": entries}


def _completion(text: str, body: Any, p_yes: float) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text},
                              "finish_reason": "stop", "logprobs": None}
    if (body or {}).get("logprobs"):
        choice["logprobs"] = _logprobs(text, p_yes)
    prompt = len(json.dumps((body or {}).get("messages", []))) // 4
    model = (body or {}).get("model", "m")
    return {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": model,
            "choices": [choice],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(text) // 4 + 1,
                      "total_tokens": prompt + len(text) // 4 + 1}}


def main() -> None:
    """Serve with a fixed latency until killed (for benchmarks)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FaultServer(latency=args.latency, port=args.port).start()
    print(f"PORT {server.port}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
