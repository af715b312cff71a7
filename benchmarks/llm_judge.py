"""Throughput and overhead of the ``llm`` judge.

1. ``--n-llama`` support judgements (default 200) against a real llama.cpp server (Gemma 3 270M), cold, then
   again with the warm cache.
2. ``--n`` judgements (default 2,000) against the scripted server (tests/judges/fault_server.py, run as its
   own process) with ``--latency`` (default 200 ms) per reply, at concurrency 1, 8 and 32. At concurrency 1
   the run is latency-bound at 5 requests/s (2,000 take about 7 minutes); ``--n-serial`` shortens it.
3. The 2,000 again from the warm cache.
4. The floor: 200 requests of the same size at concurrency 1 from a bare asyncio HTTP/1.1 loop on one
   keep-alive connection (no openai client, no httpx), so the overhead column has a limit beside it.

Columns: requests/s and tokens/s; ideal = the latency-bound rate (concurrency / latency); of ideal =
measured / ideal; speed-up = measured / the serial ideal (1 / latency); server ms/req = the scripted server's
own time per request as it measures it (request line read to reply written: the simulated latency plus its
HTTP and JSON work), read from its ``/stats``; overhead = (wall - server time / concurrency) / n, the wall time
per request that is not the server's (at concurrency 1 exactly ragjudge + the openai client + the loopback);
cpu = this process's CPU time per request (ragjudge and the openai client together, whatever the machine's
load).

    python benchmarks/llm_judge.py                # everything
    python benchmarks/llm_judge.py --n-llama 0    # scripted server only
    python benchmarks/llm_judge.py --skip-scripted --n-llama 50
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "judges"))

from ragjudge.judges.llm import LLMJudge  # noqa: E402
from ragjudge.records import Pair  # noqa: E402

PREMISE = ("The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is "
           "named after the engineer Gustave Eiffel, whose company designed and built it from 1887 to 1889. ")


def support_pairs(n: int, tag: str = "") -> list[Pair]:
    """``n`` distinct, realistically sized support pairs (three premises of about 40 words each)."""
    return [Pair.support(f"The Eiffel Tower was completed in {1800 + i % 200} ({tag}{i}).",
                         [PREMISE + f"Fact {i}.", PREMISE, "It is 330 metres tall."]) for i in range(n)]


@dataclass
class Row:
    """One measured run."""

    name: str
    n: int
    concurrency: int
    wall: float
    cpu: float
    requests: int
    tokens: int
    ok: int
    latency: float | None = None
    server: float | None = None

    def cells(self) -> list[str]:
        rate = self.requests / self.wall if self.wall else 0.0
        cells = [self.name, str(self.n), str(self.concurrency), f"{self.wall:.2f}", str(self.requests),
                 f"{rate:.1f}", f"{self.tokens / self.wall:.0f}", f"{self.ok}/{self.n}"]
        if self.latency:
            ideal = self.concurrency / self.latency
            server = self.server if self.server is not None else self.n * self.latency
            overhead = (self.wall - server / self.concurrency) / self.n
            speed_up = rate * self.latency
            cells += [f"{ideal:.0f}", f"{rate / ideal:.0%}", f"{speed_up:.1f}x", f"{server / self.n * 1e3:.1f}",
                      f"{overhead * 1e3:.2f}"]
        else:
            cells += ["", "", "", "", ""]
        return [*cells, f"{self.cpu / self.n * 1e3:.2f}"]


HEADER = ["run", "n", "conc", "wall s", "requests", "req/s", "tok/s", "ok", "ideal req/s", "of ideal",
          "speed-up", "server ms/req", "overhead ms/req", "cpu ms/req"]


def server_seconds(port: int | None) -> float | None:
    """The scripted server's ``busy_seconds`` so far (None without a scripted server)."""
    if port is None:
        return None
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as reply:
        return float(json.load(reply)["busy_seconds"])


