"""Ranked lists for all topics at once: retrieved rows sorted the way trec_eval sorts them, with their grades.

trec_eval ignores the rank column: within a topic, documents are ordered by score descending, ties broken by
docno in descending string (byte) order. :func:`build_ranked` does that for every topic with a few numpy
sorts (none when the rows already arrive in that order), then applies trec_eval's ``-M`` (keep the first M)
and ``-J`` (keep judged documents only, re-ranked) options. Grades are NaN for documents absent from the
qrels; negative grades mean "judged-unjudged" and, like NaN, never count as relevant."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["DocsFn", "Ranked", "build_ranked", "topic_starts"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: The document ids (str or bytes) of the given rows, to break score ties; called only when there are ties.
DocsFn = Callable[[IntArray], npt.NDArray[np.generic]]


@dataclass(frozen=True)
class Ranked:
    """Every topic's ranked list, as flat arrays sorted by (topic, rank).

    ``topic``/``pos``/``rel`` describe retrieved rows (pos is the 0-based rank);
    ``judged_topic``/``judged_rel`` hold each topic's judgements with grade >= 0 (what trec_eval counts for
    num_rel and the ideal nDCG ranking)."""

    n_topics: int
    topic: IntArray
    pos: IntArray
    rel: FloatArray
    judged_topic: IntArray
    judged_rel: FloatArray

    @property
    def num_ret(self) -> IntArray:
        """Number of retrieved documents per topic."""
        return np.bincount(self.topic, minlength=self.n_topics).astype(np.int64)


def topic_starts(topic: IntArray, n_topics: int) -> IntArray:
    """Index of each topic's first row in ``topic`` (sorted ascending); empty topics get their insertion
    point."""
    return np.searchsorted(topic, np.arange(n_topics, dtype=np.int64)).astype(np.int64)


def build_ranked(
    n_topics: int,
    topic: IntArray,
    score: FloatArray,
    rel: FloatArray,
    docs: DocsFn,
    judged: tuple[IntArray, FloatArray],
    *,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> Ranked:
    """Sort retrieved rows per topic (score desc, docno desc), cut to ``max_docs`` and, with ``judged_only``,
    drop documents without a judgement >= 0 before ranking them again."""
    order = rank_order(topic, score, docs)
    if order is not None:
        topic, rel = topic[order], rel[order]
    pos = _positions(topic, n_topics)
    if max_docs is not None:
        keep = pos < max_docs
        topic, rel, pos = topic[keep], rel[keep], pos[keep]
    if judged_only:
        keep = rel >= 0  # False for NaN (not in qrels) and for negative grades
        topic, rel = topic[keep], rel[keep]
        pos = _positions(topic, n_topics)
    judged_topic, judged_rel = judged
    keep_judged = judged_rel >= 0
    return Ranked(n_topics, topic, pos, rel, judged_topic[keep_judged], judged_rel[keep_judged])


def rank_order(topic: IntArray, score: FloatArray, docs: DocsFn) -> IntArray | None:
    """Permutation sorting rows by topic, score descending, docno descending; None when already in order."""
    order: IntArray | None = None
    same = topic[1:] == topic[:-1]
    if bool((topic[1:] < topic[:-1]).any()) or bool((same & (score[1:] > score[:-1])).any()):
        order = np.lexsort((-score, topic)).astype(np.int64)
        topic, score = topic[order], score[order]
        same = topic[1:] == topic[:-1]
    tied = same & (score[1:] == score[:-1])
    if not tied.any():
        return order
    if order is None:
        order = np.arange(len(topic), dtype=np.int64)
    return _break_ties(order, tied, docs)


def _break_ties(order: IntArray, tied: npt.NDArray[np.bool_], docs: DocsFn) -> IntArray:
    """Within each run of equal (topic, score), order rows by docno descending, as trec_eval's qsort does."""
    in_tie = np.zeros(len(order), dtype=bool)
    in_tie[:-1] |= tied
    in_tie[1:] |= tied
    where = np.flatnonzero(in_tie)
    # A run of ties starts where a row is tied with the next one but not with the previous one.
    starts_run = np.ones(len(where), dtype=bool)
    starts_run[1:] = ~tied[where[1:] - 1]
    block = np.cumsum(starts_run)
    names = docs(order[where])
    _, name_rank = np.unique(names, return_inverse=True)
    within = np.lexsort((-name_rank.astype(np.int64), block))
    order = order.copy()
    order[where] = order[where][within]
    return order


def _positions(topic: IntArray, n_topics: int) -> IntArray:
    pos = np.arange(len(topic), dtype=np.int64)
    pos -= topic_starts(topic, n_topics)[topic]
    return pos
