"""Prediction-powered inference for a mean (Angelopoulos et al., 2023; used by ARES).

A judge scores every sample; humans label a small subset. The judge's mean over the unlabeled samples is
corrected by the rectifier, the mean of (human label - judge score) over the labeled ones::

    theta = mean(f(X_unlabeled)) + mean(Y - f(X_labeled))
    se^2  = var(f(X_unlabeled)) / N + var(Y - f(X_labeled)) / n

and the interval is theta +- z * se. It estimates the mean *human* label over the whole set, is unbiased
whatever the judge's bias, and its interval is valid (asymptotically) however bad the judge is; a good judge
only makes it narrower than the classical interval from the n labels alone. When every sample is labeled there
is nothing to extrapolate to, and the classical mean of the labels is returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ragjudge.errors import DataError

__all__ = ["PPIEstimate", "classical_mean", "ppi_mean"]


@dataclass(frozen=True)
class PPIEstimate:
    """A bias-corrected mean with its interval, beside the judge's plain mean and the labels-only mean."""

    mean: float
    ci95: tuple[float, float]
    judge_mean: float
    rectifier: float
    classical_mean: float
    classical_ci95: tuple[float, float]
    n_labeled: int
    n_unlabeled: int

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {"mean": self.mean, "ci95": list(self.ci95), "judge_mean": self.judge_mean,
                "rectifier": self.rectifier, "classical_mean": self.classical_mean,
                "classical_ci95": list(self.classical_ci95), "n_labeled": self.n_labeled,
                "n_unlabeled": self.n_unlabeled}


def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def _variance(values: np.ndarray) -> float:
    return float(values.var(ddof=1)) if values.size > 1 else 0.0


def classical_mean(labels: np.ndarray, level: float = 0.95) -> tuple[float, tuple[float, float]]:
    """Mean of the labels and its normal-approximation interval (the baseline PPI improves on)."""
    labels = np.asarray(labels, dtype=np.float64)
    mean = float(labels.mean())
    half = _z(level) * (_variance(labels) / labels.size) ** 0.5
    return mean, (mean - half, mean + half)


def ppi_mean(labels: np.ndarray, judged_labeled: np.ndarray, judged_unlabeled: np.ndarray,
             level: float = 0.95) -> PPIEstimate:
    """PPI estimate of the mean label from labeled (label, judge score) pairs and unlabeled judge scores."""
    y = np.asarray(labels, dtype=np.float64)
    f_lab = np.asarray(judged_labeled, dtype=np.float64)
    f_unl = np.asarray(judged_unlabeled, dtype=np.float64)
    if y.size == 0 or y.size != f_lab.size:
        raise DataError(f"PPI needs at least one human label with a judge score, got {y.size} labels "
                        f"and {f_lab.size} scores")
    rect = y - f_lab
    base, base_ci = classical_mean(y, level)
    judge_mean = float(np.r_[f_lab, f_unl].mean())
    if f_unl.size == 0:
        return PPIEstimate(base, base_ci, judge_mean, float(rect.mean()), base, base_ci, int(y.size), 0)
    theta = float(f_unl.mean() + rect.mean())
    half = _z(level) * (_variance(f_unl) / f_unl.size + _variance(rect) / rect.size) ** 0.5
    return PPIEstimate(theta, (theta - half, theta + half), judge_mean, float(rect.mean()), base, base_ci,
                       int(y.size), int(f_unl.size))
