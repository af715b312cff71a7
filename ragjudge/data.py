"""Reading samples from JSONL, JSON or CSV files, with errors that name the file, the line and the field.

Field names may be ragjudge's, RAGAS's (``user_input``, ``retrieved_contexts``, ``response``, ``reference``) or
the older ones (``question``, ``contexts``, ``answer``, ``ground_truth``). A human ``label`` is kept on the
sample for meta-evaluation. Other unknown fields go to ``meta`` (named once in a warning), so nothing a user
attached is lost. In CSV, list fields (``contexts``, ``retrieved_ids``, ``relevant_ids``) hold a JSON list or
one plain string, and ``relevance`` a JSON object.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragjudge.errors import DataError
from ragjudge.records import Sample

__all__ = ["read_samples", "sample_from_record"]

log = logging.getLogger(__name__)

_ALIASES = {
    "question", "user_input", "query", "contexts", "retrieved_contexts", "answer", "response", "reference",
    "ground_truth", "retrieved_ids", "retrieved_context_ids", "relevant_ids", "reference_context_ids",
}
_KNOWN = set(Sample.model_fields) | _ALIASES
_CSV_JSON_FIELDS = {"contexts", "retrieved_contexts", "retrieved_ids", "retrieved_context_ids", "relevant_ids",
                    "reference_context_ids", "relevance", "meta"}


def sample_from_record(record: Any, *, path: str | Path | None = None, line: int | None = None,
                       unknown: set[str] | None = None) -> Sample:
    """Validate one record into a :class:`Sample`; problems raise :class:`DataError` naming the field."""
    if not isinstance(record, dict):
        raise DataError(f"expected a JSON object, got {type(record).__name__}", path=path, line=line)
    extra = {k: record[k] for k in record if k not in _KNOWN}
    fields = {k: v for k, v in record.items() if k in _KNOWN}
    if extra:
        if unknown is not None:
            unknown.update(extra)
        fields["meta"] = {**extra, **(fields.get("meta") or {})}
    try:
        return Sample.model_validate(fields)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        raise DataError(first["msg"], path=path, line=line, field=field) from None


def _jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as fh:
        for number, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                yield number, json.loads(text)
            except json.JSONDecodeError as error:
                raise DataError(f"invalid JSON: {error.msg} (column {error.colno})", path=path,
                                line=number) from None


def _json(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise DataError(f"invalid JSON: {error.msg} (column {error.colno})", path=path, line=error.lineno) from None
    if isinstance(data, dict) and "samples" in data:
        data = data["samples"]
    if not isinstance(data, list):
        raise DataError("expected a JSON list of records (or an object with a 'samples' list)", path=path)
    # A JSON array has no per-record line; the record's 1-based position stands in for it.
    yield from enumerate(data, start=1)


def _csv_cell(name: str, value: str, path: Path, line: int) -> Any:
    if name not in _CSV_JSON_FIELDS:
        return value
    text = value.strip()
    if text.startswith(("[", "{")):
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise DataError(f"invalid JSON in cell: {error.msg}", path=path, line=line, field=name) from None
    return [value] if text else []


def _csv(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            line = reader.line_num
            if None in row:
                raise DataError("more cells than header columns", path=path, line=line)
            yield line, {k: _csv_cell(k, v, path, line) for k, v in row.items() if v is not None and v != ""}


_READERS = {".jsonl": _jsonl, ".ndjson": _jsonl, ".json": _json, ".csv": _csv}


def read_samples(path: str | Path) -> list[Sample]:
    """All samples of a ``.jsonl``, ``.json`` or ``.csv`` file, in file order."""
    path = Path(path)
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise DataError(f"unsupported file type {path.suffix!r}; use .jsonl, .json or .csv", path=path)
    if not path.is_file():
        raise DataError("no such file", path=path)
    unknown: set[str] = set()
    samples: list[Sample] = []
    first_line: dict[str, int] = {}
    for line, record in reader(path):
        sample = sample_from_record(record, path=path, line=line, unknown=unknown)
        if sample.id is not None:
            if sample.id in first_line:
                raise DataError(f"duplicate id {sample.id!r} (first at line {first_line[sample.id]})",
                                path=path, line=line, field="id")
            first_line[sample.id] = line
        samples.append(sample)
    if unknown:
        log.warning("%s: fields kept in meta, not evaluated: %s", path, ", ".join(sorted(unknown)))
    return samples
