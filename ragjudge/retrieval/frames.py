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
from ragjudge.retrieval._tokens import to_bytes_array
from ragjudge.retrieval.data import Columns, Qrels, Run
from ragjudge.retrieval.trec_files import topic_codes

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
    topic_col, doc_col, value_col = (_pick(df, *spec) for spec in (topic, doc, value))
    try:
        values = df[value_col].to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("values are not numbers", path="DataFrame", field=value_col) from None
    topic_ids, topic_codes = _topics(df[topic_col], topic_col)
    return Columns(topic_ids, topic_codes, _ids(df[doc_col], doc_col), values)


def _topics(series: Any, column: str) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64]]:
    """Topic ids (str, first-appearance order) and each row's index into them. Rows usually come grouped by
    topic, so only the first row of each group is looked up."""
    series = _as_strings(series, column)
    chunks = _arrow_chunks(series)
    if chunks is None:
        import pandas as pd  # already imported: series is a pandas Series

        codes, uniques = pd.factorize(series.to_numpy(dtype=object), sort=False)
        return np.array([str(t) for t in uniques], dtype=object), codes.astype(np.int64)
    heads, names, rows = [], [], 0
    for offsets, data in chunks:
        chunk_heads = _arrow_changes(offsets, data)
        heads.append(chunk_heads + rows)
        names.append(to_bytes_array(data, offsets[chunk_heads], offsets[chunk_heads + 1]))
        rows += len(offsets) - 1
    return topic_codes(heads, names, rows)


def _arrow_changes(offsets: npt.NDArray[np.integer[Any]], data: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Rows whose string may differ from the previous row's (never missing a change): equal lengths and equal
    first 8 bytes mean equal strings for ids of up to 8 bytes; longer ids are compared whole."""
    starts, lengths = offsets[:-1], np.diff(offsets)
    change = np.ones(len(lengths), dtype=bool)
    if len(lengths) and int(lengths.max()) <= 8:
        first8 = to_bytes_array(data, starts, np.minimum(starts + 8, len(data))).astype("S8").view(np.uint64)
        change[1:] = (first8[1:] != first8[:-1]) | (lengths[1:] != lengths[:-1])
    elif len(lengths):
        ids = to_bytes_array(data, starts, offsets[1:])
        change[1:] = ids[1:] != ids[:-1]
    return np.flatnonzero(change).astype(np.int64)


def _ids(series: Any, column: str) -> npt.NDArray[Any]:
    """Ids as bytes (from Arrow strings, or ids that are not strings) or str objects."""
    series = _as_strings(series, column)
    chunks = _arrow_chunks(series)
    if chunks is None:
        return series.to_numpy(dtype=object)  # type: ignore[no-any-return]
    parts = [to_bytes_array(data, offsets[:-1], offsets[1:]) for offsets, data in chunks]
    return np.concatenate(parts) if len(parts) != 1 else parts[0]


def _as_strings(series: Any, column: str) -> Any:
    """The column with no missing value, as strings (numbers become their decimal text)."""
    if series.isna().any():
        raise DataError("missing id", path="DataFrame", field=column)
    return series if str(series.dtype) in ("str", "string", "object") else series.astype(str)


def _arrow_chunks(series: Any) -> list[tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.uint8]]] | None:
    """Each chunk of an Arrow-backed string column: its offsets and UTF-8 bytes (views of its buffers, no
    copy); None for a column that is not Arrow-backed."""
    if not hasattr(series.array, "__arrow_array__"):
        return None
    chunked = series.array.__arrow_array__()
    out: list[tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.uint8]]] = []
    for array in getattr(chunked, "chunks", [chunked]):
        _, offsets_buffer, data_buffer = array.buffers()
        kind = np.int64 if "large" in str(array.type) else np.int32
        offsets = np.frombuffer(offsets_buffer, dtype=kind)[array.offset : array.offset + len(array) + 1]
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
        out.append((offsets, data))
    return out
