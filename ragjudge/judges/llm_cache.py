"""The on-disk answer cache of the ``llm`` judge: one sqlite file, safe for several processes at once.

A key is a SHA-256 over everything that can change an answer: the endpoint (host, port, path), the model, the
prompt templates with their versions and hashes, the verdict-relevant options, the task and the exact input
texts. The API key is never part of it, nor is anything else secret; values are the parsed answers only (no
prompts, no headers).

The file uses write-ahead logging, so readers never block the writer, and a busy timeout, so concurrent
writers wait their turn instead of failing; opening retries the switch to WAL for the same time, because there
sqlite can refuse at once instead of waiting. Every answer is committed as soon as it arrives: a run killed
halfway keeps all it had finished, and the rerun sends only the rest.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["AnswerCache", "CacheKeyer"]

_CHUNK = 500  # stays under sqlite's limit on bound parameters in one statement
_WAIT_SECONDS = 60.0  # how long an opener or a writer waits for another process's lock


class CacheKeyer:
    """Hashes inputs into cache keys under a fixed context (endpoint, model, prompts, options)."""

    def __init__(self, context: Mapping[str, Any]) -> None:
        self._prefix = json.dumps(context, sort_keys=True, separators=(",", ":"))

    def key(self, kind: str, inputs: Any) -> str:
        """The key of ``inputs`` (JSON-able) for job ``kind`` (``support``, ``relevance``, ``claims``)."""
        body = json.dumps([kind, inputs], ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(f"{self._prefix}\x00{body}".encode()).hexdigest()


class AnswerCache:
    """A key -> JSON value store in one sqlite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: each statement commits on its own, which is what makes a kill lose nothing.
        # timeout is sqlite's busy timeout (sqlite3_busy_timeout), so no PRAGMA busy_timeout is needed.
        self._db = sqlite3.connect(self.path, timeout=_WAIT_SECONDS, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()  # one connection, used from whichever thread runs the event loop
        self._setup()

    def _setup(self) -> None:
        """Switch the file to WAL and create the table, retrying while another process holds the lock.

        The busy timeout does not cover every wait here: when two processes open a new file at once, the one
        that holds a read lock while the other waits to write gets SQLITE_BUSY at once (sqlite's deadlock
        rule skips the busy handler), so the switch to WAL is retried until ``_WAIT_SECONDS`` have passed.
        """
        deadline = time.monotonic() + _WAIT_SECONDS
        pause = 0.005
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                # NORMAL under WAL survives a killed process (not a power cut) and saves an fsync per answer.
                self._db.execute("PRAGMA synchronous = NORMAL")
                self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, value TEXT NOT NULL,"
                                 " created REAL NOT NULL) WITHOUT ROWID")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError(
                        f"answer cache {self.path}: still locked by another process after {_WAIT_SECONDS:.0f} s"
                    ) from exc
                time.sleep(pause * (1 + random.random()))  # jittered, so racing openers do not retry in step
                pause = min(pause * 2, 0.2)

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The cached values of those ``keys`` that have one."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with self._lock:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start:start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, value FROM answers WHERE key IN ({marks})", chunk)
                found.update((key, json.loads(value)) for key, value in rows)
        return found

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` (JSON-able) under ``key``, committed at once."""
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO answers (key, value, created) VALUES (?, ?, ?)",
                             (key, text, time.time()))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        """Close the file (idempotent)."""
        with self._lock:
            self._db.close()
