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
against the reference when a sample has one (``use_reference``) and the question otherwise. A failed judgement
fails its sample; see :mod:`ragjudge.metrics.base`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import Literal

import numpy as np
from pydantic import Field

from ragjudge.batches import PairBatch, VerdictBatch
from ragjudge.judges.base import Judge
from ragjudge.metrics.base import BatchPlan, Metric, MetricOptions, Outcome, Reduction
from ragjudge.metrics.claims import ClaimSplitter, SentenceSplitter, is_question, split_flat
from ragjudge.records import Sample, Task

__all__ = ["AnswerCorrectness", "AnswerRelevance", "ContextPrecision", "ContextRecall", "Faithfulness"]

ClaimScoring = Literal["label", "score", "min"]


def _premises(samples: Sequence[Sample]) -> list[tuple[str, ...]]:
    """Each sample's non-blank contexts (C-level maps; the rare sample with a blank context is filtered)."""
    contexts = list(map(attrgetter("contexts"), samples))
    premises = list(map(tuple, contexts))
    clean = np.fromiter(map(all, map(map, repeat(str.strip), contexts)), bool, len(contexts))
    for j in np.flatnonzero(~clean).tolist():
        premises[j] = tuple(c for c in premises[j] if c.strip())
    return premises


def _decide(n: int, rules: Sequence[tuple[np.ndarray, str]]) -> list[Outcome | None]:
    """``None`` for samples that pass every rule, else a skip with the first failed rule's reason."""
    decided: list[Outcome | None] = [None] * n
    for passed, reason in reversed(rules):  # earlier rules win: they are written last
        for j in np.flatnonzero(~passed).tolist():
            decided[j] = Outcome.skip(reason)
    return decided


