"""Splitting answers and references into claims, batch-first so an LLM extractor can batch its calls.

Any object with ``split(texts) -> list[list[str]]`` is a :class:`ClaimSplitter`. The default,
:class:`SentenceSplitter`, is the reference article's ``extract_claims``: split after ``.``, ``!`` or ``?``
followed by white space and keep sentences longer than ``min_chars`` characters. Unlike the article it keeps a
short non-empty answer ("Paris.") as one claim instead of dropping it, so a terse answer is judged, not skipped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain
from typing import Protocol, runtime_checkable

import numpy as np

try:
    from ragjudge import _speedups as kernel
except ImportError:  # built without a C compiler: the pure-Python path gives the same claims
    kernel = None  # type: ignore[assignment]

__all__ = ["ClaimSplitter", "SentenceSplitter", "is_question", "split_flat"]

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
        claims, owner = self.split_flat(texts)
        out: list[list[str]] = [[] for _ in texts]
        for claim, j in zip(claims, owner.tolist()):
            out[j].append(claim)
        return out

    def split_flat(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """All claims of all texts in order, and the index of the text each came from.

        The compiled kernel does it in one pass over the batch; without it the work runs in C-level ``map``
        calls, with no Python frame per sentence. Both give the same claims.
        """
        if kernel is not None and isinstance(texts, list):
            claims, owners = kernel.split_sentences(texts, self.min_chars, self.keep_short_answer)
            return claims, np.frombuffer(owners, dtype=np.int64).copy()
        return self._split_flat(texts)

    def _split_flat(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """:meth:`split_flat` in Python (``re.split`` + ``str.strip``)."""
        parts = list(map(_SENTENCE_END.split, texts))
        counts = np.fromiter(map(len, parts), np.int64, len(parts))
        sentences = list(map(str.strip, chain.from_iterable(parts)))
        owner = np.repeat(np.arange(len(texts)), counts)
        keep = np.fromiter(map(len, sentences), np.int64, len(sentences)) > self.min_chars
        if self.keep_short_answer:
            has_claim = np.bincount(owner[keep], minlength=len(texts)) > 0
            stripped = list(map(str.strip, texts))
            short = np.flatnonzero(~has_claim & np.fromiter(map(bool, stripped), bool, len(texts)))
            if len(short):  # a short non-empty text stands as its own single claim
                keep[np.searchsorted(owner, short)] = True
                first = np.searchsorted(owner, short).tolist()
                for j, i in zip(short.tolist(), first):
                    sentences[i] = stripped[j]
        index = np.flatnonzero(keep).tolist()
        return [sentences[i] for i in index], owner[keep]

    def __repr__(self) -> str:
        return f"SentenceSplitter(min_chars={self.min_chars}, keep_short_answer={self.keep_short_answer})"


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` ends with a question mark (before any closing quotes or brackets)."""
    return sentence.rstrip().rstrip("\"')]}\u201d\u2019\u00bb").endswith(("?", "\uff1f"))


def split_flat(splitter: ClaimSplitter, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Claims of all ``texts`` flattened, with the index of the text each came from (any splitter)."""
    fast = getattr(splitter, "split_flat", None)
    if fast is not None:
        claims, owner = fast(texts)
        return list(claims), np.asarray(owner, dtype=np.int64)
    nested = splitter.split(texts)
    counts = np.fromiter(map(len, nested), np.int64, len(nested))
    return list(chain.from_iterable(nested)), np.repeat(np.arange(len(nested)), counts)
