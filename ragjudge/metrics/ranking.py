"""Retrieval measures as per-sample metrics of the evaluation pipeline (no judge involved).

A sample's ``retrieved_ids`` is its ranking (first is rank 1) and ``relevance`` / ``relevant_ids`` its judged
documents; values come from the trec_eval-exact engine in :mod:`ragjudge.retrieval`. A sample without a
ranking or without relevance labels is ``skipped`` with that reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragjudge.batches import PairBatch
from ragjudge.metrics.base import BatchPlan, Metric, Outcome
from ragjudge.records import Sample

__all__ = ["RetrievalMetric"]


class RetrievalMetric(Metric):
    """One retrieval measure (``nDCG@10``, ``P@5``, ``RR``, ``AP``, trec_eval names too) over samples."""

    def __init__(self, measure: str) -> None:
        super().__init__(None)
        self.name = measure

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """Every sample's value, computed for the whole batch at once; nothing to judge."""
        from ragjudge.retrieval import evaluate_samples

        values = evaluate_samples(samples, [self.name])[self.name]
        decided: list[Outcome | None] = []
        for sample, value in zip(samples, values):
            if value is not None:
                decided.append(Outcome(float(value)))
            elif sample.retrieved_ids is None:
                decided.append(Outcome.skip("no retrieved_ids"))
            else:
                decided.append(Outcome.skip("no relevance labels (relevant_ids or relevance)"))
        return BatchPlan(PairBatch([], [], [], []), np.zeros(0, dtype=np.int64), decided)
