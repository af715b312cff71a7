"""The metric contract: a metric plans judge pairs for a batch of samples, then reduces verdicts to outcomes.

Both steps are batch-first and columnar. :meth:`Metric.plan_batch` returns a :class:`BatchPlan`: the pairs to
judge for all samples of the batch, which sample each pair belongs to (``owner``), and the outcomes already
decided without a judge (skips with their reason, retrieval values). The evaluator judges the distinct pairs in
one call, then :meth:`Metric.reduce_batch` turns the verdicts (in plan order) into one :class:`Outcome` per
sample with numpy group sums, not a Python loop per pair. A metric never knows which judge it has.

A failed judgement fails its sample (its score would be a guess); otherwise a skipped judgement skips it. The
reason quotes the first such verdict and counts them: ``"1 of 3 claim judgements failed: timeout"``.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict

from ragjudge.batches import PairBatch, VerdictBatch
from ragjudge.errors import JudgeTaskError
from ragjudge.judges.base import Judge
from ragjudge.records import Sample, Status, Task, Usage

__all__ = ["BatchPlan", "Metric", "MetricOptions", "Outcome", "Reduction"]


@dataclass(slots=True)
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


@dataclass
class BatchPlan:
    """What a metric wants judged for a batch: ``pairs[i]`` belongs to sample ``owner[i]``; ``decided[j]`` is
    sample j's outcome when it needs no judging (else ``None``). ``group`` optionally splits a sample's pairs
    (e.g. answer side 0, reference side 1)."""

    pairs: PairBatch
    owner: np.ndarray
    decided: list[Outcome | None]
    group: np.ndarray | None = None

    @classmethod
    def support(cls, decided: list[Outcome | None], claims: list[str], owner: np.ndarray,
                premises: list[tuple[str, ...]]) -> BatchPlan:
        """Support pairs of each undecided sample's claims (flat, with ``owner``) against its premises."""
        undecided = np.fromiter(map(operator.is_, decided, repeat(None)), bool, len(decided))
        keep = undecided[owner] if len(owner) else np.zeros(0, dtype=bool)
        index = np.flatnonzero(keep).tolist()
        kept_owner = owner[keep]
        pairs = PairBatch.support([claims[i] for i in index], list(map(premises.__getitem__, kept_owner.tolist())))
        return cls(pairs, kept_owner, decided)


class Reduction:
    """Per-sample group sums over a batch's verdicts, shared by every metric's reduce step."""

    def __init__(self, plan: BatchPlan, verdicts: VerdictBatch, n: int, what: str) -> None:
        self.plan, self.verdicts, self.n, self.what = plan, verdicts, n, what
        self.owner = plan.owner
        self.count = self.sum(np.ones(len(verdicts)))
        self.ok = verdicts.codes == 0

    def sum(self, weights: np.ndarray, owner: np.ndarray | None = None, n: int | None = None) -> np.ndarray:
        """Sum of ``weights`` per sample (or per group id in ``owner``)."""
        return np.bincount(self.owner if owner is None else owner, weights=weights,
                           minlength=self.n if n is None else n)

    def unscored(self) -> dict[int, Outcome]:
        """Samples with a failed (first) or skipped judgement, as their outcome."""
        out: dict[int, Outcome] = {}
        for code, status in ((1, Status.FAILED), (2, Status.SKIPPED)):
            bad = np.flatnonzero(self.verdicts.codes == code)
            if not len(bad):
                continue
            per_sample = self.sum((self.verdicts.codes == code).astype(np.float64))
            for i in bad.tolist():
                j = int(self.owner[i])
                if j not in out:
                    reason = (f"{int(per_sample[j])} of {int(self.count[j])} {self.what} {status.value}: "
                              f"{self.verdicts.reasons.get(i)}")
                    out[j] = Outcome(None, status, reason)
        return out

    def usage(self) -> dict[int, Usage]:
        """Usage summed per sample, for the samples whose verdicts reported any."""
        out: dict[int, Usage] = {}
        for i, used in self.verdicts.usages.items():
            j = int(self.owner[i])
            out[j] = used if j not in out else out[j] + used
        return out

    def outcomes(self, scores: np.ndarray, components: dict[str, np.ndarray] | None = None) -> list[Outcome]:
        """One outcome per sample: decided ones as planned, unscored ones with their reason, the rest scored."""
        bad, usage = self.unscored(), self.usage()
        values = scores.tolist()
        if not bad and not usage and not components:  # the common case, without a Python frame per sample
            out = list(map(Outcome, values))
            for j, decided in enumerate(self.plan.decided):
                if decided is not None:
                    out[j] = decided
            return out
        parts = {k: v.tolist() for k, v in (components or {}).items()}
        out = []
        for j, decided in enumerate(self.plan.decided):
            if decided is not None:
                out.append(decided)
            elif j in bad:
                found = bad[j]
                found.usage = usage.get(j)
                out.append(found)
            else:
                out.append(Outcome(values[j], Status.OK, None, {k: v[j] for k, v in parts.items()},
                                   usage.get(j)))
        return out

    def fraction(self, by: str, mask: np.ndarray | None = None) -> np.ndarray:
        """Per sample: share of positive verdicts (``by="label"``), mean score (``by="score"``) or the least
        score (``by="min"``) of its verdicts (those in ``mask``); 0 for a sample with none."""
        if by == "min":
            return self.least(mask)
        weights = self.verdicts.positive if by == "label" else np.where(self.ok, self.verdicts.scores, 0.0)
        weights = weights.astype(np.float64)
        if mask is None:
            return _ratio(self.sum(weights), self.count)
        return _ratio(self.sum(weights * mask), self.sum(mask.astype(np.float64)))

    def least(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Per sample: the least score of its ok verdicts (those in ``mask``); 0 for a sample with none."""
        keep = self.ok if mask is None else self.ok & (mask > 0)
        out = np.full(self.n, np.inf)
        np.minimum.at(out, self.owner[keep], self.verdicts.scores[keep].astype(np.float64))
        result: np.ndarray = np.where(np.isinf(out), 0.0, out)
        return result


def _ratio(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.divide(top, bottom, out=np.zeros_like(top), where=bottom > 0)
    return result


class MetricOptions(BaseModel):
    """Base of a metric's options (validated from config before the metric is built)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(ABC):
    """A metric over samples; ``needs`` is the judge task it requires (``None`` for judge-free metrics)."""

    name: str
    needs: ClassVar[Task | None] = None
    components: ClassVar[tuple[str, ...]] = ()
    Options: ClassVar[type[MetricOptions]] = MetricOptions
    what: ClassVar[str] = "judgements"

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
    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """The pairs to judge for ``samples``, and the outcomes decided without judging."""

    def reduce_batch(self, samples: Sequence[Sample], plan: BatchPlan, verdicts: VerdictBatch) -> list[Outcome]:
        """One outcome per sample from the verdicts of ``plan.pairs`` (in plan order)."""
        raise NotImplementedError(f"metric {self.name!r} plans pairs but does not reduce them")

    def describe(self) -> dict[str, Any]:
        """What identifies this metric and its judge in a report."""
        return {"judge": None if self.judge is None else self.judge.fingerprint}
