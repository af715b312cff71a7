"""Writing a meta-evaluation to a directory: JSON, Markdown, timing, and the figures.

Files: ``report.json`` (every number, deterministic), ``report.md`` (the tables, deterministic),
``timing.json`` (wall clock and samples/s per judge), ``roc.png``, ``agreement.png``, and ``end_to_end.png``
when a results file with both a retrieval and a generation metric is given.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragjudge.errors import DataError
from ragjudge.metaeval.core import MetaEvaluation
from ragjudge.metaeval.end_to_end import choose_metrics, end_to_end_grid
from ragjudge.metaeval.report import report_markdown, write_json

__all__ = ["write_end_to_end", "write_figures", "write_outputs"]


def write_figures(meta: MetaEvaluation, out: Path) -> list[Path]:
    """``roc.png`` and ``agreement.png`` for ``meta`` in ``out``."""
    from ragjudge.metaeval.figures import plot_agreement, plot_roc

    truth = meta.labels.binary
    curves = {r.choice.label: (truth[r.ok], r.scores[r.ok]) for r in meta.runs if r.ok.any()}
    aucs = {label: e["stats"]["auc_roc"]["value"] for label, e in meta.report["judges"].items()}
    title = f"ROC of each judge on {meta.report['data']['name']} (evaluation samples)"
    roc = plot_roc(curves, aucs, title, out / "roc.png")
    return [roc, plot_agreement(meta.report, out / "agreement.png")]


def write_outputs(meta: MetaEvaluation, out: str | Path, *, figures: bool = True) -> list[Path]:
    """Every output file of ``meta`` in directory ``out`` (created when missing); returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "report.json", meta.report)
    (out / "report.md").write_text(report_markdown(meta.report), encoding="utf-8")
    write_json(out / "timing.json", meta.timing)
    written = [out / "report.json", out / "report.md", out / "timing.json"]
    return written + (write_figures(meta, out) if figures else [])


def write_end_to_end(results_path: str | Path, out: str | Path, *, retrieval: str | None = None,
                     generation: str | None = None, value: str | None = None) -> tuple[Path, int]:
    """``end_to_end.png`` from an ``ragjudge evaluate`` JSON result; returns it and the samples left out."""
    from ragjudge.metaeval.figures import plot_end_to_end

    try:
        result = json.loads(Path(results_path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise DataError(f"cannot read results: {error}", path=results_path) from None
    retrieval, generation = choose_metrics(result, retrieval, generation)
    grid, counts, edges, left_out = end_to_end_grid(result, retrieval, generation, value=value)
    label = value or f"{retrieval} x {generation}"
    path = plot_end_to_end(grid, counts, edges, (retrieval, generation, label), Path(out) / "end_to_end.png")
    return path, left_out
