"""Metrics by name: the generation metrics (each takes a judge) and retrieval measures (no judge)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragjudge.judges.base import Judge
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.metrics.generation import (
    AnswerCorrectness,
    AnswerRelevance,
    ContextPrecision,
    ContextRecall,
    Faithfulness,
)
from ragjudge.metrics.ranking import RetrievalMetric

__all__ = ["GENERATION_METRICS", "Metric", "Outcome", "build_metric", "is_generation_metric"]

GENERATION_METRICS: dict[str, type[Metric]] = {
    cls.name: cls
    for cls in (Faithfulness, AnswerRelevance, ContextPrecision, ContextRecall, AnswerCorrectness)
}


def is_generation_metric(name: str) -> bool:
    """Whether ``name`` is a judged generation metric (anything else is read as a retrieval measure)."""
    return name in GENERATION_METRICS


def build_metric(name: str, judge: Judge | None = None, options: Mapping[str, Any] | None = None) -> Metric:
    """The metric called ``name``: a generation metric with ``judge`` and ``options``, or a retrieval measure."""
    if name in GENERATION_METRICS:
        if judge is None:
            raise ValueError(f"metric {name!r} needs a judge")
        cls = GENERATION_METRICS[name]
        validated = cls.Options.model_validate(dict(options or {}))
        return cls(judge, **validated.model_dump())
    if options:
        raise ValueError(f"retrieval measure {name!r} takes its parameters in its name, not options")
    from ragjudge.retrieval import parse_measure

    parse_measure(name)  # fail now, with the notation's own message, on a name that is no measure
    return RetrievalMetric(name)
