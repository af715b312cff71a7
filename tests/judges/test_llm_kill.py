"""A run killed halfway (SIGKILL) and rerun with the cache re-sends only what had not completed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from fault_server import FaultServer
from test_llm_faults import claim_of, make_judge, pairs

from ragjudge.records import Status

N = 500
CONCURRENCY = 4

_RUN = f"""
import sys
sys.path.insert(0, sys.argv[3])
from test_llm_faults import pairs
from ragjudge.judges.llm import LLMJudge
judge = LLMJudge(model="m", base_url=sys.argv[1], cache_path=sys.argv[2], logprobs=False,
                 max_concurrency={CONCURRENCY})
judge.judge(pairs({N}))
print("finished")
"""


def _cached(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])


def test_sigkill_halfway_then_rerun_sends_only_unfinished(fault_server: FaultServer, tmp_path: Path) -> None:
    fault_server.latency = 0.02
    cache = tmp_path / "c.sqlite"
    here = str(Path(__file__).parent)
    proc = subprocess.Popen([sys.executable, "-c", _RUN, fault_server.base_url, str(cache), here],
                            stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while fault_server.count < N // 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(10)
    assert proc.returncode == -signal.SIGKILL and N // 2 <= fault_server.count < N
    sent_first, finished = fault_server.count, _cached(cache)
    # Everything answered was committed, except what was in flight when the kill landed: at most CONCURRENCY
    # requests at the server, and as many replies already in whose slot went to the next request first (each
    # is stored right after that request has left).
    assert sent_first - 2 * CONCURRENCY <= finished <= sent_first

    judge = make_judge(fault_server, tmp_path, cache_path=str(cache), max_concurrency=CONCURRENCY)
    verdicts = judge.judge(pairs(N))
    resent = [claim_of(r.body) for r in fault_server.records[sent_first:]]
    assert len(resent) == N - finished == len(set(resent))  # only the unfinished, each once
    first_run = {claim_of(r.body) for r in fault_server.records[:sent_first]}
    assert len(first_run & set(resent)) <= sent_first - finished  # re-sent only if it was cut off in flight
    assert all(v.status is Status.OK for v in verdicts)
    assert sum(1 for v in verdicts if v.usage and v.usage.cached) == finished
