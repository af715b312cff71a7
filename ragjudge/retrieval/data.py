"""Qrels and runs as columns: one row per (topic, document), whatever they were read from.

A :class:`Qrels` holds grades, a :class:`Run` holds scores (plus trec_eval's run name). Both are built from
TREC files (:mod:`ragjudge.retrieval.trec_files`), from nested dicts ``{topic: {doc: value}}`` (kept as
given, so dict-to-dict evaluation needs no conversion), or from pandas DataFrames
(:mod:`ragjudge.retrieval.frames`). Document ids are str or, from files, bytes; topic ids are always str."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.errors import DataError

__all__ = ["Columns", "Qrels", "Run", "Nested"]

Nested = Mapping[Any, Mapping[Any, float]]


@dataclass(frozen=True, eq=False)
class Columns:
    """Rows as arrays: ``topic`` indexes ``topic_ids``; ``doc`` is an array of bytes (S) or str (object)."""

    topic_ids: npt.NDArray[np.object_]
    topic: npt.NDArray[np.int64]
    doc: npt.NDArray[Any]
    value: npt.NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.topic)


@dataclass(frozen=True, eq=False)
class _Table:
    """Rows kept as given: columns (from files and DataFrames) or a nested dict (built into columns on demand)."""

    columns: Columns | None = None
    mapping: Mapping[str, Mapping[Any, float]] | None = None
    source: str | None = None
    name: str | None = None
    _cache: dict[str, Columns] = field(default_factory=dict, repr=False)

    @property
    def rows(self) -> Columns:
        """The rows as columns (built once from a dict source)."""
        if self.columns is not None:
            return self.columns
        if "rows" not in self._cache:
            self._cache["rows"] = _columns_from_mapping(self.mapping or {})
        return self._cache["rows"]

    @property
    def topic_ids(self) -> list[str]:
        """Topic ids present, in the order first seen."""
        if self.mapping is not None:
            return list(self.mapping)
        return list(self.rows.topic_ids)

    def as_mapping(self) -> Mapping[str, Mapping[Any, float]]:
        """``{topic: {doc: value}}`` (doc ids from files stay bytes)."""
        if self.mapping is None:
            rows = self.rows
            out: dict[str, dict[Any, float]] = {str(t): {} for t in rows.topic_ids}
            triples = zip(rows.topic_ids[rows.topic], rows.doc.tolist(), rows.value.tolist(), strict=True)
            for t, d, v in triples:
                out[t][d] = v
            return out
        return self.mapping


class Qrels(_Table):
    """Relevance judgements: a grade per (topic, document). Grades < 0 are judged non-relevant."""

    @classmethod
    def from_dict(cls, qrels: Nested) -> Qrels:
        """From ``{topic: {doc: grade}}``; topic ids become str."""
        return cls(mapping=_str_topics(qrels, "qrels"))


class Run(_Table):
    """Retrieval results: a score per (topic, document); ``name`` is trec_eval's runid."""

    @classmethod
    def from_dict(cls, run: Nested, name: str | None = None) -> Run:
        """From ``{topic: {doc: score}}``; topic ids become str."""
        return cls(mapping=_str_topics(run, "run"), name=name)


def _str_topics(data: Nested, what: str) -> dict[str, Mapping[Any, float]]:
    if not isinstance(data, Mapping):
        raise DataError(f"{what} must be a mapping {{topic: {{doc: value}}}}, got {type(data).__name__}")
    out = {str(topic): docs for topic, docs in data.items()}
    if len(out) != len(data):
        raise DataError(f"{what} has topic ids that are equal as strings (e.g. 1 and '1')")
    return out


def _columns_from_mapping(mapping: Mapping[str, Mapping[Any, float]]) -> Columns:
    docs = list(mapping.values())
    sizes = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    total = int(sizes.sum())
    return Columns(
        topic_ids=np.array(list(mapping), dtype=object),
        topic=np.repeat(np.arange(len(docs), dtype=np.int64), sizes),
        doc=np.fromiter(chain.from_iterable(docs), dtype=object, count=total),
        value=np.fromiter(chain.from_iterable(d.values() for d in docs), dtype=np.float64, count=total),
    )
