"""``ragjudge meta-eval``: the acceptance run on SummEdits, determinism, failures, specs and the figures."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from ragjudge.cli import main
from ragjudge.errors import ConfigError
from ragjudge.judges import registry
from ragjudge.judges.base import Judge
from ragjudge.metaeval import Settings, meta_evaluate, parse_judge_spec
from ragjudge.records import Pair, Task, Verdict

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def shared(*parts: str) -> Path:
    """A file of ../shared/data, or a clear failure saying where it was looked for."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.is_file():
        pytest.fail(f"shared data not found at {path}: these tests need ../shared/data beside the repository")
    return path


@pytest.fixture(scope="module")
def summedits(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("meta") / "out"
    data = shared("faithfulness", "summedits_eval.jsonl")
    argv = ["meta-eval", str(data), "--judge", "overlap", "--judge", "tfidf", "--output", str(out), "-q"]
    assert main(argv) == 0
    return out


@pytest.mark.slow
def test_acceptance_writes_json_markdown_and_figures(summedits: Path) -> None:
    for name in ("report.json", "report.md", "timing.json", "roc.png", "agreement.png"):
        assert (summedits / name).stat().st_size > 0, name
    assert (summedits / "roc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    markdown = (summedits / "report.md").read_text()
    assert "| `overlap` |" in markdown and "| `overlap` | `tfidf` |" in markdown


@pytest.mark.slow
@pytest.mark.parametrize("judge", ["overlap", "tfidf"])
def test_reported_auc_matches_sklearn_on_the_per_sample_scores(summedits: Path, judge: str) -> None:
    report = json.loads((summedits / "report.json").read_text())
    rows = [s for s in report["samples"] if s["split"] == "evaluation" and s["scores"][judge] is not None]
    assert len(rows) == report["evaluation"]["n"] == 690
    expected = roc_auc_score([r["label"] for r in rows], [r["scores"][judge] for r in rows])
    assert abs(report["judges"][judge]["stats"]["auc_roc"]["value"] - expected) < 1e-9


def _rows(n: int = 60) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        faithful = i % 3 != 0
        answer = "The bridge opened in 1932 to traffic." if faithful else "The bridge shut in 1990."
        if i % 10 == 0:
            answer += " BOOM marks this one."
        rows.append({"id": f"r{i}", "contexts": [f"Record {i}. The bridge opened in 1932 to traffic."],
                     "answer": answer, "label": int(faithful)})
    return rows


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


class FlakyJudge(Judge):
    """Fails every claim mentioning BOOM; otherwise the share of claim words found in the premise."""

    name = "flaky"
    tasks = frozenset({Task.SUPPORT})

    def judge_batch(self, pairs: Sequence[Pair]) -> list[Verdict]:
        out = []
        for pair in pairs:
            if "BOOM" in pair.text:
                out.append(Verdict.failed("flaky judge: timeout"))
                continue
            words = set(pair.text.lower().split())
            score = len(words & set(" ".join(pair.premises).lower().split())) / len(words)
            out.append(Verdict(score=score, label="supported" if score > 0.5 else "unsupported"))
        return out


@pytest.fixture
def with_flaky(monkeypatch: pytest.MonkeyPatch) -> None:
    real = registry.create_judge

    def create(name: str, options: Any = None) -> Judge:
        return FlakyJudge(options) if name == "flaky" else real(name, options)

    monkeypatch.setattr(registry, "create_judge", create)


def test_a_failing_judge_is_scored_on_the_rest_with_its_failures_counted(
        tmp_path: Path, with_flaky: None, capsys: pytest.CaptureFixture[str]) -> None:
    data = _write(tmp_path / "d.jsonl", _rows())
    out = tmp_path / "out"
    assert main(["meta-eval", str(data), "--judge", "flaky", "--judge", "overlap", "-o", str(out),
                 "--no-figures"]) == 0
    report = json.loads((out / "report.json").read_text())
    flaky = report["judges"]["flaky"]
    assert flaky["n_failed"] + flaky["calibration"]["n_failed"] == 6
    assert flaky["n_scored"] == flaky["n"] - flaky["n_failed"] > 0
    reason = "1 of 2 claim judgements failed: flaky judge: timeout"
    assert flaky["unscored_reasons"] == {reason: flaky["n_failed"]}
    assert flaky["stats"]["auc_roc"]["value"] is not None
    pair = report["pairs"][0]
    assert pair["n"] == flaky["n_scored"]
    printed = capsys.readouterr().out
    assert f"| `flaky` | {flaky['n_scored']} | {flaky['n_failed']} | 0 |" in printed
    assert "flaky judge: timeout" in printed


def test_same_file_and_seed_give_the_same_report(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows())
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main(["meta-eval", str(data), "--judge", "overlap", "--judge", "tfidf:as=t", "-o", str(out),
                     "-q", "--resamples", "200"]) == 0
    for name in ("report.json", "report.md", "roc.png", "agreement.png"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name


def test_calibrate_on_another_file_scores_all_of_data(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", _rows(30))
    other = _write(tmp_path / "c.jsonl", [{**r, "id": "c" + r["id"]} for r in _rows(45)])
    meta = meta_evaluate(data, [parse_judge_spec("overlap")],
                         Settings(calibrate_on=other, resamples=100, progress=False))
    assert meta.report["evaluation"]["n"] == 30
    calibration = meta.report["calibration"]
    assert (calibration["source"], calibration["file"]["name"], calibration["n"]) == ("file", "c.jsonl", 45)
    assert {s["split"] for s in meta.report["samples"]} == {"evaluation"}


@pytest.mark.parametrize(("spec", "name", "options", "label"), [
    ("overlap", "overlap", {}, "overlap"),
    ("overlap:threshold=0.5,lowercase=false", "overlap", {"threshold": 0.5, "lowercase": False},
     "overlap:threshold=0.5,lowercase=false"),
    ("ragjudge:tfidf", "ragjudge:tfidf", {}, "ragjudge:tfidf"),
    ("nli:model=runs/best,as=nli-best", "nli", {"model": "runs/best"}, "nli-best"),
], ids=["name", "options", "pinned", "label"])
def test_judge_specs(spec: str, name: str, options: dict[str, Any], label: str) -> None:
    choice = parse_judge_spec(spec)
    assert (choice.judge.name, choice.judge.options, choice.label) == (name, options, label)


def test_judge_spec_from_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "strict.yaml"
    config.write_text("judge: {name: overlap, options: {threshold: 0.9}}\n"
                      "metrics: [{name: faithfulness, options: {claim_scoring: label}}]\n")
    choice = parse_judge_spec(str(config))
    assert (choice.label, choice.judge.options, choice.metric_options) == (
        "strict", {"threshold": 0.9}, {"claim_scoring": "label"})


def test_bad_spec_and_missing_labels_fail_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="key=value"):
        parse_judge_spec("overlap:threshold=0.5,oops")
    data = _write(tmp_path / "d.jsonl", [{k: v for k, v in r.items() if k != "label"} for r in _rows(5)])
    assert main(["meta-eval", str(data), "--judge", "overlap", "-o", str(tmp_path / "o"), "-q"]) == 2
    assert "have no human 'label'" in capsys.readouterr().err
    assert main(["meta-eval", str(_write(tmp_path / "e.jsonl", _rows(9))), "--judge", "nosuch", "-q"]) == 2
    assert "unknown judge 'nosuch'" in capsys.readouterr().err


def test_end_to_end_heatmap_from_a_users_results(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    samples: list[dict[str, Any]] = [{"id": str(i), "metrics": {
        "nDCG@5": {"score": float(r), "status": "ok", "reason": None},
        "faithfulness": {"score": float(g), "status": "ok", "reason": None}}}
        for i, (r, g) in enumerate(rng.random((40, 2)))]
    samples[0]["metrics"]["faithfulness"] = {"score": None, "status": "failed", "reason": "x"}
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"schema_version": 1, "summary": {
        "nDCG@5": {"judge": None}, "faithfulness": {"judge": {"name": "overlap"}}}, "samples": samples}))
    data = _write(tmp_path / "d.jsonl", _rows(30))
    out = tmp_path / "out"
    assert main(["meta-eval", str(data), "--judge", "overlap", "-o", str(out), "-q",
                 "--end-to-end", str(results)]) == 0
    assert (out / "end_to_end.png").read_bytes()[:4] == b"\x89PNG"


def test_end_to_end_needs_both_kinds_of_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"summary": {"faithfulness": {"judge": {}}}, "samples": []}))
    data = _write(tmp_path / "d.jsonl", _rows(30))
    assert main(["meta-eval", str(data), "--judge", "overlap", "-o", str(tmp_path / "o"), "-q",
                 "--no-figures", "--end-to-end", str(results)]) == 2
    assert "needs a retrieval metric and a generation metric" in capsys.readouterr().err


def test_graded_labels_get_spearman_and_binary_statistics_at_one_half(tmp_path: Path) -> None:
    rows = _rows(40)
    for i, row in enumerate(rows):
        row["label"] = round(0.55 + 0.4 * (i % 4) / 3, 2) if row["label"] else round(0.1 * (i % 4), 2)
    meta = meta_evaluate(_write(tmp_path / "g.jsonl", rows), [parse_judge_spec("overlap")],
                         Settings(resamples=100, progress=False))
    assert meta.report["labels"] == {"kind": "graded", "faithful_at": 0.5}
    stats = meta.report["judges"]["overlap"]["stats"]
    assert stats["spearman"]["value"] is not None and stats["auc_roc"]["value"] is not None


def test_bad_metric_options_are_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("judge: overlap\nmetrics: [{name: faithfulness, options: {claim_scoring: maybe}}]\n")
    with pytest.raises(ConfigError, match="claim_scoring"):
        meta_evaluate(_write(tmp_path / "d.jsonl", _rows(20)), [parse_judge_spec(str(config))],
                      Settings(resamples=100, progress=False))
