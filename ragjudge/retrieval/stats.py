"""Is run A better than run B? Paired tests over topics, per measure, seeded so results repeat exactly.

Three views of the per-topic differences d = A - B: a paired t-test (Student's t, its tail computed in
``_tdist``), a paired randomization test (each topic's sign flipped at random; two-sided, with the +1
correction of an exact-size test) and a percentile bootstrap confidence interval of the mean difference."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ragjudge.retrieval._tdist import t_two_sided_p
from ragjudge.retrieval.evaluation import Evaluation
from ragjudge.retrieval.measures import Measure, parse_measure

__all__ = ["Comparison", "TTest", "bootstrap_ci", "compare", "paired_t_test", "randomization_test"]

Floats = npt.NDArray[np.float64]
_BATCH = 1 << 22  # random numbers drawn per batch


@dataclass(frozen=True)
class TTest:
    """A paired t-test: statistic, degrees of freedom and two-sided p-value."""

    t: float
    df: int
    p: float


@dataclass(frozen=True)
class Comparison:
    """Run A against run B on one measure, over the ``n`` topics both were evaluated on."""

    measure: Measure
    n: int
    mean_a: float
    mean_b: float
    t_test: TTest
    p_randomization: float
    ci: tuple[float, float]

    @property
    def difference(self) -> float:
        """mean(A) - mean(B)."""
        return self.mean_a - self.mean_b


def _differences(a: npt.ArrayLike, b: npt.ArrayLike) -> Floats:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"paired values need two 1-d arrays of one length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ValueError("paired values must be finite numbers")
    return x - y


def paired_t_test(a: npt.ArrayLike, b: npt.ArrayLike) -> TTest:
    """Student's paired t-test of mean(a - b) = 0 (scipy's ``ttest_rel``). With no spread in the differences,
    t is 0 (p = 1) when they are all 0, else +-inf (p = 0); needs at least two pairs."""
    d = _differences(a, b)
    if len(d) < 2:
        raise ValueError("a paired t-test needs at least two topics")
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0.0:
        t = 0.0 if mean == 0.0 else math.copysign(math.inf, mean)
    else:
        t = mean / (sd / math.sqrt(len(d)))
    return TTest(t, len(d) - 1, t_two_sided_p(t, len(d) - 1) if t else 1.0)


def randomization_test(a: npt.ArrayLike, b: npt.ArrayLike, *, resamples: int = 10_000,
                       seed: int = 0) -> float:
    """Two-sided p-value of a paired randomization test: how often a random sign flip of each topic's
    difference gives a mean at least as far from 0 as the observed one; ``(hits + 1) / (resamples + 1)``."""
    d = _differences(a, b)
    if not len(d):
        raise ValueError("a randomization test needs at least one topic")
    rng = np.random.default_rng(seed)
    observed = abs(float(d.sum()))
    tolerance = 1e-9 * max(observed, 1.0)  # sums of the same numbers in another order differ in the last bits
    hits, done = 0, 0
    while done < resamples:
        size = min(resamples - done, max(1, _BATCH // len(d)))
        flips = rng.integers(0, 2, size=(size, len(d)), dtype=np.int8).astype(np.float64)
        sums = (2.0 * flips - 1.0) @ d
        hits += int(np.count_nonzero(np.abs(sums) >= observed - tolerance))
        done += size
    return (hits + 1) / (resamples + 1)


def bootstrap_ci(a: npt.ArrayLike, b: npt.ArrayLike, *, resamples: int = 10_000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of mean(a - b): topics resampled with replacement."""
    d = _differences(a, b)
    if not len(d) or not 0 < level < 1:
        raise ValueError("a bootstrap interval needs at least one topic and 0 < level < 1")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    done = 0
    while done < resamples:
        size = min(resamples - done, max(1, _BATCH // len(d)))
        means[done : done + size] = d[rng.integers(0, len(d), size=(size, len(d)))].mean(axis=1)
        done += size
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def compare(a: Evaluation, b: Evaluation, measures: Iterable[str | Measure] | None = None, *,
            resamples: int = 10_000, level: float = 0.95, seed: int = 0) -> list[Comparison]:
    """Compare two evaluations measure by measure on the topics both contain (counts are not compared)."""
    shared = sorted(set(a.topics) & set(b.topics))
    if len(shared) < 2:
        raise ValueError(f"the runs share {len(shared)} evaluated topics; a comparison needs at least two")
    index_a = np.array([a.topics.index(t) for t in shared]) if a.topics != tuple(shared) else slice(None)
    index_b = np.array([b.topics.index(t) for t in shared]) if b.topics != tuple(shared) else slice(None)
    wanted = [parse_measure(m) for m in measures] if measures is not None else a.measures
    out = []
    for measure in (m for m in wanted if not m.is_count):
        x, y = a[measure][index_a], b[measure][index_b]
        out.append(Comparison(
            measure, len(shared), float(x.mean()), float(y.mean()), paired_t_test(x, y),
            randomization_test(x, y, resamples=resamples, seed=seed),
            bootstrap_ci(x, y, resamples=resamples, level=level, seed=seed)))
    return out
