"""Splitting answers and references into claims, batch-first so an LLM extractor can batch its calls.

Any object with ``split(texts) -> list[list[str]]`` is a :class:`ClaimSplitter`. The default,
:class:`SentenceSplitter`, is the reference article's ``extract_claims``: split after ``.``, ``!`` or ``?``
followed by white space and keep sentences longer than ``min_chars`` characters. Unlike the article it keeps a
short non-empty answer ("Paris.") as one claim instead of dropping it, so a terse answer is judged, not skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["ClaimSplitter", "SentenceSplitter"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@runtime_checkable
class ClaimSplitter(Protocol):
    """Turns each text into its list of claims (an empty text gives no claims)."""

    def split(self, texts: Sequence[str]) -> list[list[str]]:
        """Claims of each text, in order."""
        ...


class SentenceSplitter:
    """Sentence segmentation by punctuation, as in the reference article."""

    def __init__(self, min_chars: int = 10, keep_short_answer: bool = True) -> None:
        self.min_chars = min_chars
        self.keep_short_answer = keep_short_answer

    def split(self, texts: Sequence[str]) -> list[list[str]]:
        """Sentences longer than ``min_chars`` of each text; a short non-empty text is one claim."""
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[str]:
        sentences = [s.strip() for s in _SENTENCE_END.split(text)]
        claims = [s for s in sentences if len(s) > self.min_chars]
        if not claims and self.keep_short_answer and text.strip():
            return [text.strip()]
        return claims

    def __repr__(self) -> str:
        return f"SentenceSplitter(min_chars={self.min_chars}, keep_short_answer={self.keep_short_answer})"
