"""The embedding judge with its real default model (packaged all-MiniLM-L6-v2, offline): sense, contract, CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ragjudge_embeddings import EmbeddingJudge

from ragjudge.records import Pair
from ragjudge.testing import JudgeCheck, parametrize_judge_checks

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared" / "data" / "faithfulness"
OFFLINE = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def test_relevant_answers_outscore_irrelevant_ones(minilm: EmbeddingJudge) -> None:
    q = "What is the capital of France?"
    near, far = minilm.judge([Pair.relevance(q, "Paris is the capital of France."),
                              Pair.relevance(q, "Bananas are rich in potassium.")])
    assert near.score is not None and far.score is not None
    assert near.score > 0.6 > 0.2 > far.score
    assert (near.label, far.label) == ("relevant", "irrelevant")


def test_a_claim_matching_one_premise_sentence_outscores_an_unrelated_claim(minilm: EmbeddingJudge) -> None:
    premise = "The Eiffel Tower was completed in 1889. It stands in Paris, on the Champ de Mars."
    found, missing = minilm.judge([Pair.support("The Eiffel Tower is in Paris.", [premise]),
                                   Pair.support("Penguins live in Antarctica.", [premise])])
    assert found.score is not None and missing.score is not None
    assert found.score > 0.6 > missing.score


@pytest.mark.slow
@parametrize_judge_checks(lambda: EmbeddingJudge(cache_size=0))
def test_conforms_with_the_real_model(judge_check: JudgeCheck) -> None:
    judge_check()


def _samples(path: Path) -> None:
    rows = [{"id": "good", "question": "What is the capital of France?", "contexts": ["Paris is in France."],
             "answer": "The capital of France is Paris."},
            {"id": "off", "question": "What is the capital of France?", "contexts": ["Paris is in France."],
             "answer": "Bananas are rich in potassium."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.slow
@pytest.mark.parametrize("judge", ["embedding", "ragjudge-embeddings:embedding"])
def test_cli_evaluates_answer_relevance_offline(tmp_path: Path, judge: str) -> None:
    data, out = tmp_path / "answers.jsonl", tmp_path / "result.json"
    _samples(data)
    done = subprocess.run([sys.executable, "-m", "ragjudge", "evaluate", str(data), "--metric", "answer_relevance",
                           "--judge", judge, "--quiet", "--output", str(out)], env=OFFLINE, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    scores = {s["id"]: s["metrics"]["answer_relevance"]["score"] for s in result["samples"]}
    assert scores["good"] > scores["off"]
    assert result["summary"]["answer_relevance"]["judge"]["name"] == "embedding"


@pytest.mark.slow
def test_support_ranks_begin_answers_by_faithfulness(minilm: EmbeddingJudge) -> None:
    """AUC on every 20th BEGIN sample (238 of 4,749); the full set is in the README and benchmarks/."""
    from sklearn.metrics import roc_auc_score

    from ragjudge.data import read_samples
    from ragjudge.evaluate import evaluate
    from ragjudge.metrics import build_metric

    path = SHARED / "begin.jsonl"
    if not path.exists():
        pytest.fail(f"shared data not found at {path}")
    samples = read_samples(path)[::20]
    metric = build_metric("faithfulness", minilm, {"claim_scoring": "score"})
    outcomes = evaluate(samples, [metric], progress=False).outcomes["faithfulness"]
    scored = [(o.score, s.label) for o, s in zip(outcomes, samples, strict=True) if o.score is not None]
    assert len(scored) == len(samples)
    auc = roc_auc_score([label == 1 for _, label in scored], [score for score, _ in scored])
    assert auc > 0.8, auc
