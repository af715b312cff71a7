"""Generation metrics, each built on one judge task.

============================  ==========  =====================================================================
metric                        task        score
============================  ==========  =====================================================================
``faithfulness``              support     answer claims supported by any context / answer claims
``answer_relevance``          relevance   the judge's score for "does the answer address the question"
``context_precision``         relevance   rank-weighted average precision of relevant contexts (RAGAS's
                                          definition); component ``fraction``: relevant contexts / contexts
``context_recall``            support     reference claims supported by the contexts / reference claims
``answer_correctness``        support     F1 of answer claims supported by the reference (``precision``) and
                                          reference claims supported by the answer (``recall``)
============================  ==========  =====================================================================

What each metric does with incomplete input (never NaN, never a silent 0): an empty answer, no contexts (none,
or only blank ones), a missing reference where the metric needs one, an empty question where it needs one, or
no claims to check each give a ``skipped`` outcome whose reason says which. ``context_precision`` judges
against the reference when a sample has one (``use_reference``) and the question otherwise. A judgement that
failed fails the sample; see :func:`ragjudge.metrics.base.unscored`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from ragjudge.judges.base import Judge
from pydantic import Field

from ragjudge.metrics.base import Metric, MetricOptions, Outcome, Plan, reduce_claims, total_usage, unscored
from ragjudge.metrics.claims import ClaimSplitter, SentenceSplitter
from ragjudge.records import Pair, Sample, Task, Verdict

__all__ = ["AnswerCorrectness", "AnswerRelevance", "ContextPrecision", "ContextRecall", "Faithfulness"]

ClaimScoring = Literal["label", "score"]


def _contexts(sample: Sample) -> list[str]:
    return [c for c in sample.contexts if c.strip()]


class ClaimOptions(MetricOptions):
    """``claim_scoring``: ``label`` counts supported claims (the article's definition); ``score`` averages the
    judge's claim scores (a graded value, better for ranking answers). ``min_claim_chars``: the sentence
    splitter keeps sentences longer than this."""

    claim_scoring: ClaimScoring = "label"
    min_claim_chars: int = Field(10, ge=0)


class _ClaimMetric(Metric):
    """Shared constructor of metrics that split text into claims."""

    needs = Task.SUPPORT
    Options = ClaimOptions

    def __init__(self, judge: Judge, *, splitter: ClaimSplitter | None = None,
                 claim_scoring: ClaimScoring = "label", min_claim_chars: int = 10) -> None:
        super().__init__(judge)
        self.splitter = splitter or SentenceSplitter(min_chars=min_claim_chars)
        self.claim_scoring = claim_scoring

    def reduce(self, sample: Sample, pairs: list[Pair], verdicts: list[Verdict]) -> Outcome:
        """Fraction of supported claims (or mean claim score, with ``claim_scoring="score"``)."""
        return reduce_claims(verdicts, self.claim_scoring)


class Faithfulness(_ClaimMetric):
    """Share of the answer's claims that some retrieved context supports."""

    name = "faithfulness"

    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """One support pair per answer claim, against all of the sample's contexts."""
        claims = self.splitter.split([s.answer for s in samples])
        plans: list[Plan] = []
        for sample, found in zip(samples, claims):
            contexts = _contexts(sample)
            if not sample.answer.strip():
                plans.append(Outcome.skip("empty answer"))
            elif not contexts:
                plans.append(Outcome.skip("no contexts"))
            elif not found:
                plans.append(Outcome.skip("no claims in the answer"))
            else:
                plans.append([Pair.support(c, contexts) for c in found])
        return plans


class ContextRecall(_ClaimMetric):
    """Share of the reference's claims that some retrieved context supports."""

    name = "context_recall"

    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """One support pair per reference claim, against all of the sample's contexts."""
        claims = self.splitter.split([s.reference or "" for s in samples])
        plans: list[Plan] = []
        for sample, found in zip(samples, claims):
            contexts = _contexts(sample)
            if not (sample.reference or "").strip():
                plans.append(Outcome.skip("no reference"))
            elif not contexts:
                plans.append(Outcome.skip("no contexts"))
            elif not found:
                plans.append(Outcome.skip("no claims in the reference"))
            else:
                plans.append([Pair.support(c, contexts) for c in found])
        return plans


class AnswerCorrectness(_ClaimMetric):
    """F1 of answer claims backed by the reference and reference claims covered by the answer."""

    name = "answer_correctness"
    components = ("precision", "recall")

    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """Answer claims against the reference, then reference claims against the answer."""
        answer_claims = self.splitter.split([s.answer for s in samples])
        reference_claims = self.splitter.split([s.reference or "" for s in samples])
        plans: list[Plan] = []
        for sample, mine, theirs in zip(samples, answer_claims, reference_claims):
            if not sample.answer.strip():
                plans.append(Outcome.skip("empty answer"))
            elif not (sample.reference or "").strip():
                plans.append(Outcome.skip("no reference"))
            elif not mine or not theirs:
                plans.append(Outcome.skip("no claims in the " + ("answer" if not mine else "reference")))
            else:
                plans.append([Pair.support(c, [sample.reference or ""]) for c in mine]
                             + [Pair.support(c, [sample.answer]) for c in theirs])
        return plans

    def reduce(self, sample: Sample, pairs: list[Pair], verdicts: list[Verdict]) -> Outcome:
        """F1 of precision (answer side) and recall (reference side)."""
        # Answer-side pairs come first and have the reference as premise. When answer and reference are the
        # same text both sides have the same claims, so the split is in the middle.
        if sample.reference == sample.answer:
            n_answer = len(pairs) // 2
        else:
            n_answer = sum(1 for p in pairs if p.premises != (sample.answer,))
        precision = reduce_claims(verdicts[:n_answer], self.claim_scoring, "answer-claim judgements")
        recall = reduce_claims(verdicts[n_answer:], self.claim_scoring, "reference-claim judgements")
        for part in (precision, recall):
            if part.score is None:
                return part
        p, r = precision.score or 0.0, recall.score or 0.0
        f1 = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        return Outcome(f1, components={"precision": p, "recall": r}, usage=total_usage(verdicts))


class AnswerRelevance(Metric):
    """How well the answer addresses the question, as the judge scores it."""

    name = "answer_relevance"
    needs = Task.RELEVANCE

    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """One relevance pair (question, answer) per sample."""
        plans: list[Plan] = []
        for sample in samples:
            if not sample.answer.strip():
                plans.append(Outcome.skip("empty answer"))
            elif not sample.question.strip():
                plans.append(Outcome.skip("empty question"))
            else:
                plans.append([Pair.relevance(sample.question, sample.answer)])
        return plans

    def reduce(self, sample: Sample, pairs: list[Pair], verdicts: list[Verdict]) -> Outcome:
        """The judge's relevance score."""
        bad = unscored(verdicts, "relevance judgements")
        return bad or Outcome(verdicts[0].score, usage=verdicts[0].usage)


class ContextPrecisionOptions(MetricOptions):
    """``use_reference``: judge contexts against the reference when a sample has one (else the question)."""

    use_reference: bool = True


class ContextPrecision(Metric):
    """Are the relevant contexts ranked first? Rank-weighted precision, plus the plain relevant fraction."""

    name = "context_precision"
    needs = Task.RELEVANCE
    components = ("fraction",)
    Options = ContextPrecisionOptions

    def __init__(self, judge: Judge, *, use_reference: bool = True) -> None:
        super().__init__(judge)
        self.use_reference = use_reference

    def plan(self, samples: Sequence[Sample]) -> list[Plan]:
        """One relevance pair per ranked context, against the reference (when used and given) or question."""
        plans: list[Plan] = []
        for sample in samples:
            query = (sample.reference or "") if self.use_reference and sample.reference else sample.question
            if not sample.contexts or not any(c.strip() for c in sample.contexts):
                plans.append(Outcome.skip("no contexts"))
            elif not query.strip():
                plans.append(Outcome.skip("empty question and no reference"))
            else:
                plans.append([Pair.relevance(query, c) for c in sample.contexts])
        return plans

    def reduce(self, sample: Sample, pairs: list[Pair], verdicts: list[Verdict]) -> Outcome:
        """Mean of precision@k over the ranks k of relevant contexts (0 when none is relevant)."""
        bad = unscored(verdicts, "context judgements")
        if bad is not None:
            return bad
        hits, weighted = 0, 0.0
        for rank, verdict in enumerate(verdicts, start=1):
            if verdict.positive:
                hits += 1
                weighted += hits / rank
        score = weighted / hits if hits else 0.0
        return Outcome(score, components={"fraction": hits / len(verdicts)}, usage=total_usage(verdicts))
