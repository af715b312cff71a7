"""Put a run next to its qrels: which topics are evaluated, and each retrieved row's grade.

trec_eval evaluates the topics that have judgements and retrieved documents; with ``complete`` (its ``-c``)
every judged topic counts and one missing from the run scores 0. Topics only in the run are ignored, and so
are topics whose judgement list is empty. Topic indices follow the run's order of first appearance (so a run
already grouped by topic needs no sorting); judged-only topics come after them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter, methodcaller
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.errors import DataError
from ragjudge.retrieval.data import Qrels, Run
from ragjudge.retrieval.join import match_judgements
from ragjudge.retrieval.ranking import DocsFn, FloatArray, IntArray

__all__ = ["Aligned", "align", "align_mappings"]


@dataclass(frozen=True)
class Aligned:
    """Retrieved rows with their grades (NaN when unjudged), plus the judgements, for the evaluated topics."""

    topic_ids: list[str]
    topic: IntArray
    score: FloatArray
    rel: FloatArray
    docs: DocsFn
    judged: tuple[IntArray, FloatArray]


def align(qrels: Qrels, run: Run, *, complete: bool = False) -> Aligned:
    """Evaluated topics and graded rows of ``run`` against ``qrels`` (see the module docstring for which
    topics)."""
    if qrels.mapping is not None and run.mapping is not None:
        judged = [t for t, docs in qrels.mapping.items() if docs]
        aligned = align_mappings(qrels.mapping, run.mapping, _evaluated(list(run.mapping), judged, complete))
    else:
        aligned = _align_columns(qrels, run, complete)
    if np.isnan(aligned.score).any():
        raise DataError("a retrieved document has a NaN score", path=run.source, field="score")
    return aligned


def _evaluated(run_topics: list[str], judged_topics: list[str], complete: bool) -> list[str]:
    judged = set(judged_topics)
    topics = [t for t in run_topics if t in judged]
    if complete:
        present = set(run_topics)
        topics += [t for t in judged_topics if t not in present]
    return topics


def align_mappings(qrels: Mapping[str, Mapping[Any, float]], run: Mapping[str, Mapping[Any, float]],
                   topics: list[str]) -> Aligned:
    """Align dicts on exactly ``topics`` (each must be a key of ``qrels``; absent from ``run`` means nothing
    retrieved). Every loop over documents runs inside ``map``/``chain``/``np.fromiter``, in C."""
    empty: Mapping[Any, float] = {}
    ranked = list(map(run.get, topics, repeat(empty)))
    judged = list(map(qrels.__getitem__, topics))
    sizes, score = _flatten(ranked)
    # For each topic, map(judgements.get, ranked documents, repeat(nan)): the grade of each retrieved document.
    grades = chain.from_iterable(map(map, map(attrgetter("get"), judged), ranked, repeat(repeat(np.nan))))
    rel = np.fromiter(grades, dtype=np.float64, count=len(score))
    judged_sizes, judged_rel = _flatten(judged)
    cache: list[npt.NDArray[np.object_]] = []

    def docs(rows: IntArray) -> npt.NDArray[Any]:
        if not cache:
            cache.append(np.fromiter(chain.from_iterable(ranked), dtype=object, count=len(score)))
        return cache[0][rows]

    index = np.arange(len(topics), dtype=np.int64)
    judged_topic = np.repeat(index, judged_sizes)
    return Aligned(topics, np.repeat(index, sizes), score, rel, docs, (judged_topic, judged_rel))


def _flatten(tables: list[Mapping[Any, float]]) -> tuple[IntArray, FloatArray]:
    """Each table's size, and all their values in one array."""
    sizes = np.fromiter(map(len, tables), dtype=np.int64, count=len(tables))
    values = chain.from_iterable(map(methodcaller("values"), tables))
    return sizes, np.fromiter(values, dtype=np.float64, count=int(sizes.sum()))


def _align_columns(qrels: Qrels, run: Run, complete: bool) -> Aligned:
    q, r = qrels.rows, run.rows
    has_judgements = np.bincount(q.topic, minlength=len(q.topic_ids)) > 0
    topics = _evaluated(r.topic_ids.tolist(), q.topic_ids[has_judgements].tolist(), complete)
    run_map, qrels_map = (_positions_in(topics, ids.tolist()) for ids in (r.topic_ids, q.topic_ids))
    run_topic, run_doc, score = _rows(_renumber(run_map, r.topic), r.doc, r.value)
    qrels_topic, qrels_doc, qrels_value = _rows(_renumber(qrels_map, q.topic), q.doc, q.value)
    names = np.array(topics, dtype=object)
    match = match_judgements(run_topic, run_doc, qrels_topic, qrels_doc, names, (qrels.source, run.source))
    rel = np.full(len(match), np.nan)
    found = match >= 0
    rel[found] = qrels_value[match[found]]
    return Aligned(topics, run_topic, score, rel, run_doc.__getitem__, (qrels_topic, qrels_value))


def _positions_in(topics: list[str], ids: list[str]) -> IntArray:
    """Each id's index in ``topics``, -1 when absent."""
    position = dict(zip(topics, range(len(topics)), strict=True))
    return np.fromiter(map(position.get, ids, repeat(-1)), dtype=np.int64, count=len(ids))


def _renumber(mapping: IntArray, topic: IntArray) -> IntArray:
    """``mapping[topic]``, or ``topic`` itself when the mapping is the identity (no 10M-row copy)."""
    if np.array_equal(mapping, np.arange(len(mapping))):
        return topic
    return mapping[topic]


def _rows(topic: IntArray, doc: npt.NDArray[Any], value: FloatArray
          ) -> tuple[IntArray, npt.NDArray[Any], FloatArray]:
    """The rows whose topic is evaluated (topic >= 0); no copies when that is all of them."""
    keep = topic >= 0
    if keep.all():
        return topic, doc, value
    return topic[keep], doc[keep], value[keep]
