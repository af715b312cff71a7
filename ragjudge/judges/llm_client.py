"""One chat-completions request through the ``openai`` async client, and what its failures mean.

The client is built with ``max_retries=0``: ragjudge retries itself so that every attempt is counted, budget
checks happen before each one, and the format fallback can step in between. :func:`send` returns a
:class:`~ragjudge.judges.llm_parse.Reply` or raises :class:`TransportError`, which says whether a retry can
help and how long the server asked us to wait.
"""

from __future__ import annotations

import email.utils
import json
import random
import time
from dataclasses import dataclass
from typing import Any

from ragjudge.judges.llm_parse import Reply, TokenLogprob
from ragjudge.judges.llm_slots import SlotRefused

__all__ = ["TransportError", "backoff_delay", "http_library", "parse_retry_after", "send"]

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
_JSON = {"Content-Type": "application/json"}


@dataclass
class TransportError(Exception):
    """A request that returned no usable completion.

    ``kind`` is one of ``rate_limit``, ``server``, ``timeout``, ``connection``, ``bad_response``, ``client``.
    """

    kind: str
    message: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None

    def __str__(self) -> str:
        return self.message


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait per ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date); None if absent."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_tz(value)
        return None if when is None else max(0.0, email.utils.mktime_tz(when) - time.time())


def backoff_delay(
    retry: int, base: float, cap: float, retry_after: float | None, rng: random.Random
) -> float:
    """Delay before retry number ``retry`` (1-based).

    The server's ``Retry-After`` wins when given (capped at ``cap``), with up to 10% added so that many
    clients told the same time do not return at once; otherwise exponential backoff with equal jitter.
    """
    if retry_after is not None:
        wait = min(retry_after, cap)
        return wait + rng.uniform(0.0, 0.1 * wait)
    ceiling = min(cap, base * 2 ** (retry - 1))
    return rng.uniform(ceiling / 2, ceiling)


def _short(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _status_error(error: Any) -> TransportError:
    status = int(error.status_code)
    response = getattr(error, "response", None)
    retry_after = parse_retry_after(getattr(response, "headers", None))
    body = _short(getattr(response, "text", "") or str(error))
    kind = "rate_limit" if status == 429 else "server" if status >= 500 else "client"
    retryable = status >= 500 or status in _RETRYABLE_STATUS
    return TransportError(kind, f"HTTP {status}: {body}", retryable, status, retry_after)


def classify(error: Exception, openai: Any) -> TransportError:
    """What an exception from the openai client means for retrying."""
    if isinstance(error, openai.APITimeoutError):
        return TransportError("timeout", "request timed out", True)
    if isinstance(error, openai.APIConnectionError):
        return TransportError("connection", f"connection error: {_short(str(error))}", True)
    if isinstance(error, openai.APIStatusError):
        return _status_error(error)
    if isinstance(error, (openai.APIResponseValidationError, ValueError)):
        return TransportError("bad_response", f"malformed response: {_short(str(error))}", True)
    return TransportError("client", f"{type(error).__name__}: {_short(str(error))}", False)


def _alternatives(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return list(entry.get("top_logprobs") or ())


def _logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return tuple(
        TokenLogprob(str(entry["token"]), float(entry["logprob"]),
                     tuple((str(alt["token"]), float(alt["logprob"])) for alt in _alternatives(entry)))
        for entry in content
    )


def to_reply(data: Any) -> Reply:
    """The parts of a chat-completion JSON body ragjudge uses; anything else is a malformed response."""
    try:
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        return Reply(
            content=(choice.get("message") or {}).get("content") or "",
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=choice.get("finish_reason"),
            logprobs=_logprobs(choice),
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as error:
        message = f"malformed response: {type(error).__name__}: {error}"
        raise TransportError("bad_response", message, True) from None


def http_library() -> Any:
    """The HTTP library under the openai client (httpx2 in openai 3, httpx before)."""
    try:
        import httpx2
    except ImportError:
        import httpx as httpx2  # type: ignore[no-redef]
    return httpx2


def response_class() -> Any:
    """The HTTP response class of the openai client's transport."""
    return http_library().Response


async def send(client: Any, request: dict[str, Any], timeout: float, openai: Any) -> Reply:
    """Send one request; a :class:`Reply`, or :class:`TransportError` saying what went wrong.

    The body goes through the client's low-level ``post`` and the reply is read as plain JSON: the typed
    ``chat.completions.create`` path spends several milliseconds of CPU per request transforming parameters
    and building response models, which dominated ragjudge's own overhead at high concurrency. The body goes
    as bytes serialised once here (a dict body is deep-copied and re-encoded by the client on every attempt).
    Authentication, status errors and timeouts are still the client's.
    """
    try:
        content = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode()
        response = await client.post("/chat/completions", content=content, cast_to=response_class(),
                                     options={"timeout": timeout, "headers": _JSON})
        data = json.loads(response.content)
    except SlotRefused:
        raise  # not a failure: the request was never sent (see llm_slots)
    except Exception as error:  # every failure is classified; none escapes unlabelled
        raise classify(error, openai) from None
    return to_reply(data)
