"""From judge runs and human labels to every number of the report: per-judge agreement and judge pairs.

All statistics are on the evaluation samples (never the calibration ones) that the judge scored; a judge that
failed on some samples is measured on the rest and its counts say how many. Intervals come from one shared set
of bootstrap resamples of the evaluation samples (:mod:`.bootstrap`); a judge's unscored samples carry weight
0 in every resample. The threshold is fixed, chosen on calibration data, so the intervals leave out its own
uncertainty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ragjudge.errors import DataError
from ragjudge.metaeval import stats
from ragjudge.metaeval.bootstrap import Estimate, estimate
from ragjudge.metaeval.runner import JudgeRun
from ragjudge.metaeval.threshold import choose_threshold

__all__ = ["JUDGE_STATS", "PAIR_STATS", "Labels", "judge_summary", "pair_summary", "pick_threshold"]

JUDGE_STATS = ("auc_roc", "balanced_accuracy", "f1_unfaithful", "cohen_kappa", "spearman")
PAIR_STATS = ("cohen_kappa", "spearman")


@dataclass(frozen=True)
class Labels:
    """Human labels of the evaluation samples: raw (binary or graded) and binary at ``cut`` (faithful)."""

    raw: np.ndarray
    cut: float = 0.5

    @property
    def binary(self) -> np.ndarray:
        """1 where the label reaches ``cut``, else 0."""
        return (self.raw >= self.cut).astype(np.int64)

    @property
    def graded(self) -> bool:
        """Whether any label is other than 0 or 1."""
        return bool(np.any((self.raw != 0) & (self.raw != 1)))


def pick_threshold(labels: Labels, run: JudgeRun) -> tuple[float | None, str | None]:
    """The judge's threshold from its scored calibration samples, or ``None`` with the reason it has none."""
    ok = run.ok
    try:
        return choose_threshold(labels.binary[ok], run.scores[ok]), None
    except DataError as error:
        return None, str(error)


def _est(fn: Any, args: tuple[np.ndarray, ...], weights: np.ndarray, level: float) -> Estimate:
    return estimate(fn(*args, stats.ones(args[0].size)), fn(*args, weights), level)


def _none() -> Estimate:
    return Estimate(None, None, 0)


def judge_summary(labels: Labels, run: JudgeRun, threshold: float | None, weights: np.ndarray,
                  level: float = 0.95) -> dict[str, Estimate]:
    """AUC-ROC, balanced accuracy, F1 (unfaithful), kappa and Spearman of one judge against the labels."""
    ok = run.ok
    y, scores, w = labels.binary[ok], run.scores[ok], weights[:, ok]
    if not ok.any():
        return {name: _none() for name in JUDGE_STATS}
    out = {"auc_roc": _est(stats.auc_roc, (y, scores), w, level),
           "spearman": _est(stats.spearman, (labels.raw[ok], scores), w, level)}
    if threshold is None:
        out.update({name: _none() for name in ("balanced_accuracy", "f1_unfaithful", "cohen_kappa")})
    else:
        predicted = (scores >= threshold).astype(np.int64)
        out["balanced_accuracy"] = _est(stats.balanced_accuracy, (y, predicted), w, level)
        out["f1_unfaithful"] = _est(stats.f1_unfaithful, (y, predicted), w, level)
        out["cohen_kappa"] = _est(stats.cohen_kappa, (y, predicted), w, level)
    return {name: out[name] for name in JUDGE_STATS}


def pair_summary(a: JudgeRun, b: JudgeRun, thresholds: tuple[float | None, float | None], weights: np.ndarray,
                 level: float = 0.95) -> dict[str, Any]:
    """Kappa of two judges' predictions and Spearman of their scores, on the samples both scored."""
    both = a.ok & b.ok
    w = weights[:, both]
    sa, sb = a.scores[both], b.scores[both]
    out: dict[str, Any] = {"n": int(both.sum())}
    if not both.any():
        return {**out, "cohen_kappa": _none(), "spearman": _none()}
    out["spearman"] = _est(stats.spearman, (sa, sb), w, level)
    ta, tb = thresholds
    if ta is None or tb is None:
        out["cohen_kappa"] = _none()
    else:
        pa, pb = (sa >= ta).astype(np.int64), (sb >= tb).astype(np.int64)
        out["cohen_kappa"] = _est(stats.cohen_kappa, (pa, pb), w, level)
    return out
