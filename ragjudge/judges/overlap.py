"""The ``overlap`` judge: the reference article's word-overlap entailment check, batched.

``support``: the score is the largest fraction of the claim's words found in any one premise; the claim is
``supported`` when that fraction exceeds ``threshold`` (0.7, as in the article's ``check_entailment_simple``).
``relevance``: the score is the fraction of the query's words found in the text; ``relevant`` when it exceeds
``relevance_threshold`` (0.0: any shared word, as in the article's keyword context precision).

With ``lowercase=True, punctuation="keep", stop_words="none"`` the support verdicts are exactly the article's.
The default strips punctuation, so "Paris." matches "Paris" (on BEGIN this lifts AUC from 0.80 to 0.86).
A claim or query with no words left after normalisation gets a ``skipped`` verdict saying so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.text import Normaliser, StopWords
from ragjudge.records import Pair, Status, Task, Verdict

__all__ = ["OverlapJudge"]


class OverlapJudge(Judge):
    """Word-overlap judge of support and relevance (no model, no network)."""

    name = "overlap"
    version = "1"
    tasks = frozenset({Task.SUPPORT, Task.RELEVANCE})

    class Options(JudgeOptions):
        """Thresholds are exclusive: a score must exceed them."""

        threshold: float = Field(0.7, ge=0.0, le=1.0, description="support: claim-word fraction to exceed")
        relevance_threshold: float = Field(0.0, ge=0.0, le=1.0, description="relevance: query-word fraction")
        lowercase: bool = True
        punctuation: Literal["keep", "strip"] = "strip"
        stop_words: StopWords = "none"

    options: Options

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        """Score every pair with set intersections over memoised word sets."""
        opts = self.options
        norm = Normaliser(lowercase=opts.lowercase, punctuation=opts.punctuation, stop_words=opts.stop_words)
        return [self._one(pair, norm) for pair in pairs]

    def _one(self, pair: Pair, norm: Normaliser) -> Verdict:
        if pair.task is Task.SUPPORT:
            return _verdict(norm.words(pair.text), norm.many(pair.premises), self.options.threshold,
                            ("supported", "unsupported"), "claim")
        return _verdict(norm.words(pair.query), [norm.words(pair.text)], self.options.relevance_threshold,
                        ("relevant", "irrelevant"), "query")


def _verdict(
    target: frozenset[str], sources: list[frozenset[str]], threshold: float, labels: tuple[str, str], what: str
) -> Verdict:
    """Fraction of ``target``'s words found in the best of ``sources``, as a verdict."""
    if not target:
        return Verdict.model_construct(score=None, label=None, status=Status.SKIPPED,
                                       reason=f"the {what} has no words", rationale=None, usage=None)
    best = max((len(target & source) for source in sources), default=0) / len(target)
    return Verdict.model_construct(score=best, label=labels[0] if best > threshold else labels[1],
                                   status=Status.OK, reason=None, rationale=None, usage=None)
