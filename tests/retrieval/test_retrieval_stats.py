"""Paired statistics between two runs: the t-test against scipy, the randomization test and the bootstrap
interval against exact enumeration and sanity checks; everything repeatable with a seed."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from retrieval_fixtures import trec_file

from ragjudge.retrieval import bootstrap_ci, compare, evaluate, paired_t_test, randomization_test
from ragjudge.retrieval._tdist import betainc, t_two_sided_p

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")


@pytest.mark.parametrize("seed", range(8))
def test_t_test_matches_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    a = rng.random(n)
    b = np.clip(a + rng.normal(rng.normal(0, 0.05), 0.2, n), 0, 1)
    ours, theirs = paired_t_test(a, b), stats.ttest_rel(a, b)
    assert ours.t == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.p == pytest.approx(theirs.pvalue, rel=1e-9)
    assert ours.df == n - 1


@pytest.mark.parametrize("df", [1, 2, 3, 7, 30, 99, 1000, 10**5, 10**6])
@pytest.mark.parametrize("t", [0.01, 0.5, 1.0, 1.96, 3.0, 8.0, 40.0])
def test_t_tail_matches_scipy(t: float, df: int) -> None:
    expected = 2 * stats.t.sf(t, df)
    assert t_two_sided_p(t, df) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert t_two_sided_p(-t, df) == t_two_sided_p(t, df)


@pytest.mark.parametrize(("a", "b", "x"), [(0.5, 0.5, 0.3), (5, 0.5, 0.99), (200, 0.5, 0.5), (30, 40, 0.4),
                                           (2, 3, 0.0), (2, 3, 1.0), (0.5, 0.5, 1e-12)])
def test_incomplete_beta_matches_scipy(a: float, b: float, x: float) -> None:
    assert betainc(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-12, abs=1e-300)


def test_t_test_degenerate_cases() -> None:
    assert paired_t_test([0.5, 0.5], [0.5, 0.5]).p == 1.0
    constant = paired_t_test([0.6, 0.7], [0.5, 0.6])
    assert math.isinf(constant.t) and constant.p == 0.0
    with pytest.raises(ValueError):
        paired_t_test([1.0], [0.0])
    with pytest.raises(ValueError):
        paired_t_test([1.0, float("nan")], [0.0, 0.0])


def test_randomization_test_against_exact_enumeration() -> None:
    """With 8 topics all 256 sign patterns can be listed: the sampled p-value is close to the exact one."""
    d = np.array([0.3, 0.1, -0.05, 0.2, 0.15, -0.1, 0.25, 0.05])
    sums = [abs(float(np.dot(signs, d))) for signs in itertools.product((-1, 1), repeat=len(d))]
    exact = sum(s >= abs(d.sum()) - 1e-12 for s in sums) / len(sums)
    sampled = randomization_test(d, np.zeros_like(d), resamples=50_000, seed=3)
    assert sampled == pytest.approx(exact, abs=0.01)


def test_randomization_test_sanity() -> None:
    rng = np.random.default_rng(0)
    a = rng.random(200)
    assert randomization_test(a, a) == 1.0  # no difference at all
    assert randomization_test(a + 0.2, a, resamples=999) == 1 / 1000  # every flip is smaller
    noisy = a + rng.normal(0, 0.1, 200)
    assert randomization_test(noisy, a, seed=5) == randomization_test(noisy, a, seed=5)  # seeded
    assert 0.0 < randomization_test(noisy, a, resamples=2000) <= 1.0


def test_bootstrap_interval_sanity() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.random(300), rng.random(300)
    low, high = bootstrap_ci(a, b, seed=7)
    assert low < float((a - b).mean()) < high
    assert (low, high) == bootstrap_ci(a, b, seed=7)
    assert bootstrap_ci(a + 0.1, a) == pytest.approx((0.1, 0.1))
    narrow = bootstrap_ci(np.tile(a, 10), np.tile(b, 10), seed=7)
    assert narrow[1] - narrow[0] < (high - low) / 2


def test_compare_two_runs() -> None:
    qrels = trec_file("qrels.test")
    a = evaluate(qrels, trec_file("results.test"), ["map", "P_10", "num_rel"])
    b = evaluate(qrels, trec_file("results.trunc"), ["map", "P_10", "num_rel"], complete=True)
    rows = compare(a, b, resamples=2000)
    assert [str(r.measure) for r in rows] == ["AP", "P@10"]  # counts are not compared
    assert rows[0].n == 3 and rows[0].mean_a == pytest.approx(a.mean("map"))
    assert rows[0].difference == pytest.approx(a.mean("map") - b.mean("map"))
    assert rows[0].t_test.p == pytest.approx(stats.ttest_rel(a["map"], b["map"]).pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="share 0"):
        compare(a, evaluate({"x": {"d": 1}}, {"x": {"d": 1.0}}, ["map"]))
