"""The command line, run as a user runs it: in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sklearn.metrics import roc_auc_score

from tests.conftest import REPO, shared_data


def ragjudge(*args: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ragjudge", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=600)


def test_import_and_help_stay_light() -> None:
    probe = ("import sys, ragjudge, ragjudge.cli; from ragjudge.cli import build_parser; build_parser(); "
             "import ragjudge.config, ragjudge.evaluate, ragjudge.judges.registry; "
             "print(sorted(m for m in ('torch', 'transformers', 'openai', 'ray', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert "evaluate" in ragjudge("--help").stdout


def test_version() -> None:
    assert ragjudge("--version").stdout.startswith("ragjudge ")


def make_plugin(root: Path, dist: str, module: str, source: str, entries: dict[str, str]) -> None:
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "\n".join(f"{name} = {value}" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[ragjudge.judges]\n{lines}\n")
    (root / f"{module}.py").write_text(source)


def test_judges_list_shows_builtins_and_a_broken_plugin_without_breaking_them(tmp_path: Path) -> None:
    make_plugin(tmp_path, "broken_plugin", "broken_plugin", "raise RuntimeError('no luck today')\n",
                {"broken": "broken_plugin:Judge"})
    out = ragjudge("judges", "list", env={"PYTHONPATH": str(tmp_path)})
    lines = out.stdout.splitlines()
    assert any(line.startswith("overlap") and " ok " in line for line in lines)
    assert any(line.startswith("tfidf") and " ok " in line for line in lines)
    broken = next(i for i, line in enumerate(lines) if line.startswith("broken"))
    assert "BROKEN" in lines[broken] and "broken_plugin" in lines[broken]
    assert "failed to import: RuntimeError: no luck today" in lines[broken + 1]
    assert "ragjudge.judges:broken" in lines[broken + 1]
    assert out.returncode == 1  # a broken plugin is worth a non-zero exit for scripts


def test_evaluate_the_article_paris_example(tmp_path: Path) -> None:
    out = ragjudge("evaluate", "examples/paris.jsonl", "--config", "examples/paris.yaml", "--output",
                   str(tmp_path / "paris.json"))
    assert out.returncode == 0, out.stderr
    samples = {s["id"]: s["metrics"] for s in json.loads((tmp_path / "paris.json").read_text())["samples"]}
    assert f"{samples['paris-faithful']['faithfulness']['score']:.2f}" == "1.00"
    assert f"{samples['paris-hallucinated']['faithfulness']['score']:.2f}" == "0.00"
    assert samples["paris-faithful"]["context_precision"]["score"] == 1.0  # all chunks mention France
    assert "faithfulness" in out.stdout and "0.500" in out.stdout


def test_evaluate_the_article_canada_retrieval_example(tmp_path: Path) -> None:
    out = ragjudge("evaluate", "examples/canada.jsonl", "--config", "examples/canada.yaml", "--output",
                   str(tmp_path / "canada.json"))
    assert out.returncode == 0, out.stderr
    summary = json.loads((tmp_path / "canada.json").read_text())["summary"]
    printed = {name: f"{s['mean']:.3f}" for name, s in summary.items()}
    assert printed == {  # the article's printed numbers (exponential gain for nDCG)
        "P@3": "0.667", "R@3": "0.500", "nDCG(gain=exponential)@3": "0.574",
        "P@5": "0.800", "R@5": "1.000", "nDCG(gain=exponential)@5": "0.632",
        "RR": "0.500", "AP": "0.679",
    }


@pytest.mark.slow
def test_begin_faithfulness_with_overlap_ranks_human_labels(tmp_path: Path) -> None:
    data = shared_data("faithfulness", "begin.jsonl")
    out = ragjudge("evaluate", str(data), "--metric", "faithfulness", "--judge", "overlap", "--output",
                   str(tmp_path / "out.json"), "--quiet")
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    summary = result["summary"]["faithfulness"]
    assert (summary["n"], summary["n_failed"], summary["n_scored"]) == (4749, 0, 4749)
    labels = {json.loads(line)["id"]: json.loads(line)["label"] for line in data.read_text().splitlines()}
    scores = [(labels[s["id"]], s["metrics"]["faithfulness"]["score"]) for s in result["samples"]]
    assert roc_auc_score([y for y, _ in scores], [s for _, s in scores]) >= 0.85


def test_bad_input_is_one_clear_line_and_a_nonzero_exit(tmp_path: Path) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text('{"question": "q", "contexts": ["c"], "answer": "a"}\n{"question": oops}\n')
    out = ragjudge("evaluate", str(data), "--metric", "faithfulness")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [f"ragjudge: error: {data}:2: invalid JSON: Expecting value (column 14)"]
    config = tmp_path / "c.yaml"
    config.write_text("metrics: [faithfulness]\njduge: overlap\n")
    out = ragjudge("evaluate", "examples/paris.jsonl", "--config", str(config))
    assert out.returncode == 2 and out.stderr.strip() == f"ragjudge: error: {config}, key 'jduge': unknown key"


def test_judge_options_from_the_command_line(tmp_path: Path) -> None:
    out = ragjudge("evaluate", "examples/paris.jsonl", "-m", "faithfulness", "--judge", "overlap",
                   "--judge-option", "threshold=0.99", "--judge-option", "punctuation=keep",
                   "--output", str(tmp_path / "o.csv"), "-q")
    assert out.returncode == 0, out.stderr
    header, faithful, hallucinated = (tmp_path / "o.csv").read_text().splitlines()
    assert faithful.startswith("paris-faithful,0.5,ok")  # "987." keeps its full stop, so one claim misses
    bad = ragjudge("evaluate", "examples/paris.jsonl", "--judge-option", "threshold=high")
    assert bad.returncode == 2 and "threshold" in bad.stderr and "ragjudge.judges:overlap" in bad.stderr
