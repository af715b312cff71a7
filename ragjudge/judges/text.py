"""Word-level text normalisation shared by the heuristic judges."""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import methodcaller
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
        """The set of words of ``text`` after normalisation (memoised)."""
        return self.many([text])[0]

    def fresh(self, text: str) -> frozenset[str]:
        """The set of words of ``text``, not memoised: for texts seen once, whose sets are dropped right
        after use (holding thousands of sets alive costs more to allocate than building them)."""
        if self._lowercase:
            text = text.lower()
        if self._strip:
            text = text.translate(_PUNCT_TO_SPACE)
        words = frozenset(text.split())
        return words - self._stop if self._stop else words

    def many(self, texts: Sequence[str]) -> list[frozenset[str]]:
        """:meth:`words` of each text, in order; each distinct text is processed once, in C-level maps."""
        memo = self._memo
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        if new:
            stage: Iterable[str] = new
            if self._lowercase:
                stage = map(str.lower, stage)
            if self._strip:
                stage = map(methodcaller("translate", _PUNCT_TO_SPACE), stage)
            sets: Iterable[frozenset[str]] = map(frozenset, map(str.split, stage))
            if self._stop:
                sets = map(frozenset.difference, sets, repeat(self._stop))
            memo.update(zip(new, sets))
        return list(map(memo.__getitem__, texts))
