"""Every agreement statistic against scikit-learn / scipy, on the data and on explicit resamples."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, f1_score, roc_auc_score

from ragjudge.metaeval import stats

LABELS = np.array([1, 0, 1, 1, 0, 0, 1, 0, 1, 1])
CASES = {
    "distinct": np.array([0.9, 0.1, 0.8, 0.35, 0.4, 0.2, 0.7, 0.6, 0.55, 0.95]),
    "ties": np.array([0.5, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0, 0.0, 0.5, 1.0]),
    "inverted": np.array([0.1, 0.9, 0.2, 0.3, 0.8, 0.7, 0.1, 0.6, 0.2, 0.0]),
    "constant": np.full(10, 0.4),
}
PREDICTIONS = {
    "mixed": np.array([1, 0, 0, 1, 1, 0, 1, 0, 1, 0]),
    "all_faithful": np.ones(10, dtype=int),
    "perfect": LABELS.copy(),
}
GRADED = np.array([0.9, 0.2, 0.7, 0.7, 0.1, 0.3, 1.0, 0.2, 0.6, 0.8])


@pytest.mark.parametrize("scores", CASES.values(), ids=CASES.keys())
def test_auc_matches_sklearn(scores: np.ndarray) -> None:
    assert stats.auc_roc(LABELS, scores)[0] == pytest.approx(roc_auc_score(LABELS, scores), abs=1e-12)


@pytest.mark.parametrize("predicted", PREDICTIONS.values(), ids=PREDICTIONS.keys())
def test_threshold_statistics_match_sklearn(predicted: np.ndarray) -> None:
    assert stats.balanced_accuracy(LABELS, predicted)[0] == pytest.approx(
        balanced_accuracy_score(LABELS, predicted), abs=1e-12)
    assert stats.f1_unfaithful(LABELS, predicted)[0] == pytest.approx(
        f1_score(LABELS, predicted, pos_label=0, zero_division=0), abs=1e-12)
    kappa = stats.cohen_kappa(LABELS, predicted)[0]
    assert kappa == pytest.approx(cohen_kappa_score(LABELS, predicted), abs=1e-12)


@pytest.mark.parametrize("scores", [CASES["distinct"], CASES["ties"]], ids=["distinct", "ties"])
@pytest.mark.parametrize("truth", [LABELS, GRADED], ids=["binary", "graded"])
def test_spearman_matches_scipy(truth: np.ndarray, scores: np.ndarray) -> None:
    assert stats.spearman(truth, scores)[0] == pytest.approx(spearmanr(truth, scores).statistic, abs=1e-12)


def test_undefined_values_are_nan_not_numbers() -> None:
    assert np.isnan(stats.auc_roc(np.ones(4), np.arange(4.0))[0])
    assert np.isnan(stats.spearman(LABELS, CASES["constant"])[0])
    assert np.isnan(stats.cohen_kappa(np.ones(5), np.ones(5))[0])


@pytest.mark.parametrize("seed", range(25))
def test_weighted_rows_equal_the_statistics_of_the_expanded_resample(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    y = rng.integers(0, 2, n)
    scores, other = np.round(rng.random(n), 1), np.round(rng.random(n), 1)
    predicted = (rng.random(n) > 0.5).astype(int)
    idx = rng.integers(0, n, n)
    w = np.bincount(idx, minlength=n)[None, :].astype(float)
    yi, si, oi, pi = y[idx], scores[idx], other[idx], predicted[idx]
    if len(set(yi)) == 2:
        assert stats.auc_roc(y, scores, w)[0] == pytest.approx(roc_auc_score(yi, si), abs=1e-12)
        assert stats.balanced_accuracy(y, predicted, w)[0] == pytest.approx(balanced_accuracy_score(yi, pi))
    expected_f1 = f1_score(yi, pi, pos_label=0, zero_division=0)
    assert stats.f1_unfaithful(y, predicted, w)[0] == pytest.approx(expected_f1)
    kappa, expected = stats.cohen_kappa(y, predicted, w)[0], cohen_kappa_score(yi, pi)
    assert (np.isnan(kappa) and np.isnan(expected)) or kappa == pytest.approx(expected, abs=1e-12)
    rho, expected = stats.spearman(scores, other, w)[0], spearmanr(si, oi).statistic
    assert (np.isnan(rho) and np.isnan(expected)) or rho == pytest.approx(expected, abs=1e-9)


def test_roc_points_run_from_origin_to_one_and_integrate_to_the_auc() -> None:
    fpr, tpr = stats.roc_points(LABELS, CASES["ties"])
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    assert area == pytest.approx(roc_auc_score(LABELS, CASES["ties"]))
