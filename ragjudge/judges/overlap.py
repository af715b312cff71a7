"""The ``overlap`` judge: the reference article's word-overlap entailment check, batched.

``support``: the score is the largest fraction of the claim's words found in any one premise; the claim is
``supported`` when that fraction exceeds ``threshold`` (0.7, as in the article's ``check_entailment_simple``).
``relevance``: the score is the fraction of the query's words found in the text; ``relevant`` when it exceeds
``relevance_threshold`` (0.0: any shared word, as in the article's keyword context precision).

With ``lowercase=True, punctuation="keep", stop_words="none"`` the support verdicts are exactly the article's.
The default strips punctuation, so "Paris." matches "Paris" (on BEGIN this lifts AUC from 0.80 to 0.86).
A claim or query with no words left after normalisation gets a ``skipped`` verdict saying so.

Speed: the batch is columnar. With the compiled kernel (``ragjudge._speedups``, built at install when a C
compiler is present) the words are hashed in place, one table per distinct premise, with no Python object per
word. Without it, each distinct premise is split once and kept; a claim's word set is built, used and dropped
at once (holding thousands of sets alive costs more in allocation than building them), and the intersections
with a claim's premises run inside C-level ``map`` calls. Both paths give identical scores (a property test
compares them on arbitrary Unicode text).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Literal

import numpy as np
from pydantic import Field

from ragjudge.batches import PairBatch, VerdictBatch
from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.text import Normaliser, StopWords
from ragjudge.records import Pair, Task

try:
    from ragjudge import _speedups as kernel
except ImportError:  # built without a C compiler: the pure-Python path below gives the same scores
    kernel = None  # type: ignore[assignment]

__all__ = ["OverlapJudge"]


class OverlapJudge(Judge):
    """Word-overlap judge of support and relevance (no model, no network)."""

    name = "overlap"
    version = "1"
    pause_gc = True  # in-process, allocation-light, no cycles: see Judge
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    class Options(JudgeOptions):
        """Thresholds are exclusive: a score must exceed them."""

        threshold: float = Field(0.7, ge=0.0, le=1.0, description="support: claim-word fraction to exceed")
        relevance_threshold: float = Field(0.0, ge=0.0, le=1.0, description="relevance: query-word fraction")
        lowercase: bool = True
        punctuation: Literal["keep", "strip"] = "strip"
        stop_words: StopWords = "none"

    options: Options

    def judge_batch(self, pairs: Sequence[Pair]) -> VerdictBatch:
        """Score every pair with set intersections over word sets computed once per distinct text."""
        batch = PairBatch.of(pairs)
        opts = self.options
        support = np.fromiter(map(Task.SUPPORT.__eq__, batch.tasks), bool, len(batch))
        # Support: the claim (text) against each premise. Relevance: the query against the text.
        if support.all():
            targets, sources = batch.texts, batch.premises
        else:
            targets = [t if s else q for t, q, s in zip(batch.texts, batch.queries, support.tolist())]
            sources = [p if s else (t,) for p, t, s in zip(batch.premises, batch.texts, support.tolist())]
        if kernel is not None and opts.stop_words == "none":
            score = _kernel_fractions(targets, sources, opts.lowercase, opts.punctuation == "strip")
        else:
            norm = Normaliser(lowercase=opts.lowercase, punctuation=opts.punctuation, stop_words=opts.stop_words)
            score = _python_fractions(norm, targets, sources)
        empty = score < 0.0
        return _verdicts(np.where(empty, 0.0, score), empty, support, opts.threshold, opts.relevance_threshold)


def _kernel_fractions(targets: Sequence[str], sources: Sequence[tuple[str, ...]], lowercase: bool,
                      strip: bool) -> np.ndarray:
    """Per pair: the largest share of the target's words in one of its sources (-1: no words), in C."""
    index: dict[str, int] = dict.fromkeys(chain.from_iterable(sources), 0)
    premises = list(index)
    index.update(zip(premises, range(len(premises))))
    members = np.fromiter(map(index.__getitem__, chain.from_iterable(sources)), np.int64)
    offsets = np.zeros(len(sources) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, sources), np.int64, len(sources)), out=offsets[1:])
    out = np.empty(len(targets), dtype=np.float64)
    kernel.fractions(list(targets), premises, offsets, members, out, lowercase, strip)
    return out


def _python_fractions(norm: Normaliser, targets: Sequence[str], sources: Sequence[tuple[str, ...]]) -> np.ndarray:
    """The same fractions with Python sets (the path without the compiled kernel, and with stop words)."""
    memo = dict(zip(*_distinct_sets(norm, sources)))
    fresh = norm.fresh

    def fraction(target: str, group: tuple[str, ...]) -> float:
        words = fresh(target)
        if not words:
            return -1.0
        return max(map(len, map(words.intersection, map(memo.__getitem__, group))), default=0) / len(words)

    return np.fromiter(map(fraction, targets, sources), np.float64, len(targets))


def _distinct_sets(norm: Normaliser, groups: Sequence[tuple[str, ...]]) -> tuple[list[str], list[frozenset[str]]]:
    """Each distinct premise text once, with its word set (premises repeat across claims and samples)."""
    distinct = list(dict.fromkeys(chain.from_iterable(groups)))
    return distinct, norm.many(distinct)


_LABELS = np.array(["supported", "unsupported", "relevant", "irrelevant"], dtype=object)


def _verdicts(score: np.ndarray, empty: np.ndarray, support: np.ndarray, threshold: float,
              relevance_threshold: float) -> VerdictBatch:
    positive = score > np.where(support, threshold, relevance_threshold)
    labels = _LABELS[np.where(support, 0, 2) + np.where(positive, 0, 1)].tolist()
    reasons = {}
    for i in np.flatnonzero(empty).tolist():
        labels[i] = None
        reasons[i] = "the claim has no words" if support[i] else "the query has no words"
    return VerdictBatch(score, np.where(empty, 2, 0), labels, reasons)
