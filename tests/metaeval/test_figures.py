"""The numbers behind the figures: the end-to-end grid and the agreement matrix; matplotlib stays lazy."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from ragjudge.errors import DataError
from ragjudge.metaeval.end_to_end import choose_metrics, end_to_end_grid
from ragjudge.metaeval.figures import agreement_matrix


def _result(pairs: list[tuple[float | None, float]]) -> dict[str, Any]:
    def cell(score: float | None) -> dict[str, Any]:
        return {"score": score, "status": "ok" if score is not None else "skipped", "reason": None}

    samples = [{"id": str(i), "metrics": {"context_precision": cell(r), "faithfulness": cell(g)}}
               for i, (r, g) in enumerate(pairs)]
    summary = {"context_precision": {"judge": {"name": "overlap"}}, "faithfulness": {"judge": {"name": "x"}}}
    return {"summary": summary, "samples": samples}


def test_grid_cells_hold_the_mean_product_of_their_samples() -> None:
    result = _result([(0.1, 0.9), (0.2, 0.8), (1.0, 1.0), (0.8, 0.3), (None, 0.5)])
    grid, counts, edges, left_out = end_to_end_grid(result, "context_precision", "faithfulness")
    assert left_out == 1 and counts.sum() == 4 and np.allclose(edges, [0, 0.25, 0.5, 0.75, 1])
    assert grid[0, 3] == pytest.approx((0.09 + 0.16) / 2) and counts[0, 3] == 2
    assert grid[3, 3] == pytest.approx(1.0) and grid[3, 1] == pytest.approx(0.24)
    assert np.isnan(grid[1, 1])


def test_judged_context_precision_serves_as_retrieval_when_no_ranking_measure_ran() -> None:
    assert choose_metrics(_result([(0.5, 0.5)])) == ("context_precision", "faithfulness")
    with pytest.raises(DataError, match="not in the results"):
        choose_metrics(_result([(0.5, 0.5)]), retrieval="nDCG@5")


def test_agreement_matrix_puts_humans_first_and_mirrors_pairs() -> None:
    est = {"value": 0.5, "ci95": None}
    report = {"judges": {"a": {"stats": {"cohen_kappa": {"value": 0.2}}},
                         "b": {"stats": {"cohen_kappa": {"value": None}}}},
              "pairs": [{"a": "a", "b": "b", "cohen_kappa": est}]}
    rows, cols, matrix = agreement_matrix(report, "cohen_kappa")
    assert rows == ["human labels", "a", "b"] and cols == ["a", "b"]
    assert matrix[0, 0] == 0.2 and np.isnan(matrix[0, 1])
    assert matrix[1, 0] == matrix[2, 1] == 1.0  # each judge with itself
    assert matrix[1, 1] == matrix[2, 0] == 0.5  # the pair, both ways


def test_importing_metaeval_and_the_cli_does_not_import_matplotlib() -> None:
    code = ("import sys, ragjudge.metaeval, ragjudge.cli.meta_eval, ragjudge.metaeval.figures; "
            "print('matplotlib' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
