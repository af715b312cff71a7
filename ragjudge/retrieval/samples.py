"""Per-query measures over plain Python lists and over ragjudge samples: thin wrappers on the same engine.

A ranked list means rank order (the first id is rank 1; it gets score n, the next n - 1, ...). ``relevant``
is a collection of ids (each graded 1) or a mapping ``{id: grade}``; a document counts as relevant when its
grade is >= ``relevance_level`` (1, as trec_eval's default), and nDCG's ideal ranking uses every judged
grade, as trec_eval's does. A ranked list that names a document twice is refused (trec_eval refuses
duplicates too).

>>> ranking = ["doc_eu_carbon", "doc_canada_2019", "doc_canada_2023"]
>>> round(precision_at_k(ranking, {"doc_canada_2019", "doc_canada_2023"}, 3), 3)
0.667
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ragjudge.errors import DataError
from ragjudge.retrieval.align import align_mappings
from ragjudge.retrieval.engine import compute
from ragjudge.retrieval.measures import Measure, parse_measure
from ragjudge.retrieval.ranking import FloatArray, build_ranked

if TYPE_CHECKING:  # records import pydantic, which evaluating runs does not need
    from ragjudge.records import Sample

__all__ = [
    "average_precision", "evaluate_rankings", "evaluate_samples", "mean_average_precision",
    "mean_reciprocal_rank", "ndcg_at_k", "precision_at_k", "recall_at_k", "reciprocal_rank",
]

Relevant = Collection[str] | Mapping[str, float]


def evaluate_rankings(rankings: Sequence[Sequence[str]], relevant: Sequence[Relevant],
                      measures: Sequence[str | Measure], *, relevance_level: float = 1) -> list[FloatArray]:
    """Each measure's value for every (ranking, relevant) pair, in order: one vectorised evaluation."""
    if len(rankings) != len(relevant):
        raise ValueError(f"{len(rankings)} rankings but {len(relevant)} relevance sets")
    topics = [str(i) for i in range(len(rankings))]
    run = {t: _scores(r, t) for t, r in zip(topics, rankings, strict=True)}
    qrels = {t: _grades(g) for t, g in zip(topics, relevant, strict=True)}
    aligned = align_mappings(qrels, run, topics)
    a = aligned
    ranked = build_ranked(len(topics), a.topic, a.score, a.rel, a.docs, a.judged)
    parsed = [parse_measure(m) for m in measures]
    values = compute(ranked, parsed, relevance_level)
    return [values[m] for m in parsed]


def evaluate_samples(samples: Sequence[Sample], measures: Sequence[str | Measure], *,
                     relevance_level: float = 1) -> dict[str, list[float | None]]:
    """Per measure (keyed by the string given, or the measure's notation), one value per sample.

    None for a sample without ``retrieved_ids`` or without relevance labels (``relevance``/``relevant_ids``):
    the pipeline marks it skipped. An empty ranking is a ranking that found nothing: it scores 0. A ranking
    that names a document twice raises :class:`~ragjudge.errors.DataError` naming the sample."""
    keys = [m if isinstance(m, str) else str(m) for m in measures]
    usable = [i for i, s in enumerate(samples)
              if s.retrieved_ids is not None and s.graded_relevance() is not None]
    for i in usable:
        _check_unique(samples[i].retrieved_ids or [], samples[i].id if samples[i].id is not None else f"#{i}")
    rankings = [samples[i].retrieved_ids or [] for i in usable]
    grades = [samples[i].graded_relevance() or {} for i in usable]
    values = evaluate_rankings(rankings, grades, measures, relevance_level=relevance_level) if usable else []
    out: dict[str, list[float | None]] = {}
    for key, column in zip(keys, values or [np.zeros(0)] * len(keys), strict=True):
        per_sample: list[float | None] = [None] * len(samples)
        for i, value in zip(usable, column.tolist(), strict=True):
            per_sample[i] = value
        out[key] = per_sample
    return out


def precision_at_k(retrieved: Sequence[str], relevant: Relevant, k: int) -> float:
    """Relevant documents in the first k, divided by k (trec_eval's P_k: a short ranking is not excused)."""
    return _one(retrieved, relevant, Measure("P", cutoff=k))


def recall_at_k(retrieved: Sequence[str], relevant: Relevant, k: int) -> float:
    """Relevant documents in the first k, divided by all relevant documents (0 when there are none)."""
    return _one(retrieved, relevant, Measure("R", cutoff=k))


def reciprocal_rank(retrieved: Sequence[str], relevant: Relevant) -> float:
    """1 / rank of the first relevant document (0 when none is retrieved)."""
    return _one(retrieved, relevant, Measure("RR"))


def average_precision(retrieved: Sequence[str], relevant: Relevant) -> float:
    """Mean of the precision at each relevant document's rank, over all relevant documents (retrieved or not).
    """
    return _one(retrieved, relevant, Measure("AP"))


def ndcg_at_k(retrieved: Sequence[str], relevance_map: Relevant, k: int, gain: str = "linear") -> float:
    """nDCG over the first k: gain ``linear`` (the grade, trec_eval's) or ``exponential`` (2^grade - 1),
    discounted by log2(rank + 1), normalised by the ideal ranking of all judged documents."""
    return _one(retrieved, relevance_map, Measure("nDCG", cutoff=k, gain=gain))


def mean_reciprocal_rank(retrieved_list: Sequence[Sequence[str]], relevant_list: Sequence[Relevant]) -> float:
    """Mean of :func:`reciprocal_rank` over queries (0.0 for no queries)."""
    return _mean(evaluate_rankings(retrieved_list, relevant_list, [Measure("RR")])[0])


def mean_average_precision(retrieved_list: Sequence[Sequence[str]],
                           relevant_list: Sequence[Relevant]) -> float:
    """Mean of :func:`average_precision` over queries (0.0 for no queries)."""
    return _mean(evaluate_rankings(retrieved_list, relevant_list, [Measure("AP")])[0])


def _one(retrieved: Sequence[str], relevant: Relevant, measure: Measure) -> float:
    return float(evaluate_rankings([retrieved], [relevant], [measure])[0][0])


def _mean(values: FloatArray) -> float:
    return float(values.mean()) if len(values) else 0.0


def _scores(ranking: Sequence[str], where: str) -> dict[str, float]:
    if isinstance(ranking, str):
        raise TypeError("a ranking is a sequence of document ids, not one string")
    _check_unique(ranking, where)
    n = len(ranking)
    return {doc: float(n - i) for i, doc in enumerate(ranking)}


def _grades(relevant: Any) -> dict[str, float]:
    if isinstance(relevant, Mapping):
        return {doc: float(grade) for doc, grade in relevant.items()}
    if isinstance(relevant, str):
        raise TypeError("relevant documents are a collection of ids or a mapping, not one string")
    return dict.fromkeys(relevant, 1.0)


def _check_unique(ranking: Sequence[str], where: Any) -> None:
    seen: set[str] = set()
    for doc in ranking:
        if doc in seen:
            raise DataError(f"sample {where}: document {doc!r} is ranked twice "
                            "(trec_eval refuses duplicates)", field="retrieved_ids")
        seen.add(doc)
