"""A dependency-free progress bar on standard error, shown only on a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """Counts items done out of ``total``; redraws at most ten times a second; silent when disabled."""

    def __init__(self, total: int, label: str = "", *, enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.label = label
        self.done = 0
        self._start = time.monotonic()
        self._last = 0.0

    def advance(self, n: int = 1) -> None:
        """Mark ``n`` more items done."""
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last > 0.1 or self.done >= self.total):
            self._last = now
            self._draw(now)

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(frac * 30)
        rate = self.done / max(now - self._start, 1e-9)
        self.stream.write(f"\r{self.label} [{bar:<30}] {self.done}/{self.total} ({rate:,.0f}/s)")
        self.stream.flush()
