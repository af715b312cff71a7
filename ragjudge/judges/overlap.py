"""The ``overlap`` judge: the reference article's word-overlap entailment check, batched.

``support``: the score is the largest fraction of the claim's words found in any one premise; the claim is
``supported`` when that fraction exceeds ``threshold`` (0.7, as in the article's ``check_entailment_simple``).
``relevance``: the score is the fraction of the query's words found in the text; ``relevant`` when it exceeds
``relevance_threshold`` (0.0: any shared word, as in the article's keyword context precision).

With ``lowercase=True, punctuation="keep", stop_words="none"`` the support verdicts are exactly the article's.
The default strips punctuation, so "Paris." matches "Paris" (on BEGIN this lifts AUC from 0.80 to 0.86).
A claim or query with no words left after normalisation gets a ``skipped`` verdict saying so.

Speed: the batch is columnar. Each distinct text is split once, and the set intersections of every (claim,
premise) row run inside C-level ``map`` calls, so the Python interpreter does no work per pair.
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

__all__ = ["OverlapJudge"]


class OverlapJudge(Judge):
    """Word-overlap judge of support and relevance (no model, no network)."""

    name = "overlap"
    version = "1"
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
        norm = Normaliser(lowercase=opts.lowercase, punctuation=opts.punctuation, stop_words=opts.stop_words)
        support = np.fromiter(map(Task.SUPPORT.__eq__, batch.tasks), bool, len(batch))
        # Support: the claim (text) against each premise. Relevance: the query against the text.
        if support.all():
            targets, sources = batch.texts, batch.premises
        else:
            targets = [t if s else q for t, q, s in zip(batch.texts, batch.queries, support.tolist())]
            sources = [p if s else (t,) for p, t, s in zip(batch.premises, batch.texts, support.tolist())]
        owner = np.repeat(np.arange(len(batch)), np.fromiter(map(len, sources), np.int64, len(sources)))
        target_sets = norm.many(targets)
        source_sets = norm.many(list(chain.from_iterable(sources)))
        repeated = list(map(target_sets.__getitem__, owner.tolist()))
        shared = np.fromiter(map(len, map(frozenset.intersection, repeated, source_sets)), np.float64,
                             len(source_sets))
        best = np.zeros(len(batch))
        np.maximum.at(best, owner, shared)
        size = np.fromiter(map(len, target_sets), np.float64, len(batch))
        score = np.divide(best, size, out=np.zeros_like(best), where=size > 0)
        return _verdicts(score, size == 0, support, opts.threshold, opts.relevance_threshold)


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
