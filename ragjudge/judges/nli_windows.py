"""Cut long premises into sentence windows that fit the model together with the claim.

An NLI model sees ``[CLS] premise [SEP] claim [SEP]`` of at most ``max_length`` tokens. A premise longer than
what the claim leaves is split into sentences, and consecutive sentences are packed greedily into windows that
fit; consecutive windows share ``overlap`` sentences (the stride), so evidence that straddles a window border
is seen whole once. A single sentence longer than a window is cut into token chunks that overlap by a quarter.
Each window is scored on its own and the judge aggregates (max, as SummaC-ZS and MiniCheck do). With
``evidence_sentences`` set, each claim also gets one evidence window of the premise sentences most related to it
(:mod:`ragjudge.judges.nli_evidence`), for claims that need sentences no ordinary window holds together.

A claim that alone leaves less than ``min_premise_tokens`` for the premise is truncated to fit; the caller
counts those and warns once per batch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ragjudge.judges.nli_evidence import EvidenceIndex

__all__ = ["Windower", "split_sentences"]

# A sentence ends at . ! ? (maybe then closing quotes/brackets) before whitespace, or at a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"')\]])\s+|\s*\n\s*")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences with a light regular expression (no model, no language data)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


class Windower:
    """Token-aware sentence windowing with caches, for one tokenizer and ``max_length``."""

    def __init__(
        self,
        tokenizer: Any,
        max_length: int,
        *,
        window_sentences: int | None = None,
        overlap: int = 1,
        min_premise_tokens: int | None = None,
        evidence_sentences: int | None = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.window_sentences = window_sentences
        self.overlap = overlap
        self.specials = _special_count(tokenizer)
        self.min_premise = min_premise_tokens or max(8, max_length // 4)
        self.evidence_sentences = evidence_sentences
        self._offsets: dict[str, list[tuple[int, int]]] = {}
        self._windows: dict[tuple[str, int], list[str]] = {}
        self._evidence: dict[tuple[str, int], EvidenceIndex] = {}

    def prepare(self, texts: Iterable[str]) -> None:
        """Tokenise every not-yet-seen text in one batched call (the fast tokenizer runs it in Rust)."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._offsets))
        if todo:
            # verbose=False: a premise longer than the model is expected here (it is about to be windowed).
            enc = self.tokenizer(todo, add_special_tokens=False, return_offsets_mapping=True, verbose=False)
            for text, offsets in zip(todo, enc["offset_mapping"], strict=True):
                self._offsets[text] = [(int(a), int(b)) for a, b in offsets]

    def tokens(self, text: str) -> int:
        """Number of tokens of ``text`` without special tokens."""
        self.prepare((text,))
        return len(self._offsets[text])

    def claim(self, text: str) -> tuple[str, int, bool]:
        """The claim cut to leave room for a premise: (text, its token count, whether it was truncated)."""
        self.prepare((text,))
        offsets = self._offsets[text]
        budget = self.max_length - self.specials - self.min_premise
        if len(offsets) <= budget:
            return text, len(offsets), False
        return text[: offsets[budget - 1][1]], budget, True

    def budget(self, claim_tokens: int) -> int:
        """Premise tokens that fit beside a claim of ``claim_tokens`` tokens."""
        return self.max_length - self.specials - claim_tokens

    def windows(self, premise: str, claim_tokens: int) -> list[str]:
        """Windows of ``premise`` that fit beside a claim of ``claim_tokens`` tokens (none if blank)."""
        budget = self.budget(claim_tokens)
        key = (premise, budget)
        if key not in self._windows:
            self._windows[key] = self._build(premise, budget)
        return self._windows[key]

    def claim_windows(self, premise: str, claim: str, claim_tokens: int) -> list[str]:
        """:meth:`windows`, plus the claim's evidence window when ``evidence_sentences`` asks for one."""
        windows = self.windows(premise, claim_tokens)
        if not self.evidence_sentences or len(windows) < 2:
            return windows  # off, or the whole premise is one window already
        budget = self.budget(claim_tokens)
        key = (premise, budget)
        if key not in self._evidence:
            self._evidence[key] = EvidenceIndex(self._pieces(premise, budget))
        evidence = self._evidence[key].select(claim, budget, self.evidence_sentences)
        return windows if evidence is None or evidence in windows else [*windows, evidence]

    def _build(self, premise: str, budget: int) -> list[str]:
        if not premise.strip():
            return []
        if self.tokens(premise) <= budget and self.window_sentences is None:
            return [premise.strip()]
        return _pack(self._pieces(premise, budget), budget, self.window_sentences, self.overlap)

    def _pieces(self, premise: str, budget: int) -> list[tuple[str, int]]:
        """The premise's sentences with their token counts, over-long ones cut into chunks that fit."""
        sentences = split_sentences(premise)
        self.prepare(sentences)
        pieces: list[tuple[str, int]] = []
        for sentence in sentences:
            pieces.extend(self._chunks(sentence, budget))
        return pieces

    def _chunks(self, sentence: str, budget: int) -> list[tuple[str, int]]:
        """The sentence itself, or overlapping token chunks of it when it is longer than a window."""
        offsets = self._offsets[sentence]
        if len(offsets) <= budget:
            return [(sentence, len(offsets))]
        step = max(1, budget * 3 // 4)
        chunks = []
        for start in range(0, len(offsets), step):
            part = offsets[start : start + budget]
            chunks.append((sentence[part[0][0] : part[-1][1]], len(part)))
            if start + budget >= len(offsets):
                break
        return chunks


def _pack(pieces: list[tuple[str, int]], budget: int, most: int | None, overlap: int) -> list[str]:
    """Greedy windows of consecutive pieces within ``budget`` tokens, sharing ``overlap`` pieces."""
    windows = []
    start = 0
    while start < len(pieces):
        end, used = start, 0
        while end < len(pieces) and used + pieces[end][1] <= budget and (most is None or end - start < most):
            used += pieces[end][1]
            end += 1
        end = max(end, start + 1)  # a piece never exceeds the budget, but never loop forever
        windows.append(" ".join(text for text, _ in pieces[start:end]))
        if end >= len(pieces):
            break
        start = max(start + 1, end - overlap)
    return windows


def _special_count(tokenizer: Any) -> int:
    """Special tokens the tokenizer adds around a (premise, claim) pair ([CLS] a [SEP] b [SEP] = 3)."""
    try:
        return int(tokenizer.num_special_tokens_to_add(pair=True))
    except (AttributeError, NotImplementedError, TypeError):
        return 4  # the most any common scheme adds (<s> a </s></s> b </s>)
