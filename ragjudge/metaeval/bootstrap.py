"""Seeded bootstrap over samples: resampling weights shared by every statistic, and percentile intervals.

Resample ``b`` draws ``n`` sample indices with replacement from numpy's PCG64 seeded with ``seed``; its row of
the weight matrix counts how often each sample was drawn. Every statistic of every judge (and every judge
pair) uses the same rows, so the intervals are paired and the same data and seed give the same numbers to the
bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Estimate", "estimate", "percentile_interval", "resample_weights"]

_CHUNK_CELLS = 4_000_000  # indices drawn at once, to bound memory on large sets


def resample_weights(n: int, *, seed: int = 0, resamples: int = 1000) -> np.ndarray:
    """A ``(resamples, n)`` matrix: how many times each sample occurs in each bootstrap resample."""
    rng = np.random.Generator(np.random.PCG64(seed))
    weights = np.zeros((resamples, n), dtype=np.float64)
    if n == 0:
        return weights
    step = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        rows = np.arange(stop - start)[:, None] * n
        weights[start:stop] = np.bincount((idx + rows).ravel(), minlength=(stop - start) * n).reshape(-1, n)
    return weights


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval of the finite bootstrap values; ``None`` when none is finite."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


@dataclass(frozen=True)
class Estimate:
    """A statistic on the data, its bootstrap interval, and how many resamples left it undefined."""

    value: float | None
    ci95: tuple[float, float] | None
    undefined_resamples: int = 0

    def to_dict(self) -> dict[str, object]:
        """JSON form: ``{"value", "ci95", "undefined_resamples"}`` with ``None`` for undefined."""
        return {"value": self.value, "ci95": None if self.ci95 is None else list(self.ci95),
                "undefined_resamples": self.undefined_resamples}


def estimate(point: np.ndarray, resampled: np.ndarray, level: float = 0.95) -> Estimate:
    """An :class:`Estimate` from a statistic's value (length-1 array) and its values over resamples."""
    value = float(point[0]) if point.size and np.isfinite(point[0]) else None
    if value is None:
        return Estimate(None, None, int(resampled.size))
    return Estimate(value, percentile_interval(resampled, level), int((~np.isfinite(resampled)).sum()))
