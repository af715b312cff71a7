"""The metric contract: a metric plans judge pairs for a batch of samples, then reduces verdicts to scores.

Planning is batch-first (claim splitting may be an LLM call). A plan for one sample is either the list of
pairs to judge, or an :class:`Outcome` decided without a judge (a skip with its reason, or a retrieval value).
The evaluator judges the union of all plans' pairs in one call per metric per batch, then calls
:meth:`Metric.reduce` with each sample's verdicts in plan order. A metric never knows which judge it has.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from ragjudge.errors import JudgeTaskError
from ragjudge.judges.base import Judge
from ragjudge.records import Pair, Sample, Status, Task, Usage, Verdict

__all__ = ["Metric", "MetricOptions", "Outcome", "Plan", "reduce_claims", "total_usage", "unscored"]


@dataclass(frozen=True)
class Outcome:
    """A metric's result on one sample: a score when ``ok``, else a reason. ``components`` are sub-scores."""

    score: float | None
    status: Status = Status.OK
    reason: str | None = None
    components: dict[str, float] = field(default_factory=dict)
    usage: Usage | None = None

    @classmethod
    def skip(cls, reason: str) -> Outcome:
        """Not scored, on purpose, for ``reason``."""
        return cls(None, Status.SKIPPED, reason)

    @classmethod
    def fail(cls, reason: str) -> Outcome:
        """Not scored because a judgement failed."""
        return cls(None, Status.FAILED, reason)


Plan = list[Pair] | Outcome


class MetricOptions(BaseModel):
    """Base of a metric's options (validated from config before the metric is built)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(ABC):
    """A metric over samples; ``needs`` is the judge task it requires (``None`` for judge-free metrics)."""

    name: str
    needs: ClassVar[Task | None] = None
    components: ClassVar[tuple[str, ...]] = ()
    Options: ClassVar[type[MetricOptions]] = MetricOptions

    def __init__(self, judge: Judge | None) -> None:
        if self.needs is not None:
            if judge is None:
                raise JudgeTaskError(f"metric {self.name!r} needs a judge of {self.needs.value!r}")
            if not judge.supports(self.needs):
                raise JudgeTaskError(
                    f"metric {self.name!r} needs a judge of {self.needs.value!r}, but judge {judge.name!r} "
                    f"judges only {', '.join(sorted(t.value for t in judge.tasks)) or 'nothing'}"
                )
        self.judge = judge

    @abstractmethod
    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """One plan per sample: the pairs to judge, or an outcome decided without judging."""

    def reduce(self, sample: Sample, pairs: list[Pair], verdicts: list[Verdict]) -> Outcome:
        """Turn one sample's verdicts (in plan order) into its outcome."""
        raise NotImplementedError(f"metric {self.name!r} plans pairs but does not reduce them")

    def describe(self) -> dict[str, Any]:
        """What identifies this metric and its judge in a report."""
        return {"judge": None if self.judge is None else self.judge.fingerprint}


def total_usage(verdicts: Sequence[Verdict]) -> Usage | None:
    """Sum of the verdicts' usage, or ``None`` when none reported any."""
    spent = [v.usage for v in verdicts if v.usage is not None]
    if not spent:
        return None
    total = Usage()
    for u in spent:
        total = total + u
    return total


def unscored(verdicts: Sequence[Verdict], what: str) -> Outcome | None:
    """A failed or skipped outcome when any verdict is not ok; ``None`` when all are scored.

    One failed judgement fails the sample (its score would be a guess); otherwise one skipped judgement skips
    it. The reason quotes the first such verdict and counts the rest.
    """
    for status in (Status.FAILED, Status.SKIPPED):
        bad = [v for v in verdicts if v.status is status]
        if bad:
            reason = f"{len(bad)} of {len(verdicts)} {what} {status.value}: {bad[0].reason}"
            return Outcome(None, status, reason, usage=total_usage(verdicts))
    return None


def reduce_claims(verdicts: Sequence[Verdict], by: str, what: str = "claim judgements") -> Outcome:
    """Fraction of supported claims (``by="label"``) or mean claim score (``by="score"``)."""
    bad = unscored(verdicts, what)
    if bad is not None:
        return bad
    if by == "score":
        value = sum(v.score or 0.0 for v in verdicts) / len(verdicts)
    else:
        value = sum(1 for v in verdicts if v.positive) / len(verdicts)
    return Outcome(value, usage=total_usage(verdicts))
