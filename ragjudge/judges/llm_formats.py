"""Which structured-output features the server honours, found out while running rather than assumed.

Servers that call themselves OpenAI-compatible differ: llama.cpp answers HTTP 500 to
``{"type": "json_schema"}`` but constrains ``{"type": "json_object", "schema": ...}`` to the schema; others
take only plain JSON mode, or reject ``logprobs``. The :class:`FormatLadder` starts at the strongest mode and
steps down when a mode is rejected, so the run carries on instead of failing every item.

A 4xx rejection (other than 429) steps down at once: it is not transient. A 5xx steps down only after two in a
mode that has never succeeded, so one transient server error does not cost the schema. A mode that has
succeeded once is kept for the rest of the run.
"""

from __future__ import annotations

import logging
from typing import Any

from ragjudge.judges.llm_client import TransportError
from ragjudge.judges.llm_options import ResponseFormat

__all__ = ["MODES", "FormatLadder", "response_format"]

log = logging.getLogger("ragjudge.judges.llm")

# Strongest first. "json_object_schema" is JSON mode plus the schema (llama.cpp's grammar-constrained mode).
MODES = ("json_schema", "json_object_schema", "json_object", "text")
_SERVER_ERRORS_TO_STEP_DOWN = 2


def response_format(mode: str, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The ``response_format`` request field for ``mode`` (None for plain text)."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class FormatLadder:
    """The current output mode and logprobs setting, stepped down on rejection."""

    def __init__(self, choice: ResponseFormat, logprobs: bool) -> None:
        # An explicit choice is honoured exactly: a server that rejects it fails the items, loudly.
        self._modes: tuple[str, ...] = MODES if choice == "auto" else (choice,)
        self._index = 0
        self._confirmed = False
        self._server_errors = 0
        self.logprobs = logprobs
        self._logprobs_confirmed = not logprobs
        self.downgrades: list[str] = []

    @property
    def mode(self) -> str:
        """The mode the next request uses."""
        return self._modes[self._index]

    @property
    def settled(self) -> bool:
        """Whether the server has accepted the current mode (and logprobs, if asked): no more probing."""
        return self._confirmed and self._logprobs_confirmed

    def succeeded(self, mode: str, logprobs: bool) -> None:
        """A request in ``mode`` came back: keep that mode (and logprobs, if asked) for good."""
        if mode == self.mode:
            self._confirmed = True
        if logprobs and self.logprobs:
            self._logprobs_confirmed = True

    def rejected(self, mode: str, logprobs: bool, error: TransportError) -> bool:
        """Whether ``error`` means the server refuses ``mode`` or logprobs; if so step down and say True."""
        if error.status is None or error.status in (408, 409, 425, 429):
            return False
        if mode != self.mode or (logprobs and not self.logprobs):
            return True  # another request already stepped down: retry at the current setting at once
        refused_logprobs = error.status < 500 and "logprob" in error.message.lower()
        if refused_logprobs and logprobs and not self._logprobs_confirmed:
            return self._drop_logprobs(error)
        if self._confirmed or self._index + 1 >= len(self._modes):
            return False
        if error.status >= 500:
            self._server_errors += 1
            if self._server_errors < _SERVER_ERRORS_TO_STEP_DOWN:
                return False
        return self._step_down(error)

    def _step_down(self, error: TransportError) -> bool:
        old = self.mode
        self._index += 1
        self._server_errors = 0
        self.downgrades.append(f"{old}->{self.mode}")
        log.info("server rejected response format %s (%s); using %s", old, error.message[:80], self.mode)
        return True

    def _drop_logprobs(self, error: TransportError) -> bool:
        self.logprobs = False
        self.downgrades.append("logprobs->none")
        log.info("server rejected logprobs (%s); scores will be 1.0 / 0.0", error.message[:80])
        return True
