"""Options of the ``llm`` judge and of the LLM claim splitter (one model, so one set of options)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field

from ragjudge.judges.base import JudgeOptions

__all__ = ["DEFAULT_BASE_URL", "LLMOptions", "ResponseFormat", "VOLATILE_OPTIONS", "default_cache_path"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"

ResponseFormat = Literal["auto", "json_schema", "json_object", "text"]

# Options that cannot change an answer: left out of the fingerprint and the cache key, so changing the
# concurrency, the retry policy, the prices, the budget or where the key is read from keeps the cache valid.
VOLATILE_OPTIONS = frozenset({
    "api_key_env", "timeout", "max_concurrency", "max_retries", "backoff_base", "backoff_max",
    "price_input_per_1k", "price_output_per_1k", "max_cost", "max_tokens_total", "cache", "cache_path",
})


class LLMOptions(JudgeOptions):
    """How to reach the model, what to ask it, how hard to try, and what to spend.

    ``api_key_env`` names the environment variable holding the key (the key itself is never an option, so it
    never reaches a config file, a fingerprint or the cache). A server on localhost needs none.
    ``response_format`` ``auto`` tries a JSON schema, then JSON mode (with the schema, which llama.cpp
    honours), then plain JSON mode, then plain text with tolerant parsing, keeping the first the server
    accepts. ``logprobs`` asks for token log-probabilities so the score is P(yes) rather than 1 / 0; servers
    that refuse them are detected and the judge carries on without. ``system_role`` ``user`` is for chat
    templates that silently drop the system message (llama.cpp's ``gemma`` format): without it the model would
    never read that the fenced blocks are data, not instructions.
    """

    model: str = "gpt-4o-mini"
    base_url: str | None = Field(None, description="default: $OPENAI_BASE_URL, else OpenAI")
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    seed: int | None = 0
    max_tokens: int = Field(256, ge=8)
    logprobs: bool = True
    response_format: ResponseFormat = "auto"
    system_role: Literal["system", "user"] = Field(
        "system", description="'user' puts the system prompt at the top of the user message, for models "
        "whose chat template drops system messages (Gemma in llama.cpp does)")
    timeout: float = Field(60.0, gt=0.0, description="seconds per request")
    max_concurrency: int = Field(8, ge=1)
    max_retries: int = Field(4, ge=0, description="retries per request after the first attempt")
    backoff_base: float = Field(0.5, ge=0.0, description="first retry delay in seconds, doubled each retry")
    backoff_max: float = Field(30.0, ge=0.0, description="longest delay, also the cap on Retry-After")
    price_input_per_1k: float = Field(0.0, ge=0.0)
    price_output_per_1k: float = Field(0.0, ge=0.0)
    max_cost: float | None = Field(None, ge=0.0, description="stop sending requests once this is spent")
    max_tokens_total: int | None = Field(None, ge=0, description="stop once this many tokens are used")
    cache: bool = True
    cache_path: str | None = Field(None, description="sqlite file; default $RAGJUDGE_CACHE_DIR/llm.sqlite")

    def resolved_base_url(self) -> str:
        """The endpoint actually used: the option, else ``$OPENAI_BASE_URL``, else OpenAI's."""
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    def endpoint_id(self) -> str:
        """Host, port and path of the endpoint: what identifies the server in a cache key.

        User info and query string are dropped because that is where credentials hide in URLs.
        """
        parts = urlsplit(self.resolved_base_url())
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return f"{host}{port}{parts.path.rstrip('/')}"

    def is_local(self) -> bool:
        """Whether the endpoint is on this machine (such servers usually need no key)."""
        return (urlsplit(self.resolved_base_url()).hostname or "") in {"localhost", "127.0.0.1", "::1"}

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """What ``input_tokens`` in and ``output_tokens`` out cost at the configured prices."""
        return input_tokens / 1000 * self.price_input_per_1k + output_tokens / 1000 * self.price_output_per_1k


def default_cache_path() -> Path:
    """``$RAGJUDGE_CACHE_DIR/llm.sqlite``, else ``ragjudge/llm.sqlite`` in ``$XDG_CACHE_HOME`` or ~/.cache."""
    root = os.environ.get("RAGJUDGE_CACHE_DIR")
    if root:
        return Path(root) / "llm.sqlite"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "ragjudge" / "llm.sqlite"
