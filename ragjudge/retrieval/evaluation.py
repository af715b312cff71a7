"""Evaluate a run against qrels: trec_eval's numbers, per topic and overall, for any measures at once.

>>> result = evaluate("qrels.test", "results.test", ["nDCG@10", "AP", "P@5"])   # doctest: +SKIP
>>> result.mean("nDCG@10"), result["AP"][:3], result.topics[:3]                # doctest: +SKIP

Inputs can be file paths, :class:`Qrels`/:class:`Run`, nested dicts ``{topic: {doc: value}}`` or pandas
DataFrames. Options follow trec_eval: ``relevance_level`` (``-l``), ``complete`` (``-c``), ``max_docs``
(``-M``) and ``judged_only`` (``-J``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragjudge.errors import DataError
from ragjudge.retrieval.align import align
from ragjudge.retrieval.data import Qrels, Run
from ragjudge.retrieval.engine import compute
from ragjudge.retrieval.frames import is_dataframe, qrels_from_dataframe, run_from_dataframe
from ragjudge.retrieval.measures import Measure, parse_measure
from ragjudge.retrieval.ranking import FloatArray, build_ranked
from ragjudge.retrieval.trec_files import read_qrels, read_run

__all__ = ["Evaluation", "as_qrels", "as_run", "evaluate"]


@dataclass(frozen=True)
class Evaluation:
    """Per-topic values of each measure (``values[m][i]`` is topic ``topics[i]``), topics in trec_eval's
    order."""

    topics: tuple[str, ...]
    values: Mapping[Measure, FloatArray]
    run_name: str | None = None

    def __getitem__(self, measure: str | Measure) -> FloatArray:
        """Per-topic values of one measure."""
        return self.values[parse_measure(measure)]

    @property
    def measures(self) -> list[Measure]:
        """The measures computed, in the order asked."""
        return list(self.values)

    def mean(self, measure: str | Measure) -> float:
        """trec_eval's "all" value: the mean over topics (the sum, for the num_* counts); 0.0 with no topics.
        """
        m = parse_measure(measure)
        values = self.values[m]
        if m.is_count:
            return float(values.sum())
        return float(values.sum() / len(values)) if len(values) else 0.0

    def means(self) -> dict[Measure, float]:
        """:meth:`mean` of every measure."""
        return {m: self.mean(m) for m in self.values}

    def per_topic(self) -> dict[str, dict[str, float]]:
        """``{topic: {measure notation: value}}``."""
        columns = {str(m): v.tolist() for m, v in self.values.items()}
        return {t: {name: column[i] for name, column in columns.items()} for i, t in enumerate(self.topics)}


def as_qrels(qrels: Any) -> Qrels:
    """Qrels from a :class:`Qrels`, a file path, a dict ``{topic: {doc: grade}}`` or a DataFrame."""
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels)
    if is_dataframe(qrels):
        return qrels_from_dataframe(qrels)
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    raise DataError(f"cannot read qrels from a {type(qrels).__name__}")


def as_run(run: Any) -> Run:
    """A run from a :class:`Run`, a file path, a dict ``{topic: {doc: score}}`` or a DataFrame."""
    if isinstance(run, Run):
        return run
    if isinstance(run, (str, os.PathLike)):
        return read_run(run)
    if is_dataframe(run):
        return run_from_dataframe(run)
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    raise DataError(f"cannot read a run from a {type(run).__name__}")


def evaluate(
    qrels: Any,
    run: Any,
    measures: Iterable[str | Measure] | str | Measure,
    *,
    relevance_level: float = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
) -> Evaluation:
    """Evaluate ``run`` against ``qrels`` on ``measures`` (notation ``nDCG@10`` or trec_eval names
    ``ndcg_cut_10``).

    ``relevance_level``: the lowest grade that counts as relevant (trec_eval ``-l``, default 1).
    ``complete``: judged topics missing from the run count, with 0 (``-c``). ``max_docs``: only the first N
    ranked documents count (``-M``). ``judged_only``: drop unjudged documents before ranking (``-J``). Topics
    come sorted as trec_eval prints them."""
    wanted = _measures(measures)
    if relevance_level < 0:
        raise ValueError(f"relevance_level must be >= 0, got {relevance_level}")
    if max_docs is not None and max_docs < 0:
        raise ValueError(f"max_docs must be >= 0, got {max_docs}")
    the_run = as_run(run)
    aligned = align(as_qrels(qrels), the_run, complete=complete)
    ranked = build_ranked(len(aligned.topic_ids), aligned.topic, aligned.score, aligned.rel, aligned.docs,
                          aligned.judged, max_docs=max_docs, judged_only=judged_only)
    values = compute(ranked, wanted, relevance_level)
    ids = aligned.topic_ids
    index = np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    topics = tuple(np.array(ids, dtype=object)[index].tolist())
    return Evaluation(topics, {m: v[index] for m, v in values.items()}, the_run.name)


def _measures(measures: Iterable[str | Measure] | str | Measure) -> list[Measure]:
    items: Sequence[str | Measure] = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    parsed = list(dict.fromkeys(parse_measure(m) for m in items))
    if not parsed:
        raise ValueError("no measures to compute")
    return parsed