def measure(name: str, judge: LLMJudge, pairs: list[Pair], latency: float | None = None,
            port: int | None = None) -> Row:
    """Judge ``pairs`` once, time it, and print the row at once (a long run shows its progress)."""
    before, busy = judge.stats.requests, server_seconds(port)
    wall, cpu = time.perf_counter(), time.process_time()
    verdicts = list(judge.judge(pairs))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    busy_after = server_seconds(port)
    server = None if busy is None or busy_after is None else busy_after - busy
    tokens = sum(v.usage.input_tokens + v.usage.output_tokens for v in verdicts if v.usage)
    ok = sum(1 for v in verdicts if v.status.value == "ok")
    requests = judge.stats.requests - before
    row = Row(name, len(pairs), judge.options.max_concurrency, wall, cpu, requests, tokens, ok, latency, server)
    print("| " + " | ".join(row.cells()) + " |", flush=True)
    return row


def scripted(args: argparse.Namespace, workdir: Path) -> list[Row]:
    """The scripted server in its own process, at each concurrency, then the warm-cache rerun."""
    server = subprocess.Popen([sys.executable, str(ROOT / "tests" / "judges" / "fault_server.py"),
                               "--latency", str(args.latency)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        options: dict[str, Any] = {"model": "m", "base_url": f"http://127.0.0.1:{port}/v1", "logprobs": False}
        rows = []
        for concurrency in (1, 8, 32):
            n = args.n_serial if concurrency == 1 and args.n_serial else args.n
            cache = workdir / f"scripted-{concurrency}.sqlite"
            judge = LLMJudge(options, max_concurrency=concurrency, cache_path=str(cache))
            rows.append(measure("scripted", judge, support_pairs(n, f"c{concurrency}-"), args.latency, port))
        warm = LLMJudge(options, max_concurrency=32, cache_path=str(workdir / "scripted-32.sqlite"))
        rows.append(measure("scripted warm cache", warm, support_pairs(args.n, "c32-")))
        rows.append(bare_client(port, min(args.n, 200), args.latency))
        return rows
    finally:
        server.terminate()
        server.wait(10)


def bare_client(port: int, n: int, latency: float) -> Row:
    """The floor at concurrency 1: ``n`` requests of the same size over one keep-alive connection from a bare
    asyncio HTTP/1.1 loop (no openai, no httpx, no parsing beyond ``json.loads``), against the same server."""

    async def run() -> tuple[float, float, float | None]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)

        async def one(i: int) -> Any:
            content = PREMISE * 3 + f"Claim {i}."
            body = json.dumps({"model": "m", "max_tokens": 64,
                               "messages": [{"role": "user", "content": content}]}).encode()
            writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            return json.loads(await reader.readexactly(length))

        await one(-1)
        busy = server_seconds(port)  # after the warm-up request (a blocking read: nothing else is running)
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(n):
            await one(i)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        after = server_seconds(port)
        writer.close()
        return wall, cpu, None if busy is None or after is None else after - busy

    wall, cpu, server = asyncio.run(run())
    row = Row("bare asyncio client (the floor)", n, 1, wall, cpu, n, 0, n, latency, server)
    print("| " + " | ".join(row.cells()) + " |", flush=True)
    return row


def llama(args: argparse.Namespace, workdir: Path) -> list[Row]:
    """The real llama.cpp server: cold, then from the warm cache."""
    from llama_server import start_llama, stop_llama  # type: ignore[import-not-found]

    server, proc = start_llama(workdir)
    try:
        options: dict[str, Any] = {"model": server.model, "base_url": server.base_url, "logprobs": False,
                                   "system_role": "user",  # the gemma chat format drops system messages
                                   "max_tokens": 64, "timeout": 300, "max_concurrency": 2,
                                   "cache_path": str(workdir / "llama.sqlite")}
        pairs = support_pairs(args.n_llama)
        return [measure("llama.cpp cold", LLMJudge(options), pairs),
                measure("llama.cpp warm cache", LLMJudge(options), pairs)]
    finally:
        stop_llama(proc)


def main() -> None:
    """Run the benchmark and print a markdown table."""
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--n-serial", type=int, help="judgements at concurrency 1 (default: --n)")
    parser.add_argument("--n-llama", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--skip-scripted", action="store_true")
    args = parser.parse_args()
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER), flush=True)
    with tempfile.TemporaryDirectory(prefix="ragjudge-bench-") as tmp:
        if not args.skip_scripted:
            scripted(args, Path(tmp))
        if args.n_llama:
            llama(args, Path(tmp))


if __name__ == "__main__":
    main()