def _nonblank(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter(map(bool, map(str.strip, texts)), bool, len(texts))


class ClaimOptions(MetricOptions):
    """``claim_scoring``: ``label`` counts supported claims (the article's definition); ``score`` averages the
    judge's claim scores (a graded value, better for ranking answers); ``min`` takes the weakest claim's score
    (one unsupported claim makes an answer unfaithful, so this ranks answers by their worst claim, as
    SummaC-style and MiniCheck-style detectors do). ``min_claim_chars``: the sentence splitter keeps sentences
    longer than this. ``questions``: ``keep`` judges every sentence (the article's definition); ``drop`` leaves
    out sentences that end with a question mark, which assert nothing ("Would you like to know more?" is not
    an unsupported claim), and a text of questions only has no claims, so its sample is skipped with that
    reason."""

    claim_scoring: ClaimScoring = "label"
    min_claim_chars: int = Field(10, ge=0)
    questions: Literal["keep", "drop"] = "keep"


class _ClaimMetric(Metric):
    """Shared constructor and reduction of metrics that split text into claims."""

    needs = Task.SUPPORT
    Options = ClaimOptions
    what = "claim judgements"

    def __init__(self, judge: Judge, *, splitter: ClaimSplitter | None = None,
                 claim_scoring: ClaimScoring = "label", min_claim_chars: int = 10,
                 questions: Literal["keep", "drop"] = "keep") -> None:
        super().__init__(judge)
        self.splitter = splitter or SentenceSplitter(min_chars=min_claim_chars)
        self.claim_scoring = claim_scoring
        self.questions = questions

    def split(self, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Claims of all ``texts`` and the text each came from, without questions when ``questions="drop"``."""
        claims, owner = split_flat(self.splitter, texts)
        if self.questions == "keep" or not claims:
            return claims, owner
        keep = ~np.fromiter(map(is_question, claims), bool, len(claims))
        return [c for c, k in zip(claims, keep.tolist()) if k], owner[keep]

    def _no_claims(self, source: str) -> str:
        return f"no claims in the {source}" + (" (questions are dropped)" if self.questions == "drop" else "")

    def reduce_batch(self, samples: Sequence[Sample], plan: BatchPlan, verdicts: VerdictBatch) -> list[Outcome]:
        """Fraction of supported claims (or mean claim score, with ``claim_scoring="score"``) per sample."""
        red = Reduction(plan, verdicts, len(samples), self.what)
        return red.outcomes(red.fraction(self.claim_scoring))

    def _claims_against_contexts(self, samples: Sequence[Sample], texts: list[str], source: str) -> BatchPlan:
        """Support pairs of each text's claims against its sample's non-blank contexts.

        ``source`` names the text in skip reasons: a blank text is ``empty answer`` / ``no reference``.
        """
        claims, owner = self.split(texts)
        premises = _premises(samples)
        decided = _decide(len(samples), [
            (_nonblank(texts), "empty answer" if source == "answer" else f"no {source}"),
            (np.fromiter(map(bool, premises), bool, len(premises)), "no contexts"),
            (np.bincount(owner, minlength=len(samples)) > 0, self._no_claims(source)),
        ])
        return BatchPlan.support(decided, claims, owner, premises)


class Faithfulness(_ClaimMetric):
    """Share of the answer's claims that some retrieved context supports."""

    name = "faithfulness"

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """One support pair per answer claim, against all of the sample's contexts."""
        return self._claims_against_contexts(samples, list(map(attrgetter("answer"), samples)), "answer")


class ContextRecall(_ClaimMetric):
    """Share of the reference's claims that some retrieved context supports."""

    name = "context_recall"

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """One support pair per reference claim, against all of the sample's contexts."""
        return self._claims_against_contexts(samples, [s.reference or "" for s in samples], "reference")


class AnswerCorrectness(_ClaimMetric):
    """F1 of answer claims backed by the reference and reference claims covered by the answer."""

    name = "answer_correctness"
    components = ("precision", "recall")

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """Answer claims against the reference (group 0), then reference claims against the answer (group 1)."""
        answers = [s.answer for s in samples]
        references = [s.reference or "" for s in samples]
        mine, mine_owner = self.split(answers)
        theirs, theirs_owner = self.split(references)
        n = len(samples)
        decided = _decide(n, [
            (_nonblank(answers), "empty answer"),
            (_nonblank(references), "no reference"),
            (np.bincount(mine_owner, minlength=n) > 0, self._no_claims("answer")),
            (np.bincount(theirs_owner, minlength=n) > 0, self._no_claims("reference")),
        ])
        forward = BatchPlan.support(decided, mine, mine_owner, [(r,) for r in references])
        backward = BatchPlan.support(decided, theirs, theirs_owner, [(a,) for a in answers])
        return BatchPlan(PairBatch.concat([forward.pairs, backward.pairs]),
                         np.concatenate([forward.owner, backward.owner]), decided,
                         np.repeat([0, 1], [len(forward.owner), len(backward.owner)]))

    def reduce_batch(self, samples: Sequence[Sample], plan: BatchPlan, verdicts: VerdictBatch) -> list[Outcome]:
        """F1 of precision (answer side) and recall (reference side)."""
        red = Reduction(plan, verdicts, len(samples), self.what)
        side = plan.group if plan.group is not None else np.zeros(len(verdicts), dtype=np.int64)
        precision = red.fraction(self.claim_scoring, (side == 0).astype(np.float64))
        recall = red.fraction(self.claim_scoring, (side == 1).astype(np.float64))
        total = precision + recall
        f1 = np.divide(2 * precision * recall, total, out=np.zeros_like(total), where=total > 0)
        return red.outcomes(f1, {"precision": precision, "recall": recall})


class AnswerRelevance(Metric):
    """How well the answer addresses the question, as the judge scores it."""

    name = "answer_relevance"
    needs = Task.RELEVANCE
    what = "relevance judgements"

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """One relevance pair (question, answer) per sample."""
        decided: list[Outcome | None] = []
        for sample in samples:
            if not sample.answer.strip():
                decided.append(Outcome.skip("empty answer"))
            elif not sample.question.strip():
                decided.append(Outcome.skip("empty question"))
            else:
                decided.append(None)
        keep = [j for j, d in enumerate(decided) if d is None]
        pairs = PairBatch.relevance([samples[j].question for j in keep], [samples[j].answer for j in keep])
        return BatchPlan(pairs, np.asarray(keep, dtype=np.int64), decided)

    def reduce_batch(self, samples: Sequence[Sample], plan: BatchPlan, verdicts: VerdictBatch) -> list[Outcome]:
        """The judge's relevance score."""
        red = Reduction(plan, verdicts, len(samples), self.what)
        return red.outcomes(red.fraction("score"))


class ContextPrecisionOptions(MetricOptions):
    """``use_reference``: judge contexts against the reference when a sample has one (else the question)."""

    use_reference: bool = True


class ContextPrecision(Metric):
    """Are the relevant contexts ranked first? Rank-weighted precision, plus the plain relevant fraction."""

    name = "context_precision"
    needs = Task.RELEVANCE
    components = ("fraction",)
    Options = ContextPrecisionOptions
    what = "context judgements"

    def __init__(self, judge: Judge, *, use_reference: bool = True) -> None:
        super().__init__(judge)
        self.use_reference = use_reference

    def plan_batch(self, samples: Sequence[Sample]) -> BatchPlan:
        """One relevance pair per ranked context, against the reference (when used and given) or question."""
        decided: list[Outcome | None] = []
        owner: list[int] = []
        queries: list[str] = []
        texts: list[str] = []
        for j, sample in enumerate(samples):
            query = sample.reference if self.use_reference and sample.reference else sample.question
            if not any(c.strip() for c in sample.contexts):
                decided.append(Outcome.skip("no contexts"))
            elif not query.strip():
                decided.append(Outcome.skip("empty question and no reference"))
            else:
                decided.append(None)
                owner += [j] * len(sample.contexts)
                queries += [query] * len(sample.contexts)
                texts += sample.contexts
        return BatchPlan(PairBatch.relevance(queries, texts), np.asarray(owner, dtype=np.int64), decided)

    def reduce_batch(self, samples: Sequence[Sample], plan: BatchPlan, verdicts: VerdictBatch) -> list[Outcome]:
        """Mean of precision@k over the ranks k of relevant contexts (0 when none is relevant)."""
        red = Reduction(plan, verdicts, len(samples), self.what)
        hit = verdicts.positive.astype(np.float64)
        start = np.searchsorted(plan.owner, plan.owner)  # first pair of each sample (owners are sorted)
        rank = np.arange(len(hit)) - start + 1
        cumulative = np.cumsum(hit)
        hits_so_far = cumulative - (cumulative[start] - hit[start])
        relevant = red.sum(hit)
        weighted = red.sum(hit * hits_so_far / np.maximum(rank, 1))
        score = np.divide(weighted, relevant, out=np.zeros_like(weighted), where=relevant > 0)
        return red.outcomes(score, {"fraction": np.divide(relevant, red.count, out=np.zeros_like(relevant),
                                                           where=red.count > 0)})
