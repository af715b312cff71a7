"""Scoring samples with each judge through the normal pipeline, timed, with failures kept and counted.

A judge serves the meta-evaluated metric exactly as it would in ``ragjudge evaluate`` (same planning, same
batched judge calls, same reduction), so what is measured is what users run. For claim metrics the default is
``claim_scoring="score"``: the mean of the judge's claim scores is a graded value that AUC-ROC and Spearman
can rank, where the fraction of supported claims ties most samples at 0 or 1 and would hide the judge's
ranking. A spec may still ask for ``claim_scoring=label`` through a config file.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import ValidationError

from ragjudge.config import JudgeSpec
from ragjudge.errors import ConfigError, PluginError, RagJudgeError
from ragjudge.evaluate import judge_plans
from ragjudge.judges.base import Judge
from ragjudge.metaeval.specs import JudgeChoice
from ragjudge.metrics import GENERATION_METRICS, Metric, build_metric
from ragjudge.metrics.base import Outcome
from ragjudge.progress import Progress
from ragjudge.records import Sample, Status, Usage

__all__ = ["JudgeRun", "metric_options", "run_judge"]


@dataclass
class JudgeRun:
    """One judge's per-sample scores (NaN when not scored), statuses, reasons, usage and wall time."""

    choice: JudgeChoice
    fingerprint: dict[str, Any] | None
    metric_options: dict[str, Any]
    scores: np.ndarray
    status: list[Status]
    reasons: list[str | None]
    usage: Usage | None
    seconds: float

    @property
    def ok(self) -> np.ndarray:
        """Mask of scored samples."""
        mask: np.ndarray = np.isfinite(self.scores)
        return mask

    def part(self, mask: np.ndarray) -> JudgeRun:
        """The same run restricted to the samples of ``mask`` (usage and time stay the whole run's)."""
        keep = np.flatnonzero(mask)
        return JudgeRun(self.choice, self.fingerprint, self.metric_options, self.scores[keep],
                        [self.status[i] for i in keep], [self.reasons[i] for i in keep], self.usage,
                        self.seconds)

    def counts(self) -> dict[str, int]:
        """Samples, scored, failed and skipped."""
        return {"n": len(self.status), "n_scored": int(self.ok.sum()),
                "n_failed": sum(s is Status.FAILED for s in self.status),
                "n_skipped": sum(s is Status.SKIPPED for s in self.status)}

    def top_reasons(self, limit: int = 5) -> dict[str, int]:
        """The most frequent reasons samples went unscored, with their counts (ties by text)."""
        pairs = zip(self.reasons, self.status, strict=True)
        counted = Counter(r for r, s in pairs if s is not Status.OK and r)
        return dict(sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])


def metric_options(metric: str, given: dict[str, Any]) -> dict[str, Any]:
    """The metric's options for meta-evaluation: ``claim_scoring="score"`` unless given otherwise."""
    cls = GENERATION_METRICS.get(metric)
    if cls is None:
        raise ConfigError(f"meta-evaluation needs a judged metric ({', '.join(GENERATION_METRICS)}), "
                          f"got {metric!r}", path="command line", key="--metric")
    if "claim_scoring" in cls.Options.model_fields and "claim_scoring" not in given:
        return {**given, "claim_scoring": "score"}
    return dict(given)


def _create(spec: JudgeSpec, label: str) -> Judge:
    from ragjudge.judges.registry import create_judge

    try:
        return create_judge(spec.name, spec.options)
    except PluginError as error:
        raise ConfigError(str(error), path="command line", key=f"--judge {label}") from None
    except RagJudgeError as error:
        raise ConfigError(str(error), path="command line", key=f"--judge {label}") from None


def _metric(metric: str, judge: Judge, options: dict[str, Any], label: str) -> Metric:
    try:
        return build_metric(metric, judge, options)
    except (ValidationError, RagJudgeError, ValueError) as error:
        raise ConfigError(f"metric {metric!r} with judge {label!r}: {error}", path="command line",
                          key="--metric") from None


def _score(metric: Metric, samples: Sequence[Sample], batch_size: int, bar: Progress) -> list[Outcome]:
    outcomes: list[Outcome] = []
    for start in range(0, len(samples), batch_size):
        batch = samples[start:start + batch_size]
        outcomes.extend(judge_plans(metric, batch))
        bar.advance(len(batch))
    bar.close()
    return outcomes


def _usage(outcomes: list[Outcome]) -> Usage | None:
    total = None
    for outcome in outcomes:
        if outcome.usage is not None:
            total = outcome.usage if total is None else total + outcome.usage
    return total


def run_judge(choice: JudgeChoice, metric: str, samples: Sequence[Sample], *, batch_size: int = 256,
              progress: bool | None = None) -> JudgeRun:
    """Score ``samples`` with the judge ``choice`` describes; the judge is closed afterwards."""
    options = metric_options(metric, choice.metric_options)
    judge = _create(choice.judge, choice.label)
    try:
        built = _metric(metric, judge, options, choice.label)
        bar = Progress(len(samples), f"{choice.label:>12}", enabled=progress)
        start = time.perf_counter()
        outcomes = _score(built, samples, batch_size, bar)
        seconds = time.perf_counter() - start
        fingerprint = judge.fingerprint
    finally:
        judge.close()
    scores = np.array([np.nan if o.status is not Status.OK or o.score is None else o.score for o in outcomes],
                      dtype=np.float64)
    return JudgeRun(choice, fingerprint, options, scores, [o.status for o in outcomes],
                    [o.reason for o in outcomes], _usage(outcomes), seconds)
