"""Per-sample result shards and the run summary, written as the Ray engine's outcomes stream in.

A run's output directory holds ``part-00000.parquet`` (or ``.jsonl``), ``part-00001...`` of at most
``rows_per_shard`` rows each, in input order, with the same flat columns as ``EvaluationResult.rows()``:
``id``, then ``METRIC``, ``METRIC.status``, ``METRIC.reason`` and ``METRIC.COMPONENT``; and ``summary.json``,
the JSON result document (schema version 1) without its ``samples`` list. Read the shards back with
``pandas.read_parquet(directory)`` or ``ray.data.read_parquet(directory)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragjudge import __version__
from ragjudge.metrics.base import Metric, Outcome
from ragjudge.results import SCHEMA_VERSION, EvaluationResult

__all__ = ["FORMATS", "ShardWriter"]

FORMATS = ("parquet", "jsonl")


class ShardWriter:
    """Writes rows as they come, cutting a new shard every ``rows_per_shard`` rows."""

    def __init__(self, directory: str | Path, metrics: Sequence[Metric], fmt: str = "parquet",
                 rows_per_shard: int = 100_000) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"shard format must be one of {FORMATS}, got {fmt!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.components = {m.name: m.components for m in metrics}
        self.fmt = fmt
        self.rows_per_shard = rows_per_shard
        self.pending: list[dict[str, Any]] = []
        self.shards = 0

    def _row(self, sid: str, found: dict[str, Outcome]) -> dict[str, Any]:
        row: dict[str, Any] = {"id": sid}
        for metric, outcome in found.items():
            row[metric] = outcome.score
            row[f"{metric}.status"] = outcome.status.value
            row[f"{metric}.reason"] = outcome.reason
            for name in self.components[metric]:
                row[f"{metric}.{name}"] = outcome.components.get(name)
        return row

    def write(self, ids: Sequence[str], outcomes: dict[str, list[Outcome]]) -> None:
        """Queue one batch's rows (``outcomes[metric][i]`` belongs to ``ids[i]``); flush full shards."""
        for i, sid in enumerate(ids):
            self.pending.append(self._row(sid, {m: found[i] for m, found in outcomes.items()}))
        while len(self.pending) >= self.rows_per_shard:
            self._flush(self.pending[:self.rows_per_shard])
            self.pending = self.pending[self.rows_per_shard:]

    def _flush(self, rows: list[dict[str, Any]]) -> None:
        path = self.directory / f"part-{self.shards:05d}.{self.fmt}"
        if self.fmt == "jsonl":
            with path.open("w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        else:
            import pyarrow as pa  # type: ignore[import-untyped]
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            pq.write_table(pa.Table.from_pylist(rows, schema=self._schema(pa)), path)
        self.shards += 1

    def _schema(self, pa: Any) -> Any:
        """Fixed column types, so a shard whose scores are all null still matches the others."""
        columns = [("id", pa.string())]
        for metric, names in self.components.items():
            columns += [(metric, pa.float64()), (f"{metric}.status", pa.string()),
                        (f"{metric}.reason", pa.string())]
            columns += [(f"{metric}.{name}", pa.float64()) for name in names]
        return pa.schema(columns)

    def close(self, result: EvaluationResult) -> None:
        """Flush the last shard (an empty one when the run had no rows) and write ``summary.json``."""
        if self.pending or not self.shards:
            self._flush(self.pending)
            self.pending = []
        document = {"schema_version": SCHEMA_VERSION, "ragjudge_version": __version__,
                    "summary": {m: s.to_dict() for m, s in result.summary.items()}}
        (self.directory / "summary.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
