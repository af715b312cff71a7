"""The article's end-to-end view from a user's own results: retrieval quality x generation quality.

Given an ``ragjudge evaluate`` JSON result in which a retrieval metric (a ranking measure such as ``nDCG@5``,
or else ``context_precision`` / ``context_recall``) and a generation metric (``faithfulness``, else
``answer_relevance`` / ``answer_correctness``) were both run, samples are binned by each score into equal-
width bins over [0, 1]; a cell holds the mean end-to-end value of its samples: the product of the two scores
(the article's multiplicative model), or the mean of a metric named as ``value`` (for example
``answer_correctness``). Samples missing either score are left out and counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragjudge.errors import DataError

__all__ = ["GENERATION_PREFERENCE", "choose_metrics", "end_to_end_grid"]

GENERATION_PREFERENCE = ("faithfulness", "answer_relevance", "answer_correctness")
_JUDGED_RETRIEVAL = ("context_precision", "context_recall")


def choose_metrics(result: dict[str, Any], retrieval: str | None = None,
                   generation: str | None = None) -> tuple[str, str]:
    """The (retrieval, generation) metric pair to draw; a clear error when the result lacks one kind."""
    summary = result.get("summary", {})
    ranking = [m for m, s in summary.items() if s.get("judge") is None]
    retrieval = retrieval or next(iter(ranking + [m for m in _JUDGED_RETRIEVAL if m in summary]), None)
    generation = generation or next((m for m in GENERATION_PREFERENCE if m in summary), None)
    if retrieval is None or generation is None:
        raise DataError("the end-to-end heatmap needs a retrieval metric and a generation metric in the "
                        f"results; found {', '.join(summary) or 'none'}")
    for name in (retrieval, generation):
        if name not in summary:
            raise DataError(f"metric {name!r} is not in the results (have {', '.join(summary)})")
    return retrieval, generation


def _score(sample: dict[str, Any], metric: str) -> float | None:
    found = sample["metrics"].get(metric) or {}
    score = found.get("score") if found.get("status") == "ok" else None
    return None if score is None else float(score)


def end_to_end_grid(result: dict[str, Any], retrieval: str, generation: str, *, value: str | None = None,
                    bins: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(cell means, cell counts, bin edges, samples left out); rows: retrieval bins, columns: generation."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    sums, counts = np.zeros((bins, bins)), np.zeros((bins, bins), dtype=np.int64)
    left_out = 0
    for sample in result.get("samples", []):
        r, g = _score(sample, retrieval), _score(sample, generation)
        v = (None if r is None or g is None else r * g) if value is None else _score(sample, value)
        if r is None or g is None or v is None:
            left_out += 1
            continue
        i = min(int(np.searchsorted(edges, r, side="right")) - 1, bins - 1)
        j = min(int(np.searchsorted(edges, g, side="right")) - 1, bins - 1)
        sums[max(i, 0), max(j, 0)] += v
        counts[max(i, 0), max(j, 0)] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        grid = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return grid, counts, edges, left_out
