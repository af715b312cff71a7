"""The ``overlap`` judge: the reference article's word-overlap entailment check, batched.

``support``: the score is the largest fraction of the claim's words found in any one premise; the claim is
``supported`` when that fraction exceeds ``threshold`` (0.7, as in the article's ``check_entailment_simple``).
``relevance``: the score is the fraction of the query's words found in the text; ``relevant`` when it exceeds
``relevance_threshold`` (0.0: any shared word, as in the article's keyword context precision).

With ``lowercase=True, punctuation="keep", stop_words="none"`` the support verdicts are exactly the article's.
The default strips punctuation, so "Paris." matches "Paris" (on BEGIN this lifts AUC from 0.80 to 0.86).
A claim or query with no words left after normalisation gets a ``skipped`` verdict saying so.

Speed: every distinct text of a batch is split once, and verdicts are immutable, so equal (score, label)
verdicts are one shared object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from ragjudge.judges.base import Judge, JudgeOptions
from ragjudge.judges.text import Normaliser, StopWords
from ragjudge.records import Pair, Status, Task, Verdict, trusted

__all__ = ["OverlapJudge"]

_LABELS = {Task.SUPPORT: ("supported", "unsupported"), Task.RELEVANCE: ("relevant", "irrelevant")}


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
        """Score every pair with set intersections over word sets computed once per distinct text."""
        opts = self.options
        norm = Normaliser(lowercase=opts.lowercase, punctuation=opts.punctuation, stop_words=opts.stop_words)
        memo: dict[tuple[float, Task], Verdict] = {}
        out = []
        for pair in pairs:
            if pair.task is Task.SUPPORT:
                target, sources, threshold = norm.words(pair.text), pair.premises, opts.threshold
            else:
                target, sources, threshold = norm.words(pair.query), (pair.text,), opts.relevance_threshold
            if not target:
                what = "claim" if pair.task is Task.SUPPORT else "query"
                out.append(Verdict.skipped(f"the {what} has no words"))
                continue
            best = max(map(len, map(target.intersection, norm.many(sources))), default=0) / len(target)
            verdict = memo.get((best, pair.task))
            if verdict is None:
                label = _LABELS[pair.task][0 if best > threshold else 1]
                verdict = memo[(best, pair.task)] = trusted(
                    Verdict, score=best, label=label, status=Status.OK, reason=None, rationale=None, usage=None
                )
            out.append(verdict)
        return out
