"""Qrels and runs from pandas DataFrames, without a row-by-row loop.

Column names default to the usual spellings (ir_measures' ``query_id``/``doc_id``/``score``/``relevance``,
ranx's ``q_id``, trec's ``qid``/``docno``/``rel``...) and can be given explicitly. Arrow-backed string
columns (pandas' default ``str`` dtype) are read straight from their Arrow buffers into byte arrays; other
columns go through numpy object arrays. pandas is never imported here: a DataFrame argument means it already
is."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.errors import DataError
from ragjudge.retrieval._tokens import PAD, to_bytes_array
from ragjudge.retrieval.data import Columns, Qrels, Run

__all__ = ["is_dataframe", "qrels_from_dataframe", "run_from_dataframe"]

_TOPIC = ("query_id", "qid", "q_id", "topic_id", "topic", "query")
_DOC = ("doc_id", "docno", "docid", "doc", "passage_id", "pid")
_REL = ("relevance", "rel", "grade", "label", "judgement", "judgment")
_SCORE = ("score", "sim", "similarity")


def is_dataframe(value: object) -> bool:
    """True for a pandas DataFrame (checked by name, so pandas is not imported)."""
    return type(value).__name__ == "DataFrame" and type(value).__module__.startswith("pandas")


def qrels_from_dataframe(df: Any, *, topic: str | None = None, doc: str | None = None,
                         rel: str | None = None) -> Qrels:
    """Qrels from a DataFrame with topic, document and grade columns."""
    return Qrels(columns=_columns(df, (topic, _TOPIC), (doc, _DOC), (rel, _REL)), source="DataFrame")


def run_from_dataframe(df: Any, *, topic: str | None = None, doc: str | None = None, score: str | None = None,
                       name: str | None = None) -> Run:
    """A run from a DataFrame with topic, document and score columns (row order does not matter)."""
    columns = _columns(df, (topic, _TOPIC), (doc, _DOC), (score, _SCORE))
    return Run(columns=columns, source="DataFrame", name=name)


def _pick(df: Any, wanted: str | None, candidates: tuple[str, ...]) -> str:
    names = [str(c) for c in df.columns]
    if wanted is not None:
        if wanted not in names:
            raise DataError(f"no column {wanted!r}; columns: {', '.join(names)}", path="DataFrame",
                            field=wanted)
        return wanted
    for name in candidates:
        if name in names:
            return name
    raise DataError(f"none of the columns {', '.join(candidates)} found; columns: {', '.join(names)}",
                    path="DataFrame", field=candidates[0])


def _columns(df: Any, topic: tuple[str | None, tuple[str, ...]], doc: tuple[str | None, tuple[str, ...]],
             value: tuple[str | None, tuple[str, ...]]) -> Columns:
    import pandas as pd  # already imported: df is a DataFrame

    topic_col, doc_col, value_col = (_pick(df, *spec) for spec in (topic, doc, value))
    codes, uniques = pd.factorize(df[topic_col], sort=False)
    if len(codes) and int(codes.min()) < 0:
        raise DataError("missing topic id", path="DataFrame", field=topic_col)
    try:
        values = df[value_col].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("values are not numbers", path="DataFrame", field=value_col) from None
    topic_ids = np.array([str(t) for t in uniques], dtype=object)
    return Columns(topic_ids, codes.astype(np.int64), _doc_ids(df[doc_col], doc_col), values)


def _doc_ids(series: Any, column: str) -> npt.NDArray[Any]:
    """Document ids as bytes (from Arrow strings, or ids that are not strings) or str objects."""
    if series.isna().any():
        raise DataError("missing document id", path="DataFrame", field=column)
    if str(series.dtype) not in ("str", "string", "object"):
        series = series.astype(str)
    if hasattr(series.array, "__arrow_array__"):
        return _arrow_bytes(series.array.__arrow_array__())
    return series.to_numpy(dtype=object)  # type: ignore[no-any-return]


def _arrow_bytes(chunked: Any) -> npt.NDArray[np.bytes_]:
    """An Arrow string column as a numpy ``S`` array, gathered from its offsets and data buffers."""
    array = chunked.combine_chunks() if hasattr(chunked, "combine_chunks") else chunked
    _, offsets_buffer, data_buffer = array.buffers()
    kind = np.int64 if "large" in str(array.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=kind)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    padded = np.concatenate((data, np.zeros(PAD, dtype=np.uint8)))
    starts = offsets[:-1].astype(np.int64)
    return to_bytes_array(padded, starts, offsets[1:].astype(np.int64))
