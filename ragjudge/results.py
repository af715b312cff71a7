"""Evaluation results: per-sample outcomes, per-metric summaries, and their versioned file formats.

JSON output (``schema_version`` 1)::

    {"schema_version": 1, "ragjudge_version": "...",
     "summary": {METRIC: {"mean": float | null, "ci95": [lo, hi] | null, "n", "n_scored", "n_failed",
                          "n_skipped", "judge": {fingerprint} | null,
                          "components": {NAME: {"mean", "ci95"}}, "usage": {...} | null}},
     "usage": {"requests", "input_tokens", "output_tokens", "cost", "cache_hits"} | null,   # all metrics
     "samples": [{"id", "metrics": {METRIC: {"score": float | null, "status": "ok" | "failed" | "skipped",
                                             "reason": str | null, "components": {NAME: float}?}}}]}

Means and intervals are over scored samples only; ``n = n_scored + n_failed + n_skipped``; a metric with no
scored sample has ``mean`` and ``ci95`` null, never NaN. Samples keep input order and input ids. The file holds no
timestamps, so the same input and seed give the same bytes. CSV and JSONL outputs hold the per-sample rows
flat: ``id``, then ``METRIC``, ``METRIC.status``, ``METRIC.reason`` and ``METRIC.COMPONENT`` columns.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragjudge import __version__
from ragjudge.metrics.base import Outcome
from ragjudge.records import Status, Usage
from ragjudge.stats import bootstrap_mean_ci

__all__ = ["SCHEMA_VERSION", "EvaluationResult", "MetricSummary", "summarise"]

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class MetricSummary:
    """Mean, 95% bootstrap interval and counts of one metric over a run."""

    mean: float | None
    ci95: tuple[float, float] | None
    n: int
    n_scored: int
    n_failed: int
    n_skipped: int
    judge: dict[str, Any] | None = None
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (schema version 1)."""
        return {
            "mean": self.mean,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "n": self.n,
            "n_scored": self.n_scored,
            "n_failed": self.n_failed,
            "n_skipped": self.n_skipped,
            "judge": self.judge,
            "components": self.components,
            "usage": None if self.usage is None else self.usage.model_dump(exclude={"cached"}),
        }


def _mean_ci(values: list[float], seed: int, resamples: int, level: float) -> dict[str, Any]:
    ci = bootstrap_mean_ci(values, seed=seed, resamples=resamples, level=level)
    return {"mean": sum(values) / len(values) if values else None, "ci95": None if ci is None else list(ci)}


def summarise(outcomes: list[Outcome], judge: dict[str, Any] | None, *, seed: int = 0,
              resamples: int = 1000, level: float = 0.95) -> MetricSummary:
    """Aggregate one metric's outcomes over all samples (done once, whatever engine produced them)."""
    scored = [o.score for o in outcomes if o.status is Status.OK and o.score is not None]
    stats = _mean_ci(scored, seed, resamples, level)
    names = sorted({name for o in outcomes for name in o.components})
    components = {
        name: _mean_ci([o.components[name] for o in outcomes if name in o.components], seed, resamples, level)
        for name in names
    }
    usage = None
    for o in outcomes:
        if o.usage is not None:
            usage = o.usage + Usage() if usage is None else usage + o.usage
    return MetricSummary(
        mean=stats["mean"],
        ci95=None if stats["ci95"] is None else (stats["ci95"][0], stats["ci95"][1]),
        n=len(outcomes),
        n_scored=len(scored),
        n_failed=sum(1 for o in outcomes if o.status is Status.FAILED),
        n_skipped=sum(1 for o in outcomes if o.status is Status.SKIPPED),
        judge=judge,
        components=components,
        usage=usage,
    )


def _outcome_dict(outcome: Outcome) -> dict[str, Any]:
    row: dict[str, Any] = {"score": outcome.score, "status": outcome.status.value, "reason": outcome.reason}
    if outcome.components:
        row["components"] = dict(outcome.components)
    return row


@dataclass
class EvaluationResult:
    """Everything a run produced: ids in input order, outcomes per metric, summaries per metric."""

    ids: list[str]
    outcomes: dict[str, list[Outcome]]
    summary: dict[str, MetricSummary]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (schema version 1)."""
        samples = [
            {"id": sid, "metrics": {m: _outcome_dict(self.outcomes[m][i]) for m in self.outcomes}}
            for i, sid in enumerate(self.ids)
        ]
        spent = [s.usage for s in self.summary.values() if s.usage is not None]
        total = None
        for used in spent:
            total = used if total is None else total + used
        return {
            "schema_version": SCHEMA_VERSION,
            "ragjudge_version": __version__,
            "summary": {m: s.to_dict() for m, s in self.summary.items()},
            "usage": None if total is None else total.model_dump(exclude={"cached"}),
            "samples": samples,
        }

    def rows(self) -> list[dict[str, Any]]:
        """Flat per-sample rows for CSV and JSONL."""
        rows = []
        for i, sid in enumerate(self.ids):
            row: dict[str, Any] = {"id": sid}
            for metric, outcomes in self.outcomes.items():
                o = outcomes[i]
                row[metric] = o.score
                row[f"{metric}.status"] = o.status.value
                row[f"{metric}.reason"] = o.reason
                for name in self.summary[metric].components:
                    row[f"{metric}.{name}"] = o.components.get(name)
            rows.append(row)
        return rows

    def write(self, path: str | Path) -> None:
        """Write as JSON (default), JSONL or CSV, chosen by the file's suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".csv":
            rows = self.rows()
            with path.open("w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["id"])
                writer.writeheader()
                writer.writerows(rows)
        elif suffix == ".jsonl":
            with path.open("w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in self.rows())
        else:
            path.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
