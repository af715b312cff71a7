"""Threshold choice on calibration data, the stratified split, and the bootstrap's coverage."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest
from sklearn.metrics import balanced_accuracy_score

from ragjudge.errors import DataError
from ragjudge.metaeval import stats
from ragjudge.metaeval.bootstrap import estimate, percentile_interval, resample_weights
from ragjudge.metaeval.threshold import calibration_split, choose_threshold


@pytest.mark.parametrize("seed", range(10))
def test_threshold_reaches_the_best_balanced_accuracy_of_any_cut(seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    y[:2] = [0, 1]
    scores = np.round(np.clip(0.3 * y + rng.random(60) * 0.7, 0, 1), 2)
    best = max(balanced_accuracy_score(y, (scores >= t).astype(int)) for t in np.r_[np.unique(scores), 2.0])
    chosen = choose_threshold(y, scores)
    assert balanced_accuracy_score(y, (scores >= chosen).astype(int)) == pytest.approx(best)


def test_threshold_needs_both_classes() -> None:
    with pytest.raises(DataError, match="both labels"):
        choose_threshold(np.ones(5), np.arange(5.0))


def test_split_is_stratified_seeded_and_repeatable() -> None:
    labels = np.r_[np.ones(70), np.zeros(30)]
    mask = calibration_split(labels, 0.3, seed=3)
    assert (mask[labels == 1].sum(), mask[labels == 0].sum()) == (21, 9)
    assert np.array_equal(mask, calibration_split(labels, 0.3, seed=3))
    assert not np.array_equal(mask, calibration_split(labels, 0.3, seed=4))


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.2])
def test_split_rejects_fractions_outside_zero_one(fraction: float) -> None:
    with pytest.raises(DataError):
        calibration_split(np.r_[np.ones(5), np.zeros(5)], fraction)


def test_weights_resample_every_row_to_n_and_repeat_with_the_seed() -> None:
    w = resample_weights(37, seed=5, resamples=200)
    assert w.shape == (200, 37) and np.all(w.sum(axis=1) == 37)
    assert np.array_equal(w, resample_weights(37, seed=5, resamples=200))


def test_estimate_counts_undefined_resamples_and_never_reports_nan() -> None:
    found = estimate(np.array([0.7]), np.array([0.6, np.nan, 0.8, 0.7]))
    assert found.undefined_resamples == 1 and found.ci95 is not None
    assert estimate(np.array([np.nan]), np.array([np.nan])).to_dict()["value"] is None
    assert percentile_interval(np.array([np.nan])) is None


@pytest.mark.slow
def test_bootstrap_interval_of_the_auc_covers_the_true_auc_at_about_95_percent() -> None:
    """Binormal scores: positives N(1, 1), negatives N(0, 1), so the true AUC is Phi(1 / sqrt 2)."""
    truth = NormalDist().cdf(1 / 2 ** 0.5)
    rng = np.random.default_rng(20240601)
    labels = np.r_[np.ones(60), np.zeros(60)]
    hits, reps = 0, 300
    for rep in range(reps):
        scores = np.asarray(rng.normal(labels, 1.0))
        w = resample_weights(labels.size, seed=rep, resamples=400)
        found = estimate(stats.auc_roc(labels, scores), stats.auc_roc(labels, scores, w))
        assert found.ci95 is not None
        hits += found.ci95[0] <= truth <= found.ci95[1]
    assert 0.90 <= hits / reps <= 0.98
