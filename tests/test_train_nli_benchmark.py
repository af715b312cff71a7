"""The issue-4 benchmark's own arithmetic: AUC per domain and within a document."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest


def test_by_group_weights_documents_by_size_and_skips_one_label_groups(
    tmp_path: Path, train_nli_benchmark: ModuleType
) -> None:
    rows = [  # (id, document, domain, label, score)
        ("a1", "doc A", "x", 1, 0.9), ("a2", "doc A", "x", 0, 0.1),
        ("b1", "doc B", "x", 1, 0.2), ("b2", "doc B", "x", 0, 0.5), ("b3", "doc B", "x", 0, 0.1),
        ("c1", "doc C", "y", 1, 0.3), ("c2", "doc C", "y", 1, 0.4),
    ]
    data = tmp_path / "set.jsonl"
    data.write_text("".join(json.dumps({"id": i, "contexts": [d], "answer": "", "label": y, "meta": {"domain": m}})
                            + "\n" for i, d, m, y, _ in rows), encoding="utf-8")
    got: dict[str, float | None] = {i: s for i, _, _, _, s in rows}
    out = train_nli_benchmark.by_group(data, got)
    # By hand: doc A ranks its one pair right (1.0); doc B wins one of two pairs (0.5); doc C has one label.
    assert out["within document"] == pytest.approx((1.0 * 2 + 0.5 * 3) / 5, abs=1e-4)
    assert out["documents ranked"] == 2
    assert out["domain x"] == pytest.approx(5 / 6, abs=1e-4)  # 0.9 beats all three negatives, 0.2 two of them
    assert "domain y" not in out  # positives only
    assert out["without y"] == pytest.approx(5 / 6, abs=1e-4)  # domain x alone
    assert "without x" not in out  # what is left, domain y, has positives only
    assert out["mean x, label 1"] == pytest.approx(0.55) and out["mean x, label 0"] == pytest.approx(0.7 / 3, abs=1e-4)
    assert out["mean y, label 1"] == pytest.approx(0.35) and "mean y, label 0" not in out


def test_by_group_is_empty_when_every_row_has_its_own_document(
    tmp_path: Path, train_nli_benchmark: ModuleType
) -> None:
    data = tmp_path / "set.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "contexts": [f"doc {k}"], "answer": "", "label": k % 2})
                            + "\n" for k in range(4)), encoding="utf-8")
    assert train_nli_benchmark.by_group(data, {"0": 0.1, "1": 0.9, "2": None, "3": 0.4}) == {}


def test_bf16_gives_way_to_the_float32_levers_only_where_emulated(train_nli_benchmark: ModuleType) -> None:
    recipe, options = train_nli_benchmark.TRAIN_ARGS, train_nli_benchmark.NLI_OPTIONS
    assert "--bf16" in recipe and "dtype=bfloat16" in options
    for native in (True, None):  # bf16 in hardware, or torch cannot tell: the recipe as published
        assert train_nli_benchmark.on_this_cpu(recipe, native) == recipe
    emulated = train_nli_benchmark.on_this_cpu(recipe, False)
    levers = ["--attention-dropout", "0", "--freeze-embeddings"]  # the float32 step's levers, for --bf16
    assert emulated == [a for a in recipe if a != "--bf16"] + levers and "--max-time" in emulated
    assert train_nli_benchmark.on_this_cpu(options, False) == [o for o in options if o != "dtype=bfloat16"]


def test_trained_for_says_when_the_time_bound_cut_the_recipe_short(
    tmp_path: Path, train_nli_benchmark: ModuleType
) -> None:
    meta = {"steps": 2150, "total_minutes": 85.1, "stop_reason": "time budget (85.0 min) reached",
            "val_metrics": {"auc": 0.81, "step": 2000}}
    (tmp_path / "ragjudge_nli.json").write_text(json.dumps(meta), encoding="utf-8")
    line = train_nli_benchmark.trained_for(tmp_path)
    assert "2,150 steps in 85.1 min (time budget (85.0 min) reached)" in line
    assert "best val AUC 0.81 at step 2000" in line and "42.5% of the recipe's 5,049 steps" in line
    meta["steps"] = 5025  # 24 steps short: said as 99.5%, not a "100%" that reads as complete
    (tmp_path / "ragjudge_nli.json").write_text(json.dumps(meta), encoding="utf-8")
    assert "99.5% of the recipe's" in train_nli_benchmark.trained_for(tmp_path)
    meta["steps"] = 5048  # one step short: 99.98%, rounded down to 99.9%
    (tmp_path / "ragjudge_nli.json").write_text(json.dumps(meta), encoding="utf-8")
    assert "99.9% of the recipe's" in train_nli_benchmark.trained_for(tmp_path)
    meta["steps"] = 5049
    (tmp_path / "ragjudge_nli.json").write_text(json.dumps(meta), encoding="utf-8")
    assert "of the recipe's" not in train_nli_benchmark.trained_for(tmp_path)
    assert "no ragjudge_nli.json" in train_nli_benchmark.trained_for(tmp_path / "missing")


def test_hybrid_is_the_geometric_mean_and_skips_where_either_judge_skipped(train_nli_benchmark: ModuleType) -> None:
    nli = {"a": 0.81, "b": 0.5, "c": None, "d": 0.3}
    overlap = {"a": 0.25, "b": None, "c": 0.9}  # "d" missing: overlap wrote no row for it
    assert train_nli_benchmark.hybrid(nli, overlap) == {"a": pytest.approx(0.45), "b": None, "c": None, "d": None}
    assert train_nli_benchmark.hybrid({"a": -1e-7}, {"a": 0.5}) == {"a": 0.0}  # rounding below 0 is not a NaN


def test_print_table_counts_wins_against_the_best_heuristic_for_nli_and_the_hybrid(
    train_nli_benchmark: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    key, modes = train_nli_benchmark.HYBRID_KEY, ["min", "score", "label"]

    def row(name: str, nli: float, overlap: tuple[float, ...], tfidf: float, hybrid: float) -> dict[str, object]:
        out: dict[str, object] = {"set": name, "n": 10, "nli": nli, key: hybrid}
        out.update({f"overlap/{m}": v for m, v in zip(modes, overlap)})
        out.update({f"tfidf/{m}": tfidf for m in modes})
        return out

    train_nli_benchmark.print_table([row("one", 0.7, (0.6, 0.8, 0.5), 0.65, 0.85),  # hybrid wins, nli loses
                                     row("two", 0.9, (0.6, 0.6, 0.6), 0.95, 0.9)], modes)  # tfidf is the bar
    lines = capsys.readouterr().out.splitlines()
    assert "| one | 10 | 0.700 | 0.800 (score) | 0.650 (min) | 0.850 |" in lines
    assert "| mean | | 0.800 | 0.700 | 0.800 | 0.875 |" in lines
    assert "nli beats both heuristics on 0 of 2 sets" in lines
    assert any(line.startswith(f"{key} (geometric mean") and line.endswith("beats both on 1 of 2") for line in lines)
