"""Prediction-powered inference: coverage with a biased judge, the fallback, ``evaluate --human-labels``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragjudge.cli import main
from ragjudge.errors import DataError
from ragjudge.metaeval.ppi import classical_mean, ppi_mean


def _world(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Human labels with mean 0.4 and a judge that over-scores by about 0.1 and is noisy."""
    y = (rng.random(n) < 0.4).astype(float)
    f = np.clip(0.25 + 0.5 * y + rng.normal(0.0, 0.15, n), 0.0, 1.0)
    return y, f


@pytest.mark.slow
def test_ppi_interval_covers_the_true_mean_with_a_biased_judge() -> None:
    rng = np.random.default_rng(7)
    hits, widths, classical_widths, judge_hits = 0, [], [], 0
    for _ in range(500):
        y_lab, f_lab = _world(rng, 150)
        _, f_unl = _world(rng, 3000)
        est = ppi_mean(y_lab, f_lab, f_unl)
        hits += est.ci95[0] <= 0.4 <= est.ci95[1]
        judge_hits += abs(est.judge_mean - 0.4) < 0.02
        widths.append(est.ci95[1] - est.ci95[0])
        classical_widths.append(est.classical_ci95[1] - est.classical_ci95[0])
    assert 0.90 <= hits / 500 <= 0.99
    assert judge_hits == 0  # the plain judge mean is biased: it is never within 0.02 of the truth
    assert np.mean(widths) < np.mean(classical_widths)  # a useful judge narrows the interval


def test_ppi_is_the_judge_mean_plus_the_rectifier() -> None:
    est = ppi_mean(np.array([1.0, 0.0, 1.0]), np.array([0.5, 0.5, 0.5]), np.array([0.2, 0.4]))
    assert est.mean == pytest.approx(0.3 + (2 / 3 - 0.5))
    assert (est.n_labeled, est.n_unlabeled) == (3, 2)


def test_all_labeled_falls_back_to_the_classical_mean() -> None:
    y = np.array([1.0, 0.0, 1.0, 1.0])
    est = ppi_mean(y, np.full(4, 0.9), np.array([]))
    assert (est.mean, est.ci95) == classical_mean(y)


def test_no_labels_is_an_error() -> None:
    with pytest.raises(DataError):
        ppi_mean(np.array([]), np.array([]), np.array([0.5]))


def test_evaluate_prints_ppi_beside_the_judge_mean(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"id": f"s{i}", "contexts": ["Paris is the capital of France."],
             "answer": "Paris is the capital of France." if i % 2 else "Berlin is a large city in Germany."}
            for i in range(10)]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"s{i}", "label": i % 2}) + "\n" for i in range(4)))
    assert main(["evaluate", str(data), "--judge", "overlap", "--human-labels", str(labels), "-q"]) == 0
    out = capsys.readouterr().out
    assert "PPI mean" in out and "faithfulness" in out
    line = next(x for x in out.splitlines() if x.startswith("faithfulness"))
    assert line.split()[1:3] == ["0.500", "0.500"]  # judge exact on the labeled ones: rectifier 0


def test_unknown_ids_in_human_labels_fail_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "contexts": ["x y z"], "answer": "x y z w v."}) + "\n")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": "nope", "label": 1}) + "\n")
    assert main(["evaluate", str(data), "--judge", "overlap", "--human-labels", str(labels), "-q"]) == 2
    assert "'nope'" in capsys.readouterr().err
