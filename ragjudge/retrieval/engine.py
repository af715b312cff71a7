"""How each measure is computed: one vectorised pass over all topics' ranked lists, no per-topic Python loop.

Every function takes a :class:`~ragjudge.retrieval.ranking.Ranked` and returns one float64 value per topic,
with trec_eval's definitions: P@k divides by k, recall by the topic's number of relevant documents, AP (and
trec_eval's map_cut) sums precision at each relevant rank within the cutoff and divides by that same number,
nDCG discounts gain by log2(rank + 1) and normalises by the ideal ranking of all judged documents of positive
gain. A topic without relevant documents gets 0. Sums run in rank order (``np.bincount``), as trec_eval's
loops do."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ragjudge.retrieval.measures import Measure
from ragjudge.retrieval.ranking import FloatArray, IntArray, Ranked, topic_starts

__all__ = ["compute"]

_Fn = Callable[["_Topics", Measure, float], FloatArray]


class _Topics:
    """A Ranked plus the per-threshold quantities several measures share, each computed once."""

    def __init__(self, ranked: Ranked) -> None:
        self.r = ranked
        self.n = ranked.n_topics
        self._relevant: dict[float, np.ndarray] = {}
        self._num_rel: dict[float, FloatArray] = {}

    def relevant(self, level: float) -> np.ndarray:
        """Per retrieved row: judged with a grade >= level (NaN and negative grades never are)."""
        if level not in self._relevant:
            self._relevant[level] = self.r.rel >= max(level, 0.0)
        return self._relevant[level]

    def num_rel(self, level: float) -> FloatArray:
        """Per topic: number of judged documents with grade >= level."""
        if level not in self._num_rel:
            hits = self.r.judged_rel >= max(level, 0.0)
            self._num_rel[level] = self.count(self.r.judged_topic[hits])
        return self._num_rel[level]

    def count(self, topics: IntArray, weights: FloatArray | None = None) -> FloatArray:
        """Sum of ``weights`` (or count of rows) per topic."""
        return np.bincount(topics, weights=weights, minlength=self.n).astype(np.float64)

    def hits(self, level: float, cutoff: int | None) -> np.ndarray:
        """Rows that are relevant and within the cutoff."""
        rel = self.relevant(level)
        return rel if cutoff is None else rel & (self.r.pos < cutoff)


def _ratio(num: FloatArray, den: FloatArray) -> FloatArray:
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _precision(t: _Topics, m: Measure, level: float) -> FloatArray:
    assert m.cutoff is not None
    return t.count(t.r.topic[t.hits(level, m.cutoff)]) / m.cutoff


def _recall(t: _Topics, m: Measure, level: float) -> FloatArray:
    return _ratio(t.count(t.r.topic[t.hits(level, m.cutoff)]), t.num_rel(level))


def _success(t: _Topics, m: Measure, level: float) -> FloatArray:
    return (t.count(t.r.topic[t.hits(level, m.cutoff)]) > 0).astype(np.float64)


def _num_ret(t: _Topics, m: Measure, level: float) -> FloatArray:
    return t.count(t.r.topic)


def _num_rel(t: _Topics, m: Measure, level: float) -> FloatArray:
    return t.num_rel(level)


def _num_rel_ret(t: _Topics, m: Measure, level: float) -> FloatArray:
    return t.count(t.r.topic[t.relevant(level)])


def _reciprocal_rank(t: _Topics, m: Measure, level: float) -> FloatArray:
    rows = np.flatnonzero(t.hits(level, m.cutoff))
    topics = t.r.topic[rows]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = topics[1:] != topics[:-1]  # rows are sorted by (topic, rank): the first hit per topic
    out = np.zeros(t.n, dtype=np.float64)
    out[topics[first]] = 1.0 / (t.r.pos[rows[first]] + 1.0)
    return out


def _average_precision(t: _Topics, m: Measure, level: float) -> FloatArray:
    relevant = t.relevant(level)
    running = np.cumsum(relevant, dtype=np.int64)
    starts = topic_starts(t.r.topic, t.n)
    before = np.concatenate(([0], running))[starts]  # relevant rows before each topic's first row
    rows = np.flatnonzero(t.hits(level, m.cutoff))
    topics = t.r.topic[rows]
    precision = (running[rows] - before[topics]) / (t.r.pos[rows] + 1.0)
    return _ratio(t.count(topics, precision), t.num_rel(level))


def _r_precision(t: _Topics, m: Measure, level: float) -> FloatArray:
    num_rel = t.num_rel(level)
    rows = t.relevant(level) & (t.r.pos < num_rel[t.r.topic])
    return _ratio(t.count(t.r.topic[rows]), num_rel)


def _gain(grades: FloatArray, kind: str) -> FloatArray:
    positive = np.where(grades > 0, grades, 0.0)  # NaN and negative grades give no gain
    return positive if kind == "linear" else np.exp2(positive) - 1.0


def _ndcg(t: _Topics, m: Measure, level: float) -> FloatArray:
    r = t.r
    rows = np.flatnonzero(r.rel > 0) if m.cutoff is None else np.flatnonzero((r.rel > 0) & (r.pos < m.cutoff))
    dcg = t.count(r.topic[rows], _gain(r.rel[rows], m.gain) / np.log2(r.pos[rows] + 2.0))
    return _ratio(dcg, _ideal_dcg(r, m))


def _ideal_dcg(r: Ranked, m: Measure) -> FloatArray:
    """DCG of each topic's best ordering of its judged documents of positive grade."""
    positive = r.judged_rel > 0
    topics, gains = r.judged_topic[positive], _gain(r.judged_rel[positive], m.gain)
    order = np.lexsort((-gains, topics))
    topics, gains = topics[order], gains[order]
    pos = np.arange(len(topics), dtype=np.int64) - topic_starts(topics, r.n_topics)[topics]
    if m.cutoff is not None:
        keep = pos < m.cutoff
        topics, gains, pos = topics[keep], gains[keep], pos[keep]
    return np.bincount(topics, weights=gains / np.log2(pos + 2.0), minlength=r.n_topics).astype(np.float64)


_FUNCTIONS: dict[str, _Fn] = {
    "P": _precision, "R": _recall, "Success": _success, "RR": _reciprocal_rank, "AP": _average_precision,
    "Rprec": _r_precision, "nDCG": _ndcg, "NumRet": _num_ret, "NumRel": _num_rel, "NumRelRet": _num_rel_ret,
}


def compute(ranked: Ranked, measures: list[Measure], relevance_level: float = 1.0
            ) -> dict[Measure, FloatArray]:
    """Each measure's per-topic values over ``ranked``; ``relevance_level`` applies unless a measure sets
    ``rel``."""
    topics = _Topics(ranked)
    out: dict[Measure, FloatArray] = {}
    for measure in measures:
        level = relevance_level if measure.rel is None else measure.rel
        out[measure] = _FUNCTIONS[measure.name](topics, measure, float(level))
    return out
