"""Uncertainty of a mean: a seeded percentile bootstrap.

The same values and seed always give the same interval, to the last bit: the generator is numpy's PCG64 seeded
explicitly, and resampling happens in fixed-size chunks whatever the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["bootstrap_mean_ci"]

_CHUNK_CELLS = 4_000_000  # resampled values held in memory at once


def bootstrap_mean_ci(
    values: Sequence[float] | np.ndarray,
    *,
    seed: int = 0,
    resamples: int = 1000,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of ``values``; ``None`` when there are no values.

    One value gives the degenerate interval (v, v). Values must be finite (callers pass scored items only).
    """
    data = np.asarray(values, dtype=np.float64)
    n = data.size
    if n == 0:
        return None
    if not np.all(np.isfinite(data)):
        raise ValueError("bootstrap_mean_ci needs finite values")
    if n == 1 or np.all(data == data[0]):
        return float(data[0]), float(data[0])
    rng = np.random.Generator(np.random.PCG64(seed))
    means = np.empty(resamples)
    step = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = data[idx].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
