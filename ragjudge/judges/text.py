"""Word-level text normalisation shared by the heuristic judges."""

from __future__ import annotations

import string
from collections.abc import Iterable
from typing import Literal

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

__all__ = ["Normaliser", "StopWords"]

StopWords = Literal["none", "english"]

# Punctuation becomes a space, so "Paris." and "Paris" are one word and "well-known" is two.
_PUNCT_TO_SPACE = str.maketrans({c: " " for c in string.punctuation})


class Normaliser:
    """Turns texts into word sets: optional lowercasing, punctuation stripping and stop-word removal.

    Word sets are memoised per instance (a judge makes one per batch), so a context shared by many claims is
    split once.
    """

    def __init__(self, *, lowercase: bool, punctuation: Literal["keep", "strip"], stop_words: StopWords) -> None:
        self._lowercase = lowercase
        self._strip = punctuation == "strip"
        self._stop = ENGLISH_STOP_WORDS if stop_words == "english" else frozenset()
        self._memo: dict[str, frozenset[str]] = {}

    def words(self, text: str) -> frozenset[str]:
        """The set of words of ``text`` after normalisation."""
        found = self._memo.get(text)
        if found is None:
            found = self._memo[text] = self._split(text)
        return found

    def many(self, texts: Iterable[str]) -> list[frozenset[str]]:
        """:meth:`words` of each text, in order."""
        return list(map(self.words, texts))

    def _split(self, text: str) -> frozenset[str]:
        if self._lowercase:
            text = text.lower()
        if self._strip:
            text = text.translate(_PUNCT_TO_SPACE)
        words = frozenset(text.split())
        return words - self._stop if self._stop else words
