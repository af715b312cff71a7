"""Release gates: "this metric on this data, judged by this judge, is at least X", as one readable assertion.

    check = evaluate_metric("answers.jsonl", "faithfulness", config="ragjudge.yaml")
    check.at_least(0.8)                    # on the mean; bound="lower" gates on the interval's lower end

A failing gate raises :class:`GateFailure` (an ``AssertionError``, so pytest shows it as a test failure) whose
message holds the mean, its bootstrap interval, the counts of scored, failed and skipped samples, the judge,
and the worst samples with their question and answer. A passing gate returns the check, so the numbers stay
available to print or to assert on further.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragjudge.config import JudgeSpec, MetricSpec, RunConfig, build_metrics, load_config
from ragjudge.judges.base import Judge
from ragjudge.metrics import build_metric
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.records import Sample, Status
from ragjudge.results import MetricSummary

__all__ = ["GateFailure", "MetricCheck", "evaluate_metric"]

Data = str | Path | Iterable[Sample | Mapping[str, Any]]
Bound = Literal["mean", "lower"]


class GateFailure(AssertionError):
    """A metric fell short of its required value; the message is the full report."""


def _clip(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[:width - 3] + "...")


@dataclass(repr=False)
class MetricCheck:
    """One metric's result on one dataset, ready to gate on."""

    metric: str
    summary: MetricSummary
    samples: list[Sample]
    outcomes: list[Outcome]
    level: float = 0.95
    gates: list[tuple[float, str, bool]] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        """Mean over scored samples (``None`` when none was scored)."""
        return self.summary.mean

    @property
    def lower(self) -> float | None:
        """Lower end of the bootstrap interval of the mean."""
        return None if self.summary.ci95 is None else self.summary.ci95[0]

    @property
    def upper(self) -> float | None:
        """Upper end of the bootstrap interval of the mean."""
        return None if self.summary.ci95 is None else self.summary.ci95[1]

    def __repr__(self) -> str:
        return f"MetricCheck({self.headline()})"

    def worst(self, k: int = 5) -> list[tuple[Sample, Outcome]]:
        """The ``k`` scored samples with the lowest scores, lowest first."""
        scored = [(s, o) for s, o in zip(self.samples, self.outcomes, strict=True)
                  if o.status is Status.OK]
        return sorted(scored, key=lambda so: so[1].score or 0.0)[:k]

    def headline(self) -> str:
        """``metric = mean [lower, upper]`` with the counts."""
        s = self.summary
        if s.mean is None:
            value = "no scored sample"
        else:
            value = f"{s.mean:.3f} ({self.level:.0%} CI [{self.lower:.3f}, {self.upper:.3f}])"
        return (f"{self.metric} = {value}; {s.n} samples: {s.n_scored} scored, {s.n_failed} failed, "
                f"{s.n_skipped} skipped")

    def report(self, k: int = 5) -> str:
        """The headline, the judge, the ``k`` worst samples, and the unscored ones with their reasons."""
        judge = self.summary.judge
        who = "-" if judge is None else f"{judge['name']} (id {judge['id']})"
        lines = [self.headline(), f"judge: {who}"]
        worst = self.worst(k)
        if worst:
            lines.append(f"worst {len(worst)} samples:")
            lines += [f"  {s.id}: {o.score:.3f}  question {_clip(s.question)}  answer {_clip(s.answer)}"
                      for s, o in worst]
        unscored = [(s, o) for s, o in zip(self.samples, self.outcomes, strict=True)
                    if o.status is not Status.OK]
        for s, o in unscored[:k]:
            lines.append(f"  {s.id}: {o.status.value}: {o.reason}")
        if len(unscored) > k:
            lines.append(f"  ... and {len(unscored) - k} more unscored")
        return "\n".join(lines)

    def at_least(self, threshold: float, *, bound: Bound = "mean", worst: int = 5) -> MetricCheck:
        """Require the mean (or, with ``bound="lower"``, the interval's lower end) to reach ``threshold``."""
        __tracebackhide__ = True  # pytest: show the user's gate line, not this frame
        value = self.mean if bound == "mean" else self.lower
        passed = value is not None and value >= threshold
        self.gates.append((threshold, bound, passed))
        if not passed:
            what = "mean" if bound == "mean" else "lower confidence bound"
            raise GateFailure(f"{self.metric} {what} must be at least {threshold:g}\n{self.report(worst)}")
        return self


def _samples(data: Data) -> list[Sample]:
    if isinstance(data, str | Path):
        from ragjudge.data import read_samples

        return read_samples(data)
    from ragjudge.data import sample_from_record

    return [s if isinstance(s, Sample) else sample_from_record(dict(s), line=i)
            for i, s in enumerate(data, start=1)]


def _metric(name: str, config: RunConfig, judge: Judge | str | None, judge_options: Mapping[str, Any] | None,
            metric_options: Mapping[str, Any] | None) -> Metric:
    spec = next((m for m in config.metrics if m.name == name), MetricSpec(name=name))
    if metric_options is not None:
        spec = spec.model_copy(update={"options": dict(metric_options)})
    if isinstance(judge, Judge):
        return build_metric(name, judge, spec.options)
    if judge is not None or judge_options:
        base = spec.judge or config.judge
        same = judge is None or (base is not None and judge == base.name)
        options = {**(base.options if base is not None and same else {}), **dict(judge_options or {})}
        name = judge or (base.name if base is not None else "overlap")
        spec = spec.model_copy(update={"judge": JudgeSpec(name=name, options=options)})
    data = {**config.model_dump(), "metrics": [spec.model_dump()]}
    return build_metrics(RunConfig.model_validate(data))[0]


def evaluate_metric(data: Data, metric: str = "faithfulness", *, config: str | Path | RunConfig | None = None,
                    judge: Judge | str | None = None, judge_options: Mapping[str, Any] | None = None,
                    metric_options: Mapping[str, Any] | None = None, seed: int | None = None) -> MetricCheck:
    """Score ``metric`` on ``data`` (a file, or samples / records) and return a :class:`MetricCheck`.

    The judge, its options and the metric's options come from ``config`` (a file or a :class:`RunConfig`; the
    metric's own entry when it lists one, else its default judge) unless given here. A ``judge`` instance is
    used as is (a :class:`~ragjudge.testing.FakeJudge`, or one shared across tests).
    """
    from ragjudge.evaluate import assign_ids, evaluate

    run = config if isinstance(config, RunConfig) else load_config(config) if config else RunConfig()
    built = _metric(metric, run, judge, judge_options, metric_options)
    samples = assign_ids(_samples(data))
    result = evaluate(samples, [built], batch_size=run.batch_size, seed=run.seed if seed is None else seed,
                      resamples=run.bootstrap.resamples, level=run.bootstrap.level, progress=False)
    return MetricCheck(metric, result.summary[built.name], samples, result.outcomes[built.name],
                       level=run.bootstrap.level)
