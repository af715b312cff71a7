"""Reading the API key, and keeping it (and anything that looks like a key) out of what ragjudge writes.

The key is read from the environment variable the options name, handed to the client, and otherwise never
stored. Every string ragjudge derives from a server's reply (error messages, rationales, repair prompts) goes
through a :class:`Redactor` before it reaches a verdict, a log line or the cache: a server, or a model, may
echo the ``Authorization`` header or a key that appeared in the data.
"""

from __future__ import annotations

import os
import re

__all__ = ["LOCAL_PLACEHOLDER_KEY", "Redactor", "read_api_key"]

# The openai client insists on some key; a local server ignores it. Not a secret, so it is never redacted.
LOCAL_PLACEHOLDER_KEY = "sk-no-key-required"

_KEY_SHAPES = re.compile(
    r"(?i)(bearer\s+)[^\s\"',;]+"          # an Authorization header value
    r"|\bsk-(?!no-key-required)[A-Za-z0-9_\-]{8,}"  # OpenAI-style keys
    r"|(api[-_]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&]+"  # api_key=..., "api-key": "..."
)
REDACTED = "[redacted]"


def read_api_key(env_var: str) -> str | None:
    """The key in ``env_var``, or None when it is unset or blank."""
    value = os.environ.get(env_var, "").strip()
    return value or None


class Redactor:
    """Replaces the known secrets, and strings shaped like keys or bearer tokens, with ``[redacted]``."""

    def __init__(self, secrets: list[str | None]) -> None:
        # Longest first, so a secret that contains another is removed whole.
        real = {s for s in secrets if s and s != LOCAL_PLACEHOLDER_KEY}
        self._secrets = sorted(real, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` with every secret and key-shaped string replaced."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return _KEY_SHAPES.sub(_replace, text)


def _replace(match: re.Match[str]) -> str:
    prefix = match.group(1) or match.group(2) or ""
    return prefix + REDACTED
