"""Human labels for an evaluation run: read them, and report PPI means beside each judged metric's mean.

The labels file is JSONL (or JSON / CSV) of ``{"id", "label"}``; ids are the run's sample ids (input ids, or
1-based positions for samples without one). Samples whose judge outcome failed or was skipped take part in
neither side of the estimate, and the table counts them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragjudge.data import read_samples
from ragjudge.errors import DataError
from ragjudge.metaeval.ppi import PPIEstimate, ppi_mean
from ragjudge.records import Status
from ragjudge.results import EvaluationResult

__all__ = ["format_ppi", "ppi_for_result", "read_human_labels"]


def read_human_labels(path: str | Path) -> dict[str, float]:
    """``{id: label}`` from a labels file; every record needs an id and a numeric label."""
    labels: dict[str, float] = {}
    for position, sample in enumerate(read_samples(path), start=1):
        if sample.id is None or sample.label is None:
            missing = "id" if sample.id is None else "label"
            raise DataError(f"a human label record needs {missing!r}", path=path, line=position,
                            field=missing)
        labels[sample.id] = float(sample.label)
    return labels


def _judged(result: EvaluationResult) -> list[str]:
    return [m for m, s in result.summary.items() if s.judge is not None]


def ppi_for_result(result: EvaluationResult, labels: dict[str, float],
                   level: float = 0.95) -> dict[str, PPIEstimate | None]:
    """PPI estimate per judged metric (``None`` when no labeled sample was scored)."""
    unknown = sorted(set(labels) - set(result.ids))
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5])
        raise DataError(f"{len(unknown)} human-label id(s) not in the evaluated data, e.g. {shown}")
    out: dict[str, PPIEstimate | None] = {}
    for metric in _judged(result):
        y, f_lab, f_unl = [], [], []
        for sid, outcome in zip(result.ids, result.outcomes[metric], strict=True):
            if outcome.status is not Status.OK or outcome.score is None:
                continue
            if sid in labels:
                y.append(labels[sid])
                f_lab.append(outcome.score)
            else:
                f_unl.append(outcome.score)
        out[metric] = ppi_mean(np.array(y), np.array(f_lab), np.array(f_unl), level) if y else None
    return out


def format_ppi(result: EvaluationResult, estimates: dict[str, PPIEstimate | None]) -> str:
    """A table: metric, plain judge mean, PPI mean with its 95% interval, labeled / unlabeled counts."""
    lines = [f"{'metric':<22}{'judge mean':>11}  {'PPI mean':>9}  {'PPI 95% CI':<17}{'labeled':>8}"
             f"{'unlabeled':>10}  unscored"]
    for metric, est in estimates.items():
        summary = result.summary[metric]
        judge = "-" if summary.mean is None else f"{summary.mean:.3f}"
        unscored = summary.n_failed + summary.n_skipped
        if est is None:
            lines.append(f"{metric:<22}{judge:>11}  {'-':>9}  {'no labeled sample scored':<17}")
            continue
        ci = f"[{est.ci95[0]:.3f}, {est.ci95[1]:.3f}]"
        lines.append(f"{metric:<22}{judge:>11}  {est.mean:>9.3f}  {ci:<17}{est.n_labeled:>8}"
                     f"{est.n_unlabeled:>10}  {unscored}")
    return "\n".join(lines)
