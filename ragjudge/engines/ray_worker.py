"""What runs inside a Ray worker: records of an Arrow batch -> samples -> :func:`score_batch` -> outcomes.

Nothing here imports Ray, so it is tested like any other code. Workers rebuild metrics and judges from the run
configuration (judge names and options), never from pickled live models: a model judge loads its model once
per actor (:class:`ScoreActor`), a cheap judge once per worker process (:func:`score_task`).

A batch never loses a sample. A record that does not validate, or a sample whose scoring raised even when
scored alone, gets a ``failed`` outcome for every metric with the reason. Worker deaths are Ray's to handle:
the task is rerun (``max_retries``) or the actor restarted and its call retried (``max_restarts``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from ragjudge.config import build_metrics, parse_config
from ragjudge.data import sample_from_record
from ragjudge.errors import DataError
from ragjudge.evaluate import score_batch
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.records import Sample, Status, Usage

__all__ = [
    "ScoreActor", "decode_outcome", "drop_blank_lines", "encode_outcome", "records_of", "score_records",
    "score_task",
]

LINES = "lines"  # a batch with one ``text`` column of JSON lines (read_text, in-memory samples)
COLUMNS = "columns"  # a batch whose columns are the record's fields (Parquet)


def encode_outcome(outcome: Outcome) -> dict[str, Any]:
    """A JSON-able form of ``outcome`` that :func:`decode_outcome` turns back into an equal outcome."""
    return {"score": outcome.score, "status": outcome.status.value, "reason": outcome.reason,
            "components": outcome.components,
            "usage": None if outcome.usage is None else outcome.usage.model_dump()}


def decode_outcome(data: dict[str, Any]) -> Outcome:
    """The outcome :func:`encode_outcome` encoded (floats survive JSON exactly)."""
    usage = data.get("usage")
    return Outcome(data["score"], Status(data["status"]), data["reason"], dict(data.get("components") or {}),
                   None if usage is None else Usage(**usage))


def _clean(record: dict[str, Any]) -> dict[str, Any]:
    """A Parquet row as a JSON record: nulls dropped (absent fields), map columns back to dicts."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if value is None:
            continue
        if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            value = dict(value)
        out[key] = value
    return out


def records_of(table: Any, fmt: str) -> list[Any]:
    """The records of an Arrow batch: parsed JSON lines (bad JSON kept as an error), or Parquet rows."""
    if fmt == COLUMNS:
        return [_clean(row) for row in table.to_pylist()]
    records: list[Any] = []
    for line in table.column("text").to_pylist():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            records.append(DataError(f"invalid JSON: {error.msg} (column {error.colno})"))
    return records


def drop_blank_lines(table: Any) -> Any:
    """The rows of a ``text`` batch that hold more than whitespace (the local reader skips the others)."""
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    return table.filter(pc.not_equal(pc.utf8_trim_whitespace(table.column("text")), ""))


def _sample(record: Any) -> Sample | str:
    """The record as a sample, or the reason it is not one."""
    if isinstance(record, Exception):
        return f"invalid record: {record}"
    try:
        return sample_from_record(record)
    except DataError as error:
        return f"invalid record: {error}"


def _failed(metrics: Sequence[Metric], reason: str) -> dict[str, Outcome]:
    return {m.name: Outcome.fail(reason) for m in metrics}


def _score_safely(metrics: Sequence[Metric], samples: list[Sample]) -> list[dict[str, Outcome]]:
    """Per-sample outcomes of the batch; if the batch raises, each sample alone, a raising one failed."""
    try:
        found = score_batch(metrics, samples)
        return [{name: found[name][i] for name in found} for i in range(len(samples))]
    except Exception as error:  # noqa: BLE001 - a bug in one sample must not lose the others
        if len(samples) == 1:
            return [_failed(metrics, f"scoring raised {type(error).__name__}: {error}")]
    return [row for sample in samples for row in _score_safely(metrics, [sample])]


def score_records(metrics: Sequence[Metric], records: list[Any], batch_size: int | None = None,
                  ) -> dict[str, list[Any]]:
    """Score records ``batch_size`` at a time (default: all at once), each chunk one local-engine batch.

    Returns the columns ``id`` (``None`` if the record has none) and ``outcomes`` (JSON), in record order.
    """
    size = batch_size or max(1, len(records))
    columns: dict[str, list[Any]] = {"id": [], "outcomes": []}
    for start in range(0, len(records), size):
        part = _score_chunk(metrics, records[start:start + size])
        columns["id"] += part["id"]
        columns["outcomes"] += part["outcomes"]
    return columns


def _score_chunk(metrics: Sequence[Metric], records: list[Any]) -> dict[str, list[Any]]:
    parsed = [_sample(r) for r in records]
    valid = [s for s in parsed if isinstance(s, Sample)]
    scored = iter(_score_safely(metrics, valid)) if valid else iter(())
    ids: list[str | None] = []
    encoded: list[str] = []
    for record, sample in zip(records, parsed, strict=True):
        if isinstance(sample, Sample):
            ids.append(sample.id)
            row = next(scored)
        else:
            raw = record.get("id") if isinstance(record, dict) else None
            ids.append(None if raw is None else str(raw))
            row = _failed(metrics, sample)
        encoded.append(json.dumps({name: encode_outcome(o) for name, o in row.items()}))
    return {"id": ids, "outcomes": encoded}


@functools.lru_cache(maxsize=4)
def _metrics(config_json: str) -> list[Metric]:
    """Metrics built from a config once per worker process (judges included)."""
    return build_metrics(parse_config(json.loads(config_json)))


def score_task(table: Any, config_json: str, fmt: str, batch_size: int) -> dict[str, list[Any]]:
    """Ray task body for cheap judges: metrics built once per worker process, then reused."""
    return score_records(_metrics(config_json), records_of(table, fmt), batch_size)


class ScoreActor:
    """Ray actor body for model judges: builds the metrics (and loads the models) once per actor."""

    def __init__(self, config_json: str, fmt: str, batch_size: int) -> None:
        self.metrics = build_metrics(parse_config(json.loads(config_json)))
        self.fmt = fmt
        self.batch_size = batch_size

    def __call__(self, table: Any) -> dict[str, list[Any]]:
        """Score one block, ``batch_size`` samples at a time."""
        return score_records(self.metrics, records_of(table, self.fmt), self.batch_size)
